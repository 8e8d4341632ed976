# A Debian 12 system end to end (tests/debian-guest.sh): the kernel and
# diskdump-tools packages installed with dpkg, systemd and udev, the dump
# partition on a disk behind the lsi53c895a (sym53c8xx_2).  Boot 1:
# diskdump.service is enabled by the package and arms nothing; the
# partition is formatted and added by its /dev/disk/by-partuuid name;
# memory is filled with the pattern; sysrq c.  Boot 2: diskdump.service
# saves the dump to /var/crash before sysinit.target, after /var/crash is
# mounted, and arms the partition again; the journal says both.
# shellcheck source=tests/debian-guest.sh
. tests/debian-guest.sh
QEMU_TIMEOUT=600
# shellcheck disable=SC2046
debian_end_to_end sda 1 $(disk_on lsi "$WORK/dump.img")
