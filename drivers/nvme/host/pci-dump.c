// SPDX-License-Identifier: GPL-2.0
/*
 * pci-dump.c - crash dumps to NVMe namespaces (diskdump)
 *
 * At panic time the block layer and the driver's queues are off limits:
 * their commands may be in flight, their locks held by stopped CPUs.  So a
 * dump writes through a queue pair of its own.  pci.c asks the controller
 * for one I/O queue more than it uses and keeps the last queue identifier
 * free; when the first dump partition on a controller is configured, this
 * file creates that queue pair (no interrupt, physically contiguous), with
 * a data buffer and PRP lists, all allocated in process context.  At
 * panic, commands go into that submission queue and the completion queue
 * is polled; in-flight normal I/O on the other queues does not matter.
 *
 * Where the controller's DMA goes straight to memory (no IOMMU
 * translation, see diskdump_dma_direct()), the dump's pages are written
 * from where they are: their PRP entries point at them, with up to
 * NVME_DUMP_SLOTS writes in flight.  Otherwise, and for reads, flushes and
 * the header, a command moves one data buffer, mapped when armed.
 *
 * A controller reset deletes every queue: pci.c tells us when the
 * controller goes down, and we create the pair again once it is live.
 */

#define pr_fmt(fmt) "nvme_dump: " fmt

#include <linux/blkdev.h>
#include <linux/diskdump.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "nvme.h"
#include "pci-dump.h"

#define NVME_DUMP_DEPTH		16
#define NVME_DUMP_SLOTS		8		/* page writes in flight */
#define NVME_DUMP_MAX_BLOCKS	256U		/* 1 MiB per command */
#define NVME_DUMP_POLL_US	10
#define NVME_DUMP_TIMEOUT_US	(30 * USEC_PER_SEC)

/**
 * struct nvme_dump_slot - a write of pages in flight (write_pages)
 * @pfns: the pages, to write them again from a copy if the write fails
 * @block_nr: the first block written, in the partition
 * @part: the partition
 * @nr_blocks: how many blocks
 * @cid: its command identifier
 * @status: its completion status, if it failed
 * @busy: submitted, not completed
 * @failed: completed with an error, not yet written again
 */
struct nvme_dump_slot {
	unsigned long pfns[NVME_DUMP_MAX_BLOCKS];
	unsigned long block_nr;
	struct disk_dump_partition *part;
	unsigned int nr_blocks;
	u16 cid;
	u16 status;
	bool busy;
	bool failed;
};

/**
 * struct nvme_dump_dev - the dump queue pair of one controller
 * @list: on nvme_dump_devs
 * @ctrl: the controller (a reference is held)
 * @q: where the queue pair lives, from pci.c
 * @sq: submission queue entries
 * @cq: completion queue entries
 * @buf: data buffer of @max_blocks blocks
 * @prps: PRP lists, a page each: the first describes @buf from its second
 *	page on, the others are the slots'
 * @slots: the writes of pages in flight
 * @sq_dma: bus address of @sq
 * @cq_dma: bus address of @cq
 * @buf_dma: bus address of @buf
 * @prps_dma: bus address of @prps
 * @buf_size: bytes in @buf
 * @prps_size: bytes in @prps: a page, or one more for each slot if @direct
 * @depth: entries in each queue
 * @nr_slots: writes of pages in flight at most (fewer than @depth)
 * @busy: slots in flight
 * @max_busy: the most slots in flight at once during this dump
 * @writes: writes of pages started during this dump
 * @sq_tail: next submission queue slot
 * @cq_head: next completion queue slot
 * @cq_phase: phase tag of a new completion at @cq_head
 * @cid: command identifier of the last command
 * @nsid: namespace of the last write, flushed by shutdown
 * @bad_block: first block of a write that failed for good
 * @direct: the controller reads RAM pages at their bus address
 * @ready: the queue pair exists on the controller
 * @disables: times the controller was disabled since armed (under
 *	nvme_dump_lock): a queue pair created across one is gone again
 * @broken: a command timed out; the controller may still own it
 * @write_failed: a write failed for good; @bad_block says where
 */
struct nvme_dump_dev {
	/* set when armed, for good: dev->priv_fixed, checksummed */
	struct nvme_ctrl *ctrl;
	struct nvme_command *sq;
	struct nvme_completion *cq;
	void *buf;
	__le64 *prps;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;
	dma_addr_t buf_dma;
	dma_addr_t prps_dma;
	size_t buf_size;
	size_t prps_size;
	u16 depth;
	u16 nr_slots;
	bool direct;
	/* changed by other disks' arming, by a controller reset, at panic */
	struct list_head list;
	struct nvme_dump_queue q;
	struct nvme_dump_slot slots[NVME_DUMP_SLOTS];
	u16 busy;
	u16 max_busy;
	unsigned int writes;
	u16 sq_tail;
	u16 cq_head;
	u16 cq_phase;
	u16 cid;
	u32 nsid;
	unsigned long bad_block;
	unsigned int disables;
	bool ready;
	bool broken;
	bool write_failed;
};

