# A disk behind virtio-scsi with two request queues: the block layer gets
# one, the dump the other (the SCSI dump hooks put the dump's commands
# there and poll it).  Two CPUs, the other one reading sda2 with O_DIRECT
# through the block layer's queue (throttled to 200 requests a second),
# so that its commands are in flight at the panic; they neither block the
# dump nor complete into its queue.  The ring takes guest-physical
# addresses: the pages are written where they are.  sda2 (random bytes)
# must come out unchanged.
virtio_scsi_busy
