# A Debian 13 system (trixie: Linux 6.12, systemd 257) installed as a KVM
# guest is: the root file system, /var/crash and the dump partition each on
# a virtio-blk disk, the kernel and diskdump-tools packages installed with
# dpkg, the partition armed by its PARTUUID, 2 CPUs.  The steps are the
# debian scenario's (tests/debian-guest.sh): boot 1 formats and adds the
# partition, fills memory with the pattern and crashes; boot 2's
# diskdump.service saves the dump before sysinit.target and arms the
# partition again.  The dump disk has two request queues: the dump goes
# through the one virtio_blk set aside.  Then Debian 13's readers.
# shellcheck source=tests/debian-guest.sh
DEBIAN_SUITE=trixie
. tests/debian-guest.sh
QEMU_TIMEOUT=600
# a slot after the other two disks', so that the dump disk is vdc
debian_end_to_end vdc 2 -device virtio-blk-pci,drive=dd0,addr=0x18,num-queues=2 \
	-drive "file=$WORK/dump.img,if=none,format=raw,id=dd0"
grep -Eq 'virtio_blk virtio[0-9]+: dump queue dump, [0-9]+ entries' "$DD/dmesg-boot1.txt" ||
	{ grep virtio "$DD/dmesg-boot1.txt"; fail "virtio_blk set no queue aside for dumps"; }
grep -q "^PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"" "$DD/os-release" ||
	{ cat "$DD/os-release"; fail "the guest is not Debian 13"; }
note "$(grep -o '^systemd [0-9]*' "$DD/systemd-version"); $(grep -Eo 'dump queue dump, [0-9]+ entries, [0-9]+ KiB per request' "$DD/dmesg-boot1.txt")"
VMCORE=$VMCORE check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