#define NVME_DUMP_PRPS_SIZE	((NVME_DUMP_SLOTS + 1) * PAGE_SIZE)

/* The controllers with a dump queue pair; the mutex also serialises setup. */
static LIST_HEAD(nvme_dump_devs);
static DEFINE_MUTEX(nvme_dump_mutex);
static DEFINE_SPINLOCK(nvme_dump_lock);

/* ------------------------------------------------------------------ */
/* Panic time                                                          */
/* ------------------------------------------------------------------ */

/* Write a doorbell, and its shadow first if the controller reads shadows. */
static __diskdump_text void
nvme_dump_ring(__le32 *shadow, u32 __iomem *db, u16 value)
{
	if (shadow) {
		WRITE_ONCE(*shadow, cpu_to_le32(value));
		mb();	/* the shadow before the doorbell write */
	}
	writel(value, db);
}

/* Take the next completion, or return false if there is none yet. */
static __diskdump_text bool
nvme_dump_reap(struct nvme_dump_dev *ndd, u16 *cid, u16 *status)
{
	struct nvme_completion *cqe = &ndd->cq[ndd->cq_head];
	u16 st = le16_to_cpu(READ_ONCE(cqe->status));

	if ((st & 1) != ndd->cq_phase)
		return false;
	dma_rmb();	/* the entry after its phase tag */
	*cid = READ_ONCE(cqe->command_id);
	*status = st >> 1;
	if (++ndd->cq_head == ndd->depth) {
		ndd->cq_head = 0;
		ndd->cq_phase ^= 1;
	}
	nvme_dump_ring(ndd->q.shadow_cq, ndd->q.cq_db, ndd->cq_head);
	return true;
}

/* Put @cmd in the submission queue, under a new command identifier. */
static __diskdump_text u16
nvme_dump_submit(struct nvme_dump_dev *ndd, struct nvme_command *cmd)
{
	if (!++ndd->cid)
		ndd->cid = 1;	/* 0 is no command */
	cmd->common.command_id = ndd->cid;
	memcpy(&ndd->sq[ndd->sq_tail], cmd, sizeof(*cmd));
	if (++ndd->sq_tail == ndd->depth)
		ndd->sq_tail = 0;
	wmb();	/* the entry before the doorbell */
	nvme_dump_ring(ndd->q.shadow_sq, ndd->q.sq_db, ndd->sq_tail);
	return ndd->cid;
}

/* The slot of a write of pages in flight with command identifier @cid. */
static __diskdump_text struct nvme_dump_slot *
nvme_dump_slot_of(struct nvme_dump_dev *ndd, u16 cid)
{
	unsigned int i;

	for (i = 0; i < ndd->nr_slots; i++)
		if (ndd->slots[i].busy && ndd->slots[i].cid == cid)
			return &ndd->slots[i];
	return NULL;
}

/*
 * Take the completions there are: a write of pages frees its slot, marked
 * failed if it did.  Returns true if command @want (0: none) completed,
 * with its status in *@want_status.
 */
static __diskdump_text bool
nvme_dump_poll(struct nvme_dump_dev *ndd, u16 want, u16 *want_status)
{
	struct nvme_dump_slot *slot;
	bool found = false;
	u16 cid, status;

	while (nvme_dump_reap(ndd, &cid, &status)) {
		if (want && cid == want) {
			*want_status = status;
			found = true;
			continue;
		}
		slot = nvme_dump_slot_of(ndd, cid);
		if (!slot)
			continue;	/* of an earlier, timed out try */
		slot->busy = false;
		slot->failed = status != 0;
		slot->status = status;
		ndd->busy--;
	}
	return found;
}

/* Wait, with a bound, until at most @max_busy writes of pages are in flight. */
static __diskdump_text int
nvme_dump_wait_slots(struct nvme_dump_dev *ndd, unsigned int max_busy)
{
	unsigned long waited;

	for (waited = 0; waited < NVME_DUMP_TIMEOUT_US;
	     waited += NVME_DUMP_POLL_US) {
		nvme_dump_poll(ndd, 0, NULL);
		if (ndd->busy <= max_busy)
			return 0;
		if (ndd->broken)
			return -EIO;
		diskdump_udelay(NVME_DUMP_POLL_US);
	}
	ndd->broken = true;
	pr_emerg("a write of pages timed out\n");
	return -ETIMEDOUT;
}

/* Submit @cmd and poll for its completion, with a bound. */
static __diskdump_text int
nvme_dump_exec(struct nvme_dump_dev *ndd, struct nvme_command *cmd)
{
	unsigned long waited;
	u16 cid, status;
	int ret;

	if (ndd->broken)
		return -EIO;
	ret = nvme_dump_wait_slots(ndd, 0);
	if (ret)
		return ret;
	cid = nvme_dump_submit(ndd, cmd);
	for (waited = 0; waited < NVME_DUMP_TIMEOUT_US;
	     waited += NVME_DUMP_POLL_US) {
		if (nvme_dump_poll(ndd, cid, &status)) {
			if (!status)
				return 0;
			pr_emerg("command 0x%02x failed: status 0x%x\n",
				 cmd->common.opcode, status);
			return -EIO;
		}
		diskdump_udelay(NVME_DUMP_POLL_US);
	}
	ndd->broken = true;
	pr_emerg("command 0x%02x timed out\n", cmd->common.opcode);
	return -ETIMEDOUT;
}

