# A virtio-blk disk with two request queues: the block layer gets one, the
# dump the other, set aside when the device was probed.  The other CPU
# keeps O_DIRECT reads of vdb2 in flight on the block layer's queue
# (throttled to 200 requests a second) while the dump goes through the
# set-aside queue by polling, the pages written where they are, several
# requests in flight.  vdb2 (random bytes) must come out unchanged.
virtio_busy
