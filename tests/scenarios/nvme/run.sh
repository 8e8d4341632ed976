# An NVMe namespace: the dump goes through the queue pair that nvme-pci set
# aside, while the other CPU keeps O_DIRECT reads of nvme0n1p2 in flight on
# the normal queues.  p2 (random bytes) must come out unchanged.
# Boot 1 ends in QEMU (-no-reboot) and boot 2 is a fresh QEMU: after a
# warm reset that follows NVMe I/O, QEMU 7.2's nvme model stops raising
# the admin queue's interrupt in the next boot (seen with no dump at all:
# the same reader, a panic and no partition armed).  A real reboot resets
# the controller; savecore in boot 2 still reads what boot 1 wrote.
# Boot 1 throttles the disk to 200 requests a second, so that the reader's
# commands wait in QEMU and are in flight on the driver's queues at the
# panic.
nvme_busy