/*
 * Metadata: a namespace whose metadata is exactly the protection
 * information (PI) tuple is written without a metadata buffer, the
 * controller inserting the PI on writes and checking and stripping it on
 * reads (PRACT), as nvme_setup_rw() does when the block layer sends no
 * integrity payload.  Any other metadata would be moved to and from
 * whatever the metadata pointer (zero) addresses: such a namespace is not
 * a dump device.
 */
static __always_inline bool nvme_dump_format_ok(struct nvme_ns_head *head)
{
	return !head->ms || (head->pi_type && head->ms == head->pi_size);
}

/*
 * A logical block of 512 bytes to a page, so that a dump block is a whole
 * number of them (a larger one would make a one-block transfer's NLB
 * underflow to 65536 blocks).
 */
static __always_inline bool nvme_dump_lba_ok(struct nvme_ns_head *head)
{
	return head->lba_shift >= SECTOR_SHIFT && head->lba_shift <= PAGE_SHIFT;
}

/* PRACT, the checks and the reference tag for a read or write at @lba. */
static __always_inline void
nvme_dump_set_pi(struct nvme_ns_head *head, struct nvme_command *c, u64 lba)
{
	u16 control = NVME_RW_PRINFO_PRACT | NVME_RW_PRINFO_PRCHK_GUARD;

	if (!head->ms)
		return;
	/* Types 1 and 2 tag each block with its LBA (48 bits, 64-bit guard) */
	if (head->pi_type == NVME_NS_DPS_PI_TYPE1 ||
	    head->pi_type == NVME_NS_DPS_PI_TYPE2) {
		control |= NVME_RW_PRINFO_PRCHK_REF;
		c->rw.reftag = cpu_to_le32(lower_32_bits(lba));
		if (head->guard_type == NVME_NVM_NS_64B_GUARD)
			c->rw.cdw3 = cpu_to_le32(upper_32_bits(lba) & 0xffff);
	}
	c->rw.control = cpu_to_le16(control);
}

/* The namespace of a partition: the disk's driver data. */
static __diskdump_text struct nvme_ns *
nvme_dump_ns(struct disk_dump_partition *part)
{
	return file_bdev(part->bdev_file)->bd_disk->private_data;
}

/*
 * Check a transfer of @nr_blocks blocks at block @block_nr of @part and
 * start the read or write command for it in @c, all but its data pointer.
 */
static __diskdump_text int
nvme_dump_setup_rw(struct disk_dump_partition *part, struct nvme_command *c,
		   int rw, unsigned long block_nr, unsigned int nr_blocks)
{
	struct nvme_dump_dev *ndd = part->dev->priv;
	struct nvme_ns *ns = nvme_dump_ns(part);
	unsigned int lba_shift = ns->head->lba_shift;
	size_t bytes = (size_t)nr_blocks * DISKDUMP_BLOCK_SIZE;
	u64 off = ((u64)part->start_sect << SECTOR_SHIFT) +
		  (u64)block_nr * DISKDUMP_BLOCK_SIZE;

	if (!nvme_dump_lba_ok(ns->head)) {
		pr_emerg("namespace %u has logical blocks of 2^%u bytes since it was armed\n",
			 ns->head->ns_id, lba_shift);
		return -EINVAL;
	}
	if (!nr_blocks || bytes > ndd->buf_size ||
	    off & ((1ULL << lba_shift) - 1) ||
	    block_nr + nr_blocks > part->nr_sects >> (PAGE_SHIFT - SECTOR_SHIFT))
		return -EINVAL;
	if (!nvme_dump_format_ok(ns->head)) {
		pr_emerg("namespace %u was formatted with metadata since it was armed\n",
			 ns->head->ns_id);
		return -EINVAL;
	}
	memset(c, 0, sizeof(*c));
	c->rw.opcode = rw ? nvme_cmd_write : nvme_cmd_read;
	c->rw.nsid = cpu_to_le32(ns->head->ns_id);
	c->rw.slba = cpu_to_le64(off >> lba_shift);
	c->rw.length = cpu_to_le16((bytes >> lba_shift) - 1);
	nvme_dump_set_pi(ns->head, c, off >> lba_shift);
	if (rw)
		ndd->nsid = ns->head->ns_id;
	return 0;
}

/*
 * The data pointer of a transfer of @nr pages: the first at @first, the
 * others at the bus addresses in the PRP list @list (at @list_dma), whose
 * entries the caller has filled in.
 */
static __diskdump_text void
nvme_dump_set_prps(struct nvme_command *c, dma_addr_t first, __le64 *list,
		   dma_addr_t list_dma, unsigned int nr)
{
	c->rw.dptr.prp1 = cpu_to_le64(first);
	if (nr == 2)
		c->rw.dptr.prp2 = list[0];
	else if (nr > 2)
		c->rw.dptr.prp2 = cpu_to_le64(list_dma);
}

