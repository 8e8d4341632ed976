#!/bin/bash
# Install, with apt-get, what building and testing diskdump needs.
set -euo pipefail
pkgs="linux-source-6.12 build-essential bc flex bison libelf-dev libssl-dev cpio xz-utils
      sparse ccache qemu-system-x86 busybox-static crash makedumpfile gdb e2fsprogs fdisk
      python3 file kmod quilt kexec-tools clang libclang-rt-14-dev groff-base zlib1g-dev liblzo2-dev libzstd-dev
      libblkid-dev util-linux gdisk lvm2 mdadm cryptsetup-bin xfsprogs btrfs-progs dosfstools ntfs-3g debootstrap
      debhelper lintian rsync zstd openssl"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -q >/dev/null
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
