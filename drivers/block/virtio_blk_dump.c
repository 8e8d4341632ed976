// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_blk_dump.c - crash dumps to virtio-blk disks (diskdump)
 *
 * At panic time the block layer and the driver's request virtqueues are
 * off limits: requests may be in flight on them, their locks held by
 * stopped CPUs.  So a dump goes through a virtqueue of its own.
 * virtio_blk.c asks the device for one request queue more than it gives
 * the block layer and keeps the last one: it has no callback (so no
 * interrupt vector), it is created with a per-buffer context (so the ring
 * never allocates an indirect descriptor table: every request uses direct
 * descriptors) and it is in premapped mode (so the ring maps nothing: the
 * addresses this file puts in it are already the device's).  Nothing else
 * ever adds a buffer to it, and the virtqueue functions take no lock of
 * their own: their callers serialise, and here the caller is alone.
 *
 * When the first dump partition on a device is configured, this file
 * allocates the requests' headers and status bytes and a data buffer.  At
 * panic, requests are added to the queue, the device notified, and used
 * buffers taken back by polling, each wait bounded.
 *
 * Where the device reads memory at its guest-physical address (no
 * VIRTIO_F_ACCESS_PLATFORM, the common case) or through DMA that goes
 * straight to memory (diskdump_dma_direct()), the dump's pages are written
 * from where they are, with up to VBD_SLOTS requests in flight.  Otherwise
 * (behind an IOMMU that translates), and for reads, flushes and the
 * header, a request moves the data buffer, mapped when armed.
 *
 * A device that offers a single request queue has none to set aside: its
 * disks are refused when armed.  Suspend (freeze) deletes every virtqueue:
 * virtio_blk.c tells us first (virtblk_dump_vq_set(), NULL), and hands us
 * the new dump queue on restore.
 */

#define pr_fmt(fmt) "virtio_blk_dump: " fmt

#include <linux/blkdev.h>
#include <linux/diskdump.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/virtio.h>
#include <linux/virtio_blk.h>
#include <linux/virtio_config.h>

#include "virtio_blk_dump.h"

#define VBD_SLOTS		8	/* page writes in flight */
#define VBD_SYNC		VBD_SLOTS	/* the request that is waited for */
#define VBD_MAX_BLOCKS		64U	/* 256 KiB per request */
#define VBD_SECTORS_PER_BLOCK	(DISKDUMP_BLOCK_SIZE >> SECTOR_SHIFT)
#define VBD_POLL_US		10
#define VBD_TIMEOUT_US		(30 * USEC_PER_SEC)

/**
 * struct vbd_ctl - what the device reads and writes of a request besides
 *	its data, in memory it reaches
 * @hdr: the request header
 * @status: the status byte the device writes back
 */
struct vbd_ctl {
	struct virtio_blk_outhdr hdr;
	u8 status;
};

/**
 * struct vbd_req - a request: one of the page writes in flight, or the
 *	request that is waited for (VBD_SYNC)
 * @hdr_sg: its header
 * @status_sg: its status byte
 * @data_sg: its data, a block each
 * @pfns: for a page write, its pages, to write them again from a copy if
 *	the write fails
 * @part: for a page write, the partition
 * @block_nr: for a page write, its first block in the partition
 * @nr_blocks: for a page write, how many blocks
 * @status: the status the device returned
 * @busy: on the queue, not yet used by the device
 * @failed: completed with an error, not yet written again
 */
struct vbd_req {
	struct scatterlist hdr_sg;
	struct scatterlist status_sg;
	struct scatterlist data_sg[VBD_MAX_BLOCKS];
	unsigned long pfns[VBD_MAX_BLOCKS];
	struct disk_dump_partition *part;
	unsigned long block_nr;
	unsigned int nr_blocks;
	u8 status;
	bool busy;
	bool failed;
};

/**
 * struct vbd_dev - the dump queue of one virtio-blk device
 * @vdev: the device
 * @dma_dev: the device that does DMA for the queue, or NULL where the
 *	device uses guest-physical addresses
 * @ctl: the requests' headers and status bytes, one per request
 * @buf: the data buffer, of @max_blocks blocks
 * @ctl_dma: the device's address of @ctl
 * @buf_dma: the device's address of @buf
 * @buf_size: bytes in @buf
 * @max_blocks: blocks a request moves at most
 * @nr_slots: page writes in flight at most
 * @direct: the device reads RAM pages where they are
 * @flush: the device has a volatile write cache to flush
 * @list: on vbd_devs
 * @vq: the dump queue
 * @reqs: the page writes' requests, then the one waited for
 * @busy: page writes in flight
 * @max_busy: the most page writes in flight at once during this dump
 * @writes: page writes started during this dump
 * @bad_block: the first block of a write that failed for good
 * @ready: @vq exists (not deleted by a suspend)
 * @broken: a request timed out or could not be queued; the device may
 *	still own the queue's buffers
 * @write_failed: a write failed for good; @bad_block says where
 * @wrote: something was written since the last flush
 */
struct vbd_dev {
	/* set when armed, for good: dev->priv_fixed, checksummed */
	struct virtio_device *vdev;
	struct device *dma_dev;
	struct vbd_ctl *ctl;
	void *buf;
	dma_addr_t ctl_dma;
	dma_addr_t buf_dma;
	size_t buf_size;
	unsigned int max_blocks;
	unsigned int nr_slots;
	bool direct;
	bool flush;
	/* changed by suspend and resume, by other disks' arming, at panic */
	struct list_head list;
	struct virtqueue *vq;
	struct vbd_req reqs[VBD_SLOTS + 1];
	unsigned int busy;
	unsigned int max_busy;
	unsigned int writes;
	unsigned long bad_block;
	bool ready;
	bool broken;
	bool write_failed;
	bool wrote;
};

#define VBD_CTL_SIZE	PAGE_SIZE

/* The devices with a dump queue in use; the mutex serialises setup too. */
static LIST_HEAD(vbd_devs);
static DEFINE_MUTEX(vbd_mutex);

/* ------------------------------------------------------------------ */
/* Panic time                                                          */
/* ------------------------------------------------------------------ */

/* One scatterlist entry of @len bytes at the device's address @addr. */
static __diskdump_text void
vbd_sg_set(struct scatterlist *sg, dma_addr_t addr, unsigned int len,
	   bool last)
{
	sg->page_link = last ? SG_END : 0;
	sg->offset = 0;
	sg->length = len;
	sg_dma_address(sg) = addr;
}

/*
 * Queue request @req: @type at @sector, with the @nr blocks already in its
 * data_sg (written for VIRTIO_BLK_T_OUT, read for VIRTIO_BLK_T_IN), and
 * notify the device.
 */
static __diskdump_text int
vbd_submit(struct vbd_dev *vbd, struct vbd_req *req, u32 type, u64 sector,
	   unsigned int nr)
{
	unsigned int i = req - vbd->reqs;
	struct vbd_ctl *ctl = &vbd->ctl[i];
	dma_addr_t ctl_dma = vbd->ctl_dma + i * sizeof(*ctl);
	struct scatterlist *sgs[3];
	unsigned int out = 0, in = 0;
	int ret;

	ctl->hdr.type = cpu_to_virtio32(vbd->vdev, type);
	ctl->hdr.ioprio = 0;
	ctl->hdr.sector = cpu_to_virtio64(vbd->vdev, sector);
	ctl->status = VIRTIO_BLK_S_IOERR;	/* until the device says */
	vbd_sg_set(&req->hdr_sg, ctl_dma + offsetof(struct vbd_ctl, hdr),
		   sizeof(ctl->hdr), true);
	vbd_sg_set(&req->status_sg, ctl_dma + offsetof(struct vbd_ctl, status),
		   sizeof(ctl->status), true);
	sgs[out++] = &req->hdr_sg;
	if (nr && type == VIRTIO_BLK_T_OUT)
		sgs[out++] = req->data_sg;
	else if (nr)
		sgs[out + in++] = req->data_sg;
	sgs[out + in++] = &req->status_sg;
	/* no indirect table, so nothing is allocated whatever the flags */
	ret = virtqueue_add_sgs(vbd->vq, sgs, out, in, req, GFP_ATOMIC);
	if (ret) {
		vbd->broken = true;
		pr_emerg("request not queued (%d)\n", ret);
		return -EIO;
	}
	req->busy = true;
	if (!virtqueue_kick(vbd->vq)) {
		vbd->broken = true;
		pr_emerg("the device could not be notified\n");
		return -EIO;
	}
	return 0;
}

/* Take back the requests the device has used. */
static __diskdump_text void vbd_reap(struct vbd_dev *vbd)
{
	struct vbd_req *req;
	unsigned int len;

	while ((req = virtqueue_get_buf(vbd->vq, &len))) {
		if (req < vbd->reqs || req > &vbd->reqs[VBD_SYNC] || !req->busy)
			continue;	/* not ours: cannot be, but never trusted */
		req->status = READ_ONCE(vbd->ctl[req - vbd->reqs].status);
		req->busy = false;
		req->failed = req->status != VIRTIO_BLK_S_OK;
		if (req != &vbd->reqs[VBD_SYNC])
			vbd->busy--;
	}
}

/*
 * Nothing more will come back: a request timed out or was not queued, or
 * the ring found the device broken (and gives no used buffer any more).
 */
static __diskdump_text bool vbd_dead(struct vbd_dev *vbd)
{
	if (!vbd->broken && virtqueue_is_broken(vbd->vq))
		vbd->broken = true;
	return vbd->broken;
}

/* Wait, with a bound, until at most @max_busy page writes are in flight. */
static __diskdump_text int
vbd_wait_slots(struct vbd_dev *vbd, unsigned int max_busy)
{
	unsigned long waited;

	for (waited = 0; waited < VBD_TIMEOUT_US; waited += VBD_POLL_US) {
		vbd_reap(vbd);
		if (vbd->busy <= max_busy)
			return 0;
		if (vbd_dead(vbd))
			return -EIO;
		diskdump_udelay(VBD_POLL_US);
	}
	vbd->broken = true;
	pr_emerg("a write of pages timed out\n");
	return -ETIMEDOUT;
}

/* Queue the waited-for request and poll until the device used it. */
static __diskdump_text int
vbd_exec(struct vbd_dev *vbd, u32 type, u64 sector, unsigned int nr)
{
	struct vbd_req *req = &vbd->reqs[VBD_SYNC];
	unsigned long waited;
	int ret;

	if (vbd->broken)
		return -EIO;
	ret = vbd_wait_slots(vbd, 0);
	if (!ret)
		ret = vbd_submit(vbd, req, type, sector, nr);
	if (ret)
		return ret;
	for (waited = 0; waited < VBD_TIMEOUT_US; waited += VBD_POLL_US) {
		vbd_reap(vbd);
		if (!req->busy) {
			if (!req->failed)
				return 0;
			pr_emerg("request type %u failed: status %u\n", type,
				 req->status);
			return -EIO;
		}
		if (vbd_dead(vbd))
			return -EIO;
		diskdump_udelay(VBD_POLL_US);
	}
	vbd->broken = true;
	pr_emerg("request type %u timed out\n", type);
	return -ETIMEDOUT;
}

/* The first sector of @nr_blocks blocks at @block_nr, if they fit. */
static __diskdump_text int
vbd_sector(struct vbd_dev *vbd, struct disk_dump_partition *part,
	   unsigned long block_nr, unsigned int nr_blocks, u64 *sector)
{
	sector_t blocks = part->nr_sects / VBD_SECTORS_PER_BLOCK;

	if (!nr_blocks || nr_blocks > vbd->max_blocks ||
	    block_nr >= blocks || nr_blocks > blocks - block_nr)
		return -EINVAL;
	*sector = part->start_sect + (u64)block_nr * VBD_SECTORS_PER_BLOCK;
	return 0;
}

/* Move @nr_blocks blocks through the data buffer, filled for a write. */
static __diskdump_text int
vbd_rw_buf(struct disk_dump_partition *part, int rw, unsigned long block_nr,
	   unsigned int nr_blocks)
{
	struct vbd_dev *vbd = part->dev->priv;
	struct vbd_req *req = &vbd->reqs[VBD_SYNC];
	unsigned int i;
	u64 sector;
	int ret;

	ret = vbd_sector(vbd, part, block_nr, nr_blocks, &sector);
	if (ret)
		return ret;
	for (i = 0; i < nr_blocks; i++)
		vbd_sg_set(&req->data_sg[i],
			   vbd->buf_dma + i * DISKDUMP_BLOCK_SIZE,
			   DISKDUMP_BLOCK_SIZE, i == nr_blocks - 1);
	ret = vbd_exec(vbd, rw ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN, sector,
		       nr_blocks);
	if (!ret && rw)
		vbd->wrote = true;
	return ret;
}

static __diskdump_text int
vbd_rw_block(struct disk_dump_partition *part, int rw, unsigned long block_nr,
	     void *buf, unsigned int nr_blocks)
{
	struct vbd_dev *vbd = part->dev->priv;
	size_t bytes = (size_t)nr_blocks * DISKDUMP_BLOCK_SIZE;
	int ret;

	if (bytes > vbd->buf_size)
		return -EINVAL;
	if (rw)
		memcpy(vbd->buf, buf, bytes);
	ret = vbd_rw_buf(part, rw, block_nr, nr_blocks);
	if (!ret && !rw)
		memcpy(buf, vbd->buf, bytes);
	return ret;
}

/*
 * Write the pages of a failed page write again, from copies in the data
 * buffer: the machine-check safe copy costs a poisoned page, not the dump.
 */
static __diskdump_text int vbd_rewrite(struct vbd_dev *vbd, struct vbd_req *req)
{
	pr_emerg("write of blocks %lu-%lu failed (status %u): writing them again from a copy\n",
		 req->block_nr, req->block_nr + req->nr_blocks - 1,
		 req->status);
	diskdump_copy_pages(vbd->buf, req->pfns, req->nr_blocks);
	return vbd_rw_buf(req->part, 1, req->block_nr, req->nr_blocks);
}

/* Note that the write of @req may not have reached the disk. */
static __diskdump_text void vbd_lost(struct vbd_dev *vbd, struct vbd_req *req)
{
	vbd->write_failed = true;
	vbd->bad_block = min(vbd->bad_block, req->block_nr);
}

/*
 * Wait for every page write, and write each failed one again.  Any write
 * that still fails, or was in flight when the wait timed out, counts in
 * bad_block.
 */
static __diskdump_text int vbd_settle(struct vbd_dev *vbd)
{
	struct vbd_req *req;
	int ret, err;

	ret = vbd_wait_slots(vbd, 0);
	for (req = vbd->reqs; req < vbd->reqs + vbd->nr_slots; req++) {
		if (req->busy) {		/* timed out */
			vbd_lost(vbd, req);
			continue;
		}
		if (!req->failed)
			continue;
		req->failed = false;
		err = ret ? ret : vbd_rewrite(vbd, req);
		if (err) {
			vbd_lost(vbd, req);
			ret = err;
		}
	}
	return ret;
}

/* A page write's request that is free, once failed writes are redone. */
static __diskdump_text struct vbd_req *vbd_free_req(struct vbd_dev *vbd)
{
	unsigned int i;
	int ret;

	ret = vbd_wait_slots(vbd, vbd->nr_slots - 1);
	for (i = 0; i < vbd->nr_slots; i++)
		if (ret || vbd->reqs[i].failed) {
			ret = vbd_settle(vbd);
			break;
		}
	if (ret)
		return NULL;
	for (i = 0; i < vbd->nr_slots; i++)
		if (!vbd->reqs[i].busy)
			return &vbd->reqs[i];
	return NULL;
}

/* Can the device read page @pfn where it is?  Its address if so. */
static __diskdump_text bool
vbd_page_addr(struct vbd_dev *vbd, unsigned long pfn, dma_addr_t *addr)
{
	if (!vbd->dma_dev) {
		*addr = PFN_PHYS(pfn);
		return true;
	}
	*addr = phys_to_dma(vbd->dma_dev, PFN_PHYS(pfn));
	return dma_capable(vbd->dma_dev, *addr, PAGE_SIZE, true);
}

static __diskdump_text int
vbd_write_pages(struct disk_dump_partition *part, unsigned long block_nr,
		const unsigned long *pfns, unsigned int nr_blocks)
{
	struct vbd_dev *vbd = part->dev->priv;
	struct vbd_req *req;
	dma_addr_t addr;
	unsigned int i;
	u64 sector;
	int ret;

	if (!vbd->direct || nr_blocks > vbd->max_blocks)
		return -ERANGE;
	for (i = 0; i < nr_blocks; i++)
		if (!vbd_page_addr(vbd, pfns[i], &addr))
			return -ERANGE;
	if (vbd->broken || vbd->write_failed)
		return -EIO;
	ret = vbd_sector(vbd, part, block_nr, nr_blocks, &sector);
	if (ret)
		return ret;
	req = vbd_free_req(vbd);
	if (!req)
		return -EIO;
	for (i = 0; i < nr_blocks; i++) {
		vbd_page_addr(vbd, pfns[i], &addr);
		vbd_sg_set(&req->data_sg[i], addr, DISKDUMP_BLOCK_SIZE,
			   i == nr_blocks - 1);
	}
	memcpy(req->pfns, pfns, nr_blocks * sizeof(*pfns));
	req->part = part;
	req->block_nr = block_nr;
	req->nr_blocks = nr_blocks;
	req->failed = false;
	ret = vbd_submit(vbd, req, VIRTIO_BLK_T_OUT, sector, nr_blocks);
	if (ret)
		return ret;
	vbd->max_busy = max(vbd->max_busy, ++vbd->busy);
	vbd->writes++;
	vbd->wrote = true;
	return 0;
}

static __diskdump_text int
vbd_drain(struct disk_dump_partition *part, unsigned long *bad_block)
{
	struct vbd_dev *vbd = part->dev->priv;
	int ret;

	ret = vbd_settle(vbd);
	if (!ret && vbd->write_failed)
		ret = -EIO;
	if (vbd->writes)
		pr_emerg("%u writes of pages, up to %u in flight\n",
			 vbd->writes, vbd->max_busy);
	/* bad_block is ULONG_MAX if no write was lost: the core trusts none */
	if (ret)
		*bad_block = vbd->bad_block;
	return ret;
}

/* Is the device running, and our queue on it? */
static __diskdump_text int vbd_sanity_check(struct disk_dump_device *dev)
{
	struct vbd_dev *vbd = dev->priv;
	u8 status;

	if (vbd->broken)
		return -EIO;
	if (!READ_ONCE(vbd->ready)) {
		pr_emerg("%s: no dump queue (the device was suspended)\n",
			 dev_name(&vbd->vdev->dev));
		return -ENODEV;
	}
	smp_rmb();	/* the queue after its readiness, as set on resume */
	if (virtqueue_is_broken(vbd->vq)) {
		pr_emerg("%s: the dump queue is broken\n",
			 dev_name(&vbd->vdev->dev));
		return -EIO;
	}
	status = vbd->vdev->config->get_status(vbd->vdev);
	if (!(status & VIRTIO_CONFIG_S_DRIVER_OK) ||
	    status & (VIRTIO_CONFIG_S_NEEDS_RESET | VIRTIO_CONFIG_S_FAILED)) {
		pr_emerg("%s: device not running (status 0x%x)\n",
			 dev_name(&vbd->vdev->dev), status);
		return -EIO;
	}
	return 0;
}

/*
 * Nothing to stop: the dump queue is ours alone, and requests in flight on
 * the other queues neither block it nor complete into it.  A write that
 * failed for good on another partition is forgotten.
 */
static __diskdump_text int vbd_quiesce(struct disk_dump_device *dev)
{
	struct vbd_dev *vbd = dev->priv;
	unsigned int i;

	for (i = 0; i < vbd->nr_slots; i++)
		vbd->reqs[i].failed = false;
	vbd->write_failed = false;
	vbd->bad_block = ULONG_MAX;
	vbd->max_busy = 0;
	vbd->writes = 0;
	return 0;
}

static __diskdump_text int vbd_shutdown(struct disk_dump_device *dev)
{
	struct vbd_dev *vbd = dev->priv;
	int ret;

	if (!vbd->flush || !vbd->wrote)
		return 0;
	ret = vbd_exec(vbd, VIRTIO_BLK_T_FLUSH, 0, 0);
	if (ret)
		pr_emerg("flush failed (%d)\n", ret);
	else
		vbd->wrote = false;
	return ret;
}

static const struct disk_dump_device_ops vbd_ops = {
	.sanity_check	= vbd_sanity_check,
	.quiesce	= vbd_quiesce,
	.shutdown	= vbd_shutdown,
	.rw_block	= vbd_rw_block,
	.write_pages	= vbd_write_pages,
	.drain		= vbd_drain,
};

/* ------------------------------------------------------------------ */
/* Configuration                                                       */
/* ------------------------------------------------------------------ */

/* A fresh, empty queue: nothing of an earlier one is in flight on it. */
static void vbd_take_vq(struct vbd_dev *vbd, struct virtqueue *vq)
{
	unsigned int i;

	vbd->vq = vq;
	for (i = 0; i < ARRAY_SIZE(vbd->reqs); i++)
		vbd->reqs[i].busy = false;
	vbd->busy = 0;
	vbd->broken = false;
	smp_wmb();	/* the queue before its readiness */
	WRITE_ONCE(vbd->ready, true);
}

/**
 * virtblk_dump_vq_set - the device's dump queue was created or is going
 * @vdev: the device
 * @dump_vq: where virtio_blk.c keeps it
 * @vq: the new dump queue, or NULL when the virtqueues are about to be
 *	deleted (suspend) or none could be set aside
 *
 * virtio_blk.c changes *@dump_vq only through this, so that arming, which
 * reads it under the same mutex, never takes a queue being deleted.  The
 * dump queues of armed disks follow: gone until the device is restored,
 * then the new one.
 */
void virtblk_dump_vq_set(struct virtio_device *vdev,
			 struct virtqueue **dump_vq, struct virtqueue *vq)
{
	struct vbd_dev *vbd;

	mutex_lock(&vbd_mutex);
	WRITE_ONCE(*dump_vq, vq);
	list_for_each_entry(vbd, &vbd_devs, list) {
		if (vbd->vdev != vdev)
			continue;
		if (!vq) {
			WRITE_ONCE(vbd->ready, false);
		} else if (virtqueue_get_vring_size(vq) <
			   vbd->nr_slots * (vbd->max_blocks + 2)) {
			dev_warn(&vdev->dev,
				 "the new dump queue has %u entries, fewer than the %u armed for: crash dumps to this disk are off\n",
				 virtqueue_get_vring_size(vq),
				 vbd->nr_slots * (vbd->max_blocks + 2));
		} else if (virtqueue_dma_dev(vq) != vbd->dma_dev) {
			dev_warn(&vdev->dev,
				 "the new dump queue does DMA through another device: crash dumps to this disk are off\n");
		} else {
			vbd_take_vq(vbd, vq);
			dev_info(&vdev->dev, "dump queue %s set aside again\n",
				 vq->name);
		}
	}
	mutex_unlock(&vbd_mutex);
}

/*
 * A transport whose notification is a register write: PCI or MMIO.  vDPA
 * (VDUSE) kicks through eventfds and workqueues, and its device is a
 * process that does not run while the other CPUs are stopped.
 */
static bool vbd_transport_ok(struct virtio_device *vdev)
{
	struct device *parent = vdev->dev.parent;

	return parent && (dev_is_pci(parent) ||
			  parent->bus == &platform_bus_type);
}

static void *vbd_probe(struct gendisk *disk)
{
	struct virtio_device *vdev = virtblk_dump_vdev(disk);

	if (!vdev)
		return NULL;
	if (!vbd_transport_ok(vdev)) {
		dev_warn(&vdev->dev,
			 "%s: not on PCI or MMIO: its notifications cannot be sent at panic\n",
			 disk->disk_name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!virtblk_dump_vq(vdev)) {
		dev_warn(&vdev->dev,
			 "%s: no virtqueue set aside for dumps: the device offers a single request queue (give it two or more; for QEMU, num-queues=2)\n",
			 disk->disk_name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (blk_queue_is_zoned(disk->queue)) {
		dev_warn(&vdev->dev, "%s: a zoned device cannot take dumps\n",
			 disk->disk_name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	return vdev;
}

/* Memory the device reaches, at *@addr. */
static void *vbd_alloc(struct vbd_dev *vbd, size_t size, dma_addr_t *addr)
{
	void *p;

	if (vbd->dma_dev)
		return dma_alloc_coherent(vbd->dma_dev, size, addr,
					  GFP_KERNEL | __GFP_NOWARN);
	p = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (p)
		*addr = virt_to_phys(p);
	return p;
}

static void vbd_free(struct vbd_dev *vbd, size_t size, void *p,
		     dma_addr_t addr)
{
	if (!p)
		return;
	if (vbd->dma_dev)
		dma_free_coherent(vbd->dma_dev, size, p, addr);
	else
		free_pages_exact(p, size);
}

static void vbd_free_dev(struct vbd_dev *vbd)
{
	vbd_free(vbd, VBD_CTL_SIZE, vbd->ctl, vbd->ctl_dma);
	vbd_free(vbd, vbd->buf_size, vbd->buf, vbd->buf_dma);
	put_device(&vbd->vdev->dev);
	kfree(vbd);
}

/*
 * Blocks a request moves at most: VBD_MAX_BLOCKS, what the device takes
 * in one request (a descriptor a block, plus the header and the status),
 * and page-sized segments at least.
 */
static int vbd_max_blocks(struct virtio_device *vdev, struct virtqueue *vq,
			  unsigned int *max_blocks)
{
	unsigned int ring = virtqueue_get_vring_size(vq);
	u32 seg_max, size_max;

	if (!virtio_cread_feature(vdev, VIRTIO_BLK_F_SIZE_MAX,
				  struct virtio_blk_config, size_max, &size_max) &&
	    size_max && size_max < DISKDUMP_BLOCK_SIZE) {
		dev_warn(&vdev->dev, "segments of %u bytes at most: too small for dumps\n",
			 size_max);
		return -EOPNOTSUPP;
	}
	if (ring < 3)
		return -EOPNOTSUPP;
	*max_blocks = min(VBD_MAX_BLOCKS, ring - 2);
	/* one data segment without SEG_MAX, as virtio_blk.c assumes too */
	if (virtio_cread_feature(vdev, VIRTIO_BLK_F_SEG_MAX,
				 struct virtio_blk_config, seg_max, &seg_max) ||
	    !seg_max)
		seg_max = 1;
	*max_blocks = min(*max_blocks, seg_max);
	return 0;
}

/* The headers and status bytes, and the data buffer, halved until had. */
static int vbd_alloc_buffers(struct vbd_dev *vbd, unsigned int *max_blocks)
{
	BUILD_BUG_ON(sizeof(struct vbd_ctl) * (VBD_SLOTS + 1) > VBD_CTL_SIZE);
	vbd->ctl = vbd_alloc(vbd, VBD_CTL_SIZE, &vbd->ctl_dma);
	if (!vbd->ctl)
		return -ENOMEM;
	for (;;) {
		vbd->buf_size = (size_t)*max_blocks * DISKDUMP_BLOCK_SIZE;
		vbd->buf = vbd_alloc(vbd, vbd->buf_size, &vbd->buf_dma);
		if (vbd->buf || *max_blocks == 1)
			break;
		*max_blocks /= 2;
	}
	return vbd->buf ? 0 : -ENOMEM;
}

/* Set up the dump queue of @vbd, whose queue is @vq; vbd_mutex held. */
static int vbd_setup(struct vbd_dev *vbd, struct virtqueue *vq,
		     unsigned int *max_blocks)
{
	int ret;

	ret = vbd_max_blocks(vbd->vdev, vq, max_blocks);
	if (ret)
		return ret;
	vbd->dma_dev = virtqueue_dma_dev(vq);
	vbd->direct = !vbd->dma_dev || diskdump_dma_direct(vbd->dma_dev);
	vbd->flush = virtio_has_feature(vbd->vdev, VIRTIO_BLK_F_FLUSH);
	vbd->bad_block = ULONG_MAX;
	ret = vbd_alloc_buffers(vbd, max_blocks);
	if (ret)
		return ret;
	vbd->max_blocks = *max_blocks;
	vbd->nr_slots = clamp(virtqueue_get_vring_size(vq) / (*max_blocks + 2),
			      1U, VBD_SLOTS);
	vbd_take_vq(vbd, vq);
	list_add_tail(&vbd->list, &vbd_devs);
	return 0;
}

static int vbd_add_device(struct disk_dump_device *dev)
{
	struct virtio_device *vdev = dev->device;
	unsigned int max_blocks;
	struct virtqueue *vq;
	struct vbd_dev *vbd;
	int ret;

	vbd = kzalloc(sizeof(*vbd), GFP_KERNEL);
	if (!vbd)
		return -ENOMEM;
	get_device(&vdev->dev);
	vbd->vdev = vdev;
	mutex_lock(&vbd_mutex);
	vq = virtblk_dump_vq(vdev);
	ret = vq ? vbd_setup(vbd, vq, &max_blocks) : -ENODEV;
	if (!ret)
		dev_info(&vdev->dev, "dump queue %s, %u entries, %u KiB per request, %s\n",
			 vq->name, virtqueue_get_vring_size(vq),
			 max_blocks * DISKDUMP_BLOCK_SIZE / 1024,
			 vbd->direct ? "pages written where they are" :
			 "pages copied to a mapped buffer");
	mutex_unlock(&vbd_mutex);
	if (ret) {
		vbd_free_dev(vbd);
		return ret;
	}
	dev->ops = &vbd_ops;
	dev->priv = vbd;
	dev->priv_fixed = offsetof(struct vbd_dev, list);
	dev->max_blocks = max_blocks;
	return 0;
}

static void vbd_remove_device(struct disk_dump_device *dev)
{
	struct vbd_dev *vbd = dev->priv;

	mutex_lock(&vbd_mutex);
	list_del(&vbd->list);
	mutex_unlock(&vbd_mutex);
	vbd_free_dev(vbd);
}

static struct disk_dump_type vbd_type = {
	.probe		= vbd_probe,
	.add_device	= vbd_add_device,
	.remove_device	= vbd_remove_device,
	.owner		= THIS_MODULE,
};

int virtblk_dump_init(void)
{
	return register_disk_dump_type(&vbd_type);
}

void virtblk_dump_exit(void)
{
	unregister_disk_dump_type(&vbd_type);
}