/* Move @nr_blocks blocks through the data buffer, already filled for a write. */
static __diskdump_text int
nvme_dump_rw_buf(struct disk_dump_partition *part, int rw,
		 unsigned long block_nr, unsigned int nr_blocks)
{
	struct nvme_dump_dev *ndd = part->dev->priv;
	struct nvme_command c;
	int ret;

	ret = nvme_dump_setup_rw(part, &c, rw, block_nr, nr_blocks);
	if (ret)
		return ret;
	nvme_dump_set_prps(&c, ndd->buf_dma, ndd->prps, ndd->prps_dma,
			   nr_blocks);
	return nvme_dump_exec(ndd, &c);
}

static __diskdump_text int
nvme_dump_rw_block(struct disk_dump_partition *part, int rw,
		   unsigned long block_nr, void *buf,
		   unsigned int nr_blocks)
{
	struct nvme_dump_dev *ndd = part->dev->priv;
	size_t bytes = (size_t)nr_blocks * DISKDUMP_BLOCK_SIZE;
	int ret;

	if (bytes > ndd->buf_size)
		return -EINVAL;
	if (rw)
		memcpy(ndd->buf, buf, bytes);
	ret = nvme_dump_rw_buf(part, rw, block_nr, nr_blocks);
	if (!ret && !rw)
		memcpy(buf, ndd->buf, bytes);
	return ret;
}

/*
 * Write the pages of a failed write of pages again, from copies in the data
 * buffer.  A device may fail to read a page whose poison nobody had seen:
 * the machine-check safe copy then costs that page, not the dump.
 */
static __diskdump_text int
nvme_dump_rewrite(struct nvme_dump_dev *ndd, struct nvme_dump_slot *slot)
{
	pr_emerg("write of blocks %lu-%lu failed (status 0x%x): writing them again from a copy\n",
		 slot->block_nr, slot->block_nr + slot->nr_blocks - 1,
		 slot->status);
	diskdump_copy_pages(ndd->buf, slot->pfns, slot->nr_blocks);
	return nvme_dump_rw_buf(slot->part, 1, slot->block_nr, slot->nr_blocks);
}

/* Note that the write in @slot may not have reached the disk. */
static __diskdump_text void
nvme_dump_lost(struct nvme_dump_dev *ndd, struct nvme_dump_slot *slot)
{
	ndd->write_failed = true;
	ndd->bad_block = min(ndd->bad_block, slot->block_nr);
}

/*
 * Wait for every write of pages, and write each failed one again.  Any
 * write that still fails, or was in flight when the wait timed out, counts
 * in bad_block.
 */
static __diskdump_text int nvme_dump_settle(struct nvme_dump_dev *ndd)
{
	struct nvme_dump_slot *slot;
	int ret, err;

	ret = nvme_dump_wait_slots(ndd, 0);
	for (slot = ndd->slots; slot < ndd->slots + ndd->nr_slots; slot++) {
		if (slot->busy) {		/* timed out */
			nvme_dump_lost(ndd, slot);
			continue;
		}
		if (!slot->failed)
			continue;
		slot->failed = false;
		err = ret ? ret : nvme_dump_rewrite(ndd, slot);
		if (err) {
			nvme_dump_lost(ndd, slot);
			ret = err;
		}
	}
	return ret;
}

/* Can the controller read page @pfn where it is?  Its bus address if so. */
static __diskdump_text bool
nvme_dump_page_dma(struct nvme_dump_dev *ndd, unsigned long pfn,
		   dma_addr_t *addr)
{
	*addr = phys_to_dma(ndd->q.dma_dev, PFN_PHYS(pfn));
	return dma_capable(ndd->q.dma_dev, *addr, PAGE_SIZE, true);
}

static __diskdump_text int
nvme_dump_write_pages(struct disk_dump_partition *part, unsigned long block_nr,
		      const unsigned long *pfns, unsigned int nr_blocks)
{
	struct nvme_dump_dev *ndd = part->dev->priv;
	struct nvme_dump_slot *slot = NULL;
	dma_addr_t first, addr;
	struct nvme_command c;
	unsigned int i;
	__le64 *list;
	int ret;

	if (!ndd->direct || nr_blocks > ARRAY_SIZE(slot->pfns))
		return -ERANGE;
	for (i = 0; i < nr_blocks; i++)
		if (!nvme_dump_page_dma(ndd, pfns[i], &addr))
			return -ERANGE;
	if (ndd->broken || ndd->write_failed)
		return -EIO;
	ret = nvme_dump_setup_rw(part, &c, 1, block_nr, nr_blocks);
	if (ret)
		return ret;
	/* A free slot; failed writes are written again first. */
	ret = nvme_dump_wait_slots(ndd, ndd->nr_slots - 1);
	for (i = 0; i < ndd->nr_slots; i++)
		if (ret || ndd->slots[i].failed) {
			ret = nvme_dump_settle(ndd);
			break;
		}
	if (ret)
		return ret;
	for (i = 0; i < ndd->nr_slots; i++)
		if (!ndd->slots[i].busy) {
			slot = &ndd->slots[i];
			break;
		}
	if (WARN_ON_ONCE(!slot))
		return -EIO;

	list = ndd->prps + (slot - ndd->slots + 1) * (PAGE_SIZE / sizeof(*list));
	nvme_dump_page_dma(ndd, pfns[0], &first);
	for (i = 1; i < nr_blocks; i++) {
		nvme_dump_page_dma(ndd, pfns[i], &addr);
		list[i - 1] = cpu_to_le64(addr);
	}
	nvme_dump_set_prps(&c, first, list, ndd->prps_dma +
			   (slot - ndd->slots + 1) * PAGE_SIZE, nr_blocks);
	memcpy(slot->pfns, pfns, nr_blocks * sizeof(*pfns));
	slot->part = part;
	slot->block_nr = block_nr;
	slot->nr_blocks = nr_blocks;
	slot->failed = false;
	slot->busy = true;
	ndd->max_busy = max(ndd->max_busy, ++ndd->busy);
	ndd->writes++;
	/* its wmb() orders the PRP list before the doorbell, too */
	slot->cid = nvme_dump_submit(ndd, &c);
	return 0;
}

