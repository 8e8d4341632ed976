# nvme behind QEMU's Intel IOMMU with lazy unmapping.  nvme-pci mapped the
# dump queue and its buffer when the partition was armed, so the dump maps
# nothing at panic; the reader on the normal queues maps and unmaps all the
# time when the panic comes.  The dump must complete through the IOMMU
# with no DMA fault, and nvme0n1p2 stay unchanged.
IOMMU=lazy nvme_busy
pci=$(grep -o "nvme nvme0: pci function [0-9a-f:.]*" "$WORK/out/dmesg-boot2.txt" | head -1 | awk '{print $NF}')
[ -n "$pci" ] || fail "no nvme PCI function in the kernel log"
check_iommu lazy "$pci"
