# As iommu-nvme, with strict unmapping: every unmap of the reader waits for
# an IOTLB invalidation through the IOMMU's queue.
IOMMU=strict nvme_busy
pci=$(grep -o "nvme nvme0: pci function [0-9a-f:.]*" "$WORK/out/dmesg-boot2.txt" | head -1 | awk '{print $NF}')
[ -n "$pci" ] || fail "no nvme PCI function in the kernel log"
check_iommu strict "$pci"