static __diskdump_text int
nvme_dump_drain(struct disk_dump_partition *part, unsigned long *bad_block)
{
	struct nvme_dump_dev *ndd = part->dev->priv;
	int ret;

	ret = nvme_dump_settle(ndd);
	if (!ret && ndd->write_failed)
		ret = -EIO;
	/* bad_block is ULONG_MAX if no write was lost: the core trusts none */
	if (ndd->writes)
		pr_emerg("%u writes of pages, up to %u in flight\n",
			 ndd->writes, ndd->max_busy);
	if (ret)
		*bad_block = ndd->bad_block;
	return ret;
}

/* Is the controller running, and our queue pair on it? */
static __diskdump_text int nvme_dump_sanity_check(struct disk_dump_device *dev)
{
	struct nvme_dump_dev *ndd = dev->priv;
	u32 csts;

	if (ndd->broken)
		return -EIO;
	if (!READ_ONCE(ndd->ready)) {
		pr_emerg("%s: no dump queue (controller reset or removed)\n",
			 dev_name(ndd->ctrl->device));
		return -ENODEV;
	}
	/* our doorbells would now be one of the block layer's queues */
	if (READ_ONCE(*ndd->q.cur_qid) != ndd->q.qid) {
		pr_emerg("%s: dump queue %u is no longer the one set aside (%u)\n",
			 dev_name(ndd->ctrl->device), ndd->q.qid,
			 READ_ONCE(*ndd->q.cur_qid));
		return -ENODEV;
	}
	if (nvme_ctrl_state(ndd->ctrl) != NVME_CTRL_LIVE) {
		pr_emerg("%s: controller is not live\n",
			 dev_name(ndd->ctrl->device));
		return -EBUSY;
	}
	csts = readl(ndd->q.bar + NVME_REG_CSTS);
	if (csts == ~0U || csts & NVME_CSTS_CFS || !(csts & NVME_CSTS_RDY)) {
		pr_emerg("%s: controller failed (CSTS 0x%x)\n",
			 dev_name(ndd->ctrl->device), csts);
		return -EIO;
	}
	return 0;
}

/*
 * Nothing to stop: the dump queue pair is ours alone, and commands in
 * flight on the other queues neither block it nor complete into it.  A
 * write that failed for good on another partition is forgotten.
 */
static __diskdump_text int nvme_dump_quiesce(struct disk_dump_device *dev)
{
	struct nvme_dump_dev *ndd = dev->priv;
	unsigned int i;

	for (i = 0; i < ndd->nr_slots; i++)
		ndd->slots[i].failed = false;
	ndd->write_failed = false;
	ndd->bad_block = ULONG_MAX;
	ndd->max_busy = 0;
	ndd->writes = 0;
	return 0;
}

static __diskdump_text int nvme_dump_shutdown(struct disk_dump_device *dev)
{
	struct nvme_dump_dev *ndd = dev->priv;
	struct nvme_command c = { };
	int ret;

	if (!ndd->nsid)
		return 0;
	c.common.opcode = nvme_cmd_flush;
	c.common.nsid = cpu_to_le32(ndd->nsid);
	ret = nvme_dump_exec(ndd, &c);
	if (ret)
		pr_emerg("flush failed (%d)\n", ret);
	return ret;
}

static const struct disk_dump_device_ops nvme_dump_ops = {
	.sanity_check	= nvme_dump_sanity_check,
	.quiesce	= nvme_dump_quiesce,
	.shutdown	= nvme_dump_shutdown,
	.rw_block	= nvme_dump_rw_block,
	.write_pages	= nvme_dump_write_pages,
	.drain		= nvme_dump_drain,
};

/* ------------------------------------------------------------------ */
/* Configuration                                                       */
/* ------------------------------------------------------------------ */

static int nvme_dump_admin(struct nvme_ctrl *ctrl, struct nvme_command *c)
{
	int ret = nvme_submit_sync_cmd(ctrl->admin_q, c, NULL, 0);

	return ret > 0 ? -EIO : ret;
}

