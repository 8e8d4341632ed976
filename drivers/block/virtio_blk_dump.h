/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash dumps to virtio-blk disks (diskdump): what virtio_blk.c and
 * virtio_blk_dump.c share.  virtio_blk.c asks the device for one request
 * virtqueue more than it gives the block layer and keeps the last one for
 * dumps; virtio_blk_dump.c polls it at panic time.
 */
#ifndef _VIRTIO_BLK_DUMP_H
#define _VIRTIO_BLK_DUMP_H

struct gendisk;
struct virtio_device;
struct virtqueue;

#ifdef CONFIG_VIRTIO_BLK_DUMP
#define VIRTIO_BLK_DUMP_QUEUES	1

struct virtio_device *virtblk_dump_vdev(struct gendisk *disk);
struct virtqueue *virtblk_dump_vq(struct virtio_device *vdev);
void virtblk_dump_vq_set(struct virtio_device *vdev,
			 struct virtqueue **dump_vq, struct virtqueue *vq);
int virtblk_dump_init(void);
void virtblk_dump_exit(void);
#else
#define VIRTIO_BLK_DUMP_QUEUES	0

static inline void virtblk_dump_vq_set(struct virtio_device *vdev,
				       struct virtqueue **dump_vq,
				       struct virtqueue *vq)
{
	*dump_vq = vq;
}

static inline int virtblk_dump_init(void)
{
	return 0;
}

static inline void virtblk_dump_exit(void)
{
}
#endif

#endif /* _VIRTIO_BLK_DUMP_H */