/* Delete one of our queues: @opcode is nvme_admin_delete_sq or _cq. */
static int nvme_dump_delete_queue(struct nvme_dump_dev *ndd, u8 opcode)
{
	struct nvme_command c = { };

	c.delete_queue.opcode = opcode;
	c.delete_queue.qid = cpu_to_le16(ndd->q.qid);
	return nvme_dump_admin(ndd->ctrl, &c);
}

/* Has the controller been disabled since @disables was read? */
static bool nvme_dump_disabled_since(struct nvme_dump_dev *ndd,
				     unsigned int disables)
{
	bool ret;

	spin_lock(&nvme_dump_lock);
	ret = ndd->disables != disables;
	spin_unlock(&nvme_dump_lock);
	return ret;
}

/*
 * Create the queue pair on the controller; nvme_dump_mutex held, @ndd on
 * nvme_dump_devs.  -EAGAIN if a reset is under way or the controller was
 * disabled meanwhile, which deleted the queues again (and failed the
 * commands it cut short, which must not be answered with more): the
 * queues are created once the controller is live again
 * (nvme_dump_ctrl_live()).
 */
static int nvme_dump_create_queues(struct nvme_dump_dev *ndd)
{
	enum nvme_ctrl_state state;
	struct nvme_command c = { };
	unsigned int disables;
	int ret;

	spin_lock(&nvme_dump_lock);
	disables = ndd->disables;
	state = nvme_ctrl_state(ndd->ctrl);
	spin_unlock(&nvme_dump_lock);
	if (state == NVME_CTRL_RESETTING || state == NVME_CTRL_CONNECTING)
		return -EAGAIN;
	if (state != NVME_CTRL_LIVE)
		return -EBUSY;
	ret = nvme_pci_dump_queue(ndd->ctrl, &ndd->q);
	if (ret)
		return ret;
	memset(ndd->cq, 0, ndd->depth * sizeof(*ndd->cq));
	ndd->sq_tail = 0;
	ndd->cq_head = 0;
	ndd->cq_phase = 1;
	ndd->broken = false;

	c.create_cq.opcode = nvme_admin_create_cq;
	c.create_cq.prp1 = cpu_to_le64(ndd->cq_dma);
	c.create_cq.cqid = cpu_to_le16(ndd->q.qid);
	c.create_cq.qsize = cpu_to_le16(ndd->depth - 1);
	c.create_cq.cq_flags = cpu_to_le16(NVME_QUEUE_PHYS_CONTIG);
	ret = nvme_dump_admin(ndd->ctrl, &c);
	if (nvme_dump_disabled_since(ndd, disables))
		return -EAGAIN;
	if (ret)
		return ret;

	memset(&c, 0, sizeof(c));
	c.create_sq.opcode = nvme_admin_create_sq;
	c.create_sq.prp1 = cpu_to_le64(ndd->sq_dma);
	c.create_sq.sqid = cpu_to_le16(ndd->q.qid);
	c.create_sq.qsize = cpu_to_le16(ndd->depth - 1);
	c.create_sq.sq_flags = cpu_to_le16(NVME_QUEUE_PHYS_CONTIG |
					   NVME_SQ_PRIO_MEDIUM);
	c.create_sq.cqid = cpu_to_le16(ndd->q.qid);
	ret = nvme_dump_admin(ndd->ctrl, &c);
	if (nvme_dump_disabled_since(ndd, disables))
		return -EAGAIN;
	if (ret) {
		nvme_dump_delete_queue(ndd, nvme_admin_delete_cq);
		return ret;
	}
	diskdump_test_slow_queue();
	/* ready only if no disable came between: it would have deleted them */
	spin_lock(&nvme_dump_lock);
	if (ndd->disables == disables)
		WRITE_ONCE(ndd->ready, true);
	else
		ret = -EAGAIN;
	spin_unlock(&nvme_dump_lock);
	return ret;
}

/* Delete the queue pair if the controller still has it; mutex held. */
static void nvme_dump_delete_queues(struct nvme_dump_dev *ndd)
{
	int ret;

	if (!READ_ONCE(ndd->ready))
		return;
	WRITE_ONCE(ndd->ready, false);
	ret = nvme_dump_delete_queue(ndd, nvme_admin_delete_sq);
	if (!ret)
		ret = nvme_dump_delete_queue(ndd, nvme_admin_delete_cq);
	if (ret)
		dev_warn(ndd->ctrl->device, "dump queue %u not deleted (%d)\n",
			 ndd->q.qid, ret);
	else
		dev_info(ndd->ctrl->device, "dump queue %u deleted\n",
			 ndd->q.qid);
}

/**
 * nvme_dump_ctrl_disabled - the controller is going down
 * @ctrl: the controller
 *
 * Called by pci.c when it disables the controller, which deletes every
 * queue.  Takes no sleeping lock: the caller may be the timeout handler of
 * an admin command that nvme_dump_mutex's holder waits for.
 */
void nvme_dump_ctrl_disabled(struct nvme_ctrl *ctrl)
{
	struct nvme_dump_dev *ndd;

	spin_lock(&nvme_dump_lock);
	list_for_each_entry(ndd, &nvme_dump_devs, list) {
		if (ndd->ctrl != ctrl)
			continue;
		WRITE_ONCE(ndd->ready, false);
		ndd->disables++;
	}
	spin_unlock(&nvme_dump_lock);
}

/*
 * Create the dump queue pairs that a reset deleted, of every controller
 * that is live again.  A work of its own: the reset work that calls
 * nvme_dump_ctrl_live() must not wait for admin commands of ours, nor for
 * nvme_dump_mutex, while a disable by a timeout may have left the admin
 * queue quiesced until the next reset work runs.
 */
static void nvme_dump_live_work(struct work_struct *work)
{
	struct nvme_dump_dev *ndd;
	int ret;

	mutex_lock(&nvme_dump_mutex);
	list_for_each_entry(ndd, &nvme_dump_devs, list) {
		if (READ_ONCE(ndd->ready))
			continue;
		ret = nvme_dump_create_queues(ndd);
		if (ret == -EAGAIN || ret == -EBUSY)
			continue;	/* a reset follows, or the controller goes */
		if (ret)
			dev_warn(ndd->ctrl->device,
				 "dump queue not restored after reset (%d): crash dumps to this controller are off until the next reset\n",
				 ret);
		else
			dev_info(ndd->ctrl->device,
				 "dump queue %u created again after a reset\n",
				 ndd->q.qid);
	}
	mutex_unlock(&nvme_dump_mutex);
}

static DECLARE_WORK(nvme_dump_live, nvme_dump_live_work);

/**
 * nvme_dump_ctrl_live - the controller is back after a reset
 * @ctrl: the controller
 *
 * Called from the reset work: the dump queue pair is created again in a
 * work of its own.
 */
void nvme_dump_ctrl_live(struct nvme_ctrl *ctrl)
{
	schedule_work(&nvme_dump_live);
}

static void *nvme_dump_probe(struct gendisk *disk)
{
	struct nvme_ns *ns;

	/* A namespace of ours; not a multipath head, which has no queues. */
	if (disk->fops != &nvme_bdev_ops)
		return NULL;
	ns = disk->private_data;
	if (!nvme_dump_lba_ok(ns->head)) {
		dev_warn(ns->ctrl->device,
			 "%s: logical blocks of 2^%u bytes, not 512 bytes to a page: cannot dump to it\n",
			 disk->disk_name, ns->head->lba_shift);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!nvme_dump_format_ok(ns->head)) {
		dev_warn(ns->ctrl->device,
			 "%s: %u bytes of metadata per block that are not protection information alone: cannot dump to it\n",
			 disk->disk_name, ns->head->ms);
		return ERR_PTR(-EOPNOTSUPP);
	}
	return ns->ctrl;
}

static void nvme_dump_free(struct nvme_dump_dev *ndd)
{
	struct device *dma = ndd->q.dma_dev;

	if (ndd->buf)
		dma_free_coherent(dma, ndd->buf_size, ndd->buf, ndd->buf_dma);
	if (ndd->prps)
		dma_free_coherent(dma, ndd->prps_size, ndd->prps,
				  ndd->prps_dma);
	if (ndd->sq)
		dma_free_coherent(dma, PAGE_SIZE, ndd->sq, ndd->sq_dma);
	if (ndd->cq)
		dma_free_coherent(dma, PAGE_SIZE, ndd->cq, ndd->cq_dma);
	nvme_put_ctrl(ndd->ctrl);
	kfree(ndd);
}

/* The queues and the data buffer, halved until it can be had. */
static int nvme_dump_alloc(struct nvme_dump_dev *ndd, unsigned int *max_blocks)
{
	struct device *dma = ndd->q.dma_dev;
	unsigned int i;

	ndd->sq = dma_alloc_coherent(dma, PAGE_SIZE, &ndd->sq_dma, GFP_KERNEL);
	ndd->cq = dma_alloc_coherent(dma, PAGE_SIZE, &ndd->cq_dma, GFP_KERNEL);
	/* The slots' PRP lists only where pages are written where they are */
	ndd->prps_size = ndd->direct ? NVME_DUMP_PRPS_SIZE : PAGE_SIZE;
	ndd->prps = dma_alloc_coherent(dma, ndd->prps_size, &ndd->prps_dma,
				       GFP_KERNEL | __GFP_NOWARN);
	if (!ndd->prps && ndd->direct) {
		ndd->direct = false;
		ndd->prps_size = PAGE_SIZE;
		ndd->prps = dma_alloc_coherent(dma, ndd->prps_size,
					       &ndd->prps_dma, GFP_KERNEL);
	}
	if (!ndd->sq || !ndd->cq || !ndd->prps)
		return -ENOMEM;
	for (;;) {
		ndd->buf_size = (size_t)*max_blocks * DISKDUMP_BLOCK_SIZE;
		ndd->buf = dma_alloc_coherent(dma, ndd->buf_size, &ndd->buf_dma,
					      GFP_KERNEL | __GFP_NOWARN);
		if (ndd->buf || *max_blocks == 1)
			break;
		*max_blocks /= 2;
	}
	if (!ndd->buf)
		return -ENOMEM;
	for (i = 1; i < *max_blocks; i++)
		ndd->prps[i - 1] = cpu_to_le64(ndd->buf_dma + i * PAGE_SIZE);
	return 0;
}

static int nvme_dump_add_device(struct disk_dump_device *dev)
{
	struct nvme_ctrl *ctrl = dev->device;
	struct nvme_dump_dev *ndd;
	unsigned int max_blocks;
	int ret;

	if (nvme_ctrl_state(ctrl) != NVME_CTRL_LIVE)
		return -EBUSY;
	ndd = kzalloc(sizeof(*ndd), GFP_KERNEL);
	if (!ndd)
		return -ENOMEM;
	nvme_get_ctrl(ctrl);
	ndd->ctrl = ctrl;
	ret = nvme_pci_dump_queue(ctrl, &ndd->q);
	if (ret) {
		nvme_put_ctrl(ctrl);
		kfree(ndd);
		return ret;
	}
	ndd->depth = min_t(u32, NVME_DUMP_DEPTH, NVME_CAP_MQES(ctrl->cap) + 1);
	ndd->nr_slots = min_t(u16, NVME_DUMP_SLOTS, ndd->depth - 1);
	ndd->bad_block = ULONG_MAX;
	ndd->direct = diskdump_dma_direct(ndd->q.dma_dev);
	/* The controller's transfer limit (MDTS), and one PRP list page. */
	max_blocks = min3(NVME_DUMP_MAX_BLOCKS,
			  (ctrl->max_hw_sectors << SECTOR_SHIFT) / DISKDUMP_BLOCK_SIZE,
			  PAGE_SIZE / sizeof(__le64) + 1);
	max_blocks = max(max_blocks, 1U);
	ret = nvme_dump_alloc(ndd, &max_blocks);
	if (ret)
		goto out_free;

	/*
	 * On the list before the queues exist, so that a reset that disables
	 * the controller meanwhile is seen (nvme_dump_ctrl_disabled()), and
	 * the queues are created again when it is live (nvme_dump_ctrl_live()).
	 */
	mutex_lock(&nvme_dump_mutex);
	spin_lock(&nvme_dump_lock);
	list_add_tail(&ndd->list, &nvme_dump_devs);
	spin_unlock(&nvme_dump_lock);
	ret = nvme_dump_create_queues(ndd);
	if (ret == -EAGAIN) {
		dev_info(ctrl->device,
			 "controller reset while dump queue %u was created: it is created again once the controller is back\n",
			 ndd->q.qid);
		ret = 0;
	} else if (!ret) {
		dev_info(ctrl->device,
			 "dump queue %u, %u entries, %u KiB per command, %s\n",
			 ndd->q.qid, ndd->depth,
			 max_blocks * DISKDUMP_BLOCK_SIZE / 1024,
			 ndd->direct ? "pages written where they are" :
			 "pages copied to a mapped buffer");
	} else {
		spin_lock(&nvme_dump_lock);
		list_del(&ndd->list);
		spin_unlock(&nvme_dump_lock);
	}
	mutex_unlock(&nvme_dump_mutex);
	if (ret) {
		dev_warn(ctrl->device, "cannot create the dump queue (%d)\n",
			 ret);
		goto out_free;
	}
	dev->ops = &nvme_dump_ops;
	dev->priv = ndd;
	dev->priv_fixed = offsetof(struct nvme_dump_dev, list);
	dev->max_blocks = max_blocks;
	return 0;

out_free:
	nvme_dump_free(ndd);
	return ret;
}

static void nvme_dump_remove_device(struct disk_dump_device *dev)
{
	struct nvme_dump_dev *ndd = dev->priv;

	mutex_lock(&nvme_dump_mutex);
	spin_lock(&nvme_dump_lock);
	list_del(&ndd->list);
	spin_unlock(&nvme_dump_lock);
	/*
	 * Also when the controller is being removed (DELETING*: its namespaces
	 * go first, and the admin queue still works), so that the queue pair
	 * is normally gone before its memory is freed.  Once the controller is
	 * being disabled (not ready) it is left to that: no dump command is
	 * outstanding, and disabling the controller deletes every queue.
	 */
	if (nvme_ctrl_state(ndd->ctrl) != NVME_CTRL_DEAD)
		nvme_dump_delete_queues(ndd);
	mutex_unlock(&nvme_dump_mutex);
	nvme_dump_free(ndd);
}

static struct disk_dump_type nvme_dump_type = {
	.probe		= nvme_dump_probe,
	.add_device	= nvme_dump_add_device,
	.remove_device	= nvme_dump_remove_device,
	.owner		= THIS_MODULE,
};

int nvme_dump_init(void)
{
	return register_disk_dump_type(&nvme_dump_type);
}

void nvme_dump_exit(void)
{
	unregister_disk_dump_type(&nvme_dump_type);
	cancel_work_sync(&nvme_dump_live);
}
