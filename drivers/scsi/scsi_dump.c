// SPDX-License-Identifier: GPL-2.0
/*
 * scsi_dump - diskdump device operations for SCSI disks
 *
 * At panic time the block layer is gone: this file builds READ, WRITE and
 * SYNCHRONIZE CACHE commands itself, hands them to the host driver's
 * queuecommand, and polls the host through the dump hooks of its
 * scsi_host_template until the command completes.  scsi_done() routes the
 * completion here while crashdump_mode() is true.
 *
 * One command is in flight at a time, in a request and scsi_cmnd that were
 * allocated when the partition was configured, with a DMA buffer of its own.
 * Where the HBA's DMA goes straight to memory, so that its queuecommand
 * maps without taking a lock (diskdump_dma_direct()), the dump's pages are
 * written from where they are, through a scatterlist over them.
 */

#define pr_fmt(fmt) "scsi_dump: " fmt

#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/diskdump.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/unaligned.h>
#include <scsi/scsi.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_dump.h>
#include <scsi/scsi_host.h>
#include <scsi/scsi_proto.h>

#include "scsi_priv.h"

#define SCSI_DUMP_MAX_BLOCKS	256		/* 1 MiB per command */
#define SCSI_DUMP_POLL_US	10
#define SCSI_DUMP_TIMEOUT_US	(30 * USEC_PER_SEC)
#define SCSI_DUMP_RETRIES	20
#define SCSI_DUMP_BUSY_WAIT_US	(100 * USEC_PER_MSEC)

/**
 * struct scsi_dump_dev - what one SCSI disk needs at panic time
 * @sdev: the disk
 * @dma: the device that does the host's DMA: shost->dma_dev, or what the
 *	host's dump_arm hook named
 * @cmd: the one dump command, behind a request allocated with it
 * @sg: the scatterlist entry over @buf
 * @pages: the scatterlist over the pages of a write_pages call
 * @buf: DMA buffer of SCSI_DUMP_MAX_BLOCKS blocks
 * @buf_dma: @buf's address for the HBA, mapped when the disk was armed
 * @order: page order of @buf
 * @max_segs: entries in a command's scatterlist, at most
 * @max_seg_size: bytes in one entry, at most
 * @seg_boundary: mask of the boundary that no entry may cross
 * @sense: sense data of the last command
 * @direct: the HBA reads RAM pages at their bus address (write_pages)
 * @mapped: @buf_dma is valid: commands through @buf are SCMD_DUMP_MAPPED
 * @sync: @buf_dma needs dma_sync_single_*() around a command (swiotlb)
 * @done: set by scsi_dump_done() when @cmd completes
 * @quiesced: the host was quiesced during this panic
 * @broken: a command timed out; the host still owns @cmd
 *
 * The members up to @sync are set when the disk is armed and not changed
 * after: diskdump's self check covers them (&disk_dump_device.priv_fixed).
 */
struct scsi_dump_dev {
	/* set when armed: dev->priv_fixed, checksummed */
	struct scsi_device *sdev;
	struct device *dma;
	struct scsi_cmnd *cmd;
	void *buf;
	dma_addr_t buf_dma;
	unsigned int order;
	unsigned int max_segs;
	unsigned int max_seg_size;
	unsigned long seg_boundary;
	bool direct;
	bool mapped;
	bool sync;
	/* changed at panic */
	struct scatterlist sg;
	struct scatterlist pages[SCSI_DUMP_MAX_BLOCKS];
	u8 sense[SCSI_SENSE_BUFFERSIZE];
	bool done;
	bool quiesced;
	bool broken;
};

/* The disk whose command is in flight; the panic path is single threaded. */
static struct scsi_dump_dev *scsi_dump_active;

/**
 * scsi_dump_done - completion of a dump command
 * @cmd: the command; called by scsi_done() in crashdump mode
 *
 * A late completion of a command that already timed out is ignored.
 */
__diskdump_text void scsi_dump_done(struct scsi_cmnd *cmd)
{
	struct scsi_dump_dev *sdd = scsi_dump_active;

	if (sdd && cmd == sdd->cmd)
		WRITE_ONCE(sdd->done, true);
}

/*
 * Prepare the command: @cdb, moving @bytes bytes in direction @dir through
 * the scatterlist @sgl of @nents entries, or through @buf if @sgl is NULL.
 */
static __diskdump_text void
scsi_dump_prep(struct scsi_dump_dev *sdd, const u8 *cdb,
	       unsigned int cdb_len, enum dma_data_direction dir,
	       unsigned int bytes, struct scatterlist *sgl, unsigned int nents)
{
	struct scsi_cmnd *cmd = sdd->cmd;

	memset(cmd->cmnd, 0, sizeof(cmd->cmnd));
	memcpy(cmd->cmnd, cdb, cdb_len);
	cmd->cmd_len = cdb_len;
	cmd->sc_data_direction = bytes ? dir : DMA_NONE;
	cmd->submitter = SUBMITTED_BY_SCSI_DUMP;
	cmd->result = 0;
	cmd->state = 0;
	cmd->host_scribble = NULL;
	cmd->sense_buffer = sdd->sense;
	memset(sdd->sense, 0, sizeof(sdd->sense));
	memset(&cmd->sdb, 0, sizeof(cmd->sdb));
	cmd->flags &= ~SCMD_DUMP_MAPPED;
	if (bytes && !sgl) {
		sg_init_one(&sdd->sg, sdd->buf, bytes);
		if (sdd->mapped) {
			sg_dma_address(&sdd->sg) = sdd->buf_dma;
			sg_dma_len(&sdd->sg) = bytes;
			cmd->flags |= SCMD_DUMP_MAPPED;
		}
		sgl = &sdd->sg;
		nents = 1;
	}
	if (bytes) {
		cmd->sdb.table.sgl = sgl;
		cmd->sdb.table.nents = nents;
		cmd->sdb.table.orig_nents = nents;
		cmd->sdb.length = bytes;
	}
	cmd->transfersize = sdd->sdev->sector_size;
	sdd->done = false;
}

/* Classify a finished command: 0, -EAGAIN to retry, or another error. */
static __diskdump_text int scsi_dump_result(struct scsi_dump_dev *sdd)
{
	struct scsi_cmnd *cmd = sdd->cmd;
	struct scsi_sense_hdr sshdr;

	switch (host_byte(cmd->result)) {
	case DID_OK:
		break;
	case DID_RESET:
	case DID_BUS_BUSY:
	case DID_SOFT_ERROR:
	case DID_IMM_RETRY:
	case DID_REQUEUE:
		return -EAGAIN;
	default:
		pr_emerg("host error 0x%x\n", host_byte(cmd->result));
		return -EIO;
	}
	switch (get_status_byte(cmd)) {
	case SAM_STAT_GOOD:
		return 0;
	case SAM_STAT_BUSY:
	case SAM_STAT_TASK_SET_FULL:
		return -EAGAIN;
	case SAM_STAT_CHECK_CONDITION:
		if (!scsi_normalize_sense(sdd->sense, sizeof(sdd->sense), &sshdr))
			return -EAGAIN;
		if (sshdr.sense_key == UNIT_ATTENTION ||
		    (sshdr.sense_key == NOT_READY && sshdr.asc == 0x04))
			return -EAGAIN;
		pr_emerg("sense key 0x%x asc 0x%x ascq 0x%x\n", sshdr.sense_key,
			 sshdr.asc, sshdr.ascq);
		return -EIO;
	default:
		pr_emerg("status 0x%x\n", get_status_byte(cmd));
		return -EIO;
	}
}

/* Hand the command to the host and poll until it completes, with a bound. */
static __diskdump_text int scsi_dump_issue(struct scsi_dump_dev *sdd)
{
	struct Scsi_Host *shost = sdd->sdev->host;
	const struct scsi_host_template *hostt = shost->hostt;
	unsigned long waited;

	scsi_dump_active = sdd;
	if (hostt->queuecommand(shost, sdd->cmd)) {
		/* Busy (e.g. settling after the bus reset): poll, then retry. */
		for (waited = 0; waited < SCSI_DUMP_BUSY_WAIT_US;
		     waited += SCSI_DUMP_POLL_US * 10) {
			hostt->dump_poll(sdd->sdev);
			diskdump_udelay(SCSI_DUMP_POLL_US * 10);
		}
		return -EBUSY;
	}
	for (waited = 0; !READ_ONCE(sdd->done); waited += SCSI_DUMP_POLL_US) {
		if (waited >= SCSI_DUMP_TIMEOUT_US) {
			sdd->broken = true;
			pr_emerg("command 0x%02x timed out\n", sdd->cmd->cmnd[0]);
			return -ETIMEDOUT;
		}
		hostt->dump_poll(sdd->sdev);
		if (READ_ONCE(sdd->done))
			break;
		diskdump_udelay(SCSI_DUMP_POLL_US);
	}
	return scsi_dump_result(sdd);
}

static __diskdump_text int
scsi_dump_exec_sg(struct scsi_dump_dev *sdd, const u8 *cdb,
		  unsigned int cdb_len, enum dma_data_direction dir,
		  unsigned int bytes, struct scatterlist *sgl,
		  unsigned int nents)
{
	unsigned int tries = 0, busy = 0;
	int ret;

	if (sdd->broken)
		return -EIO;
	/*
	 * Retry what the device asks us to retry (unit attention after the
	 * bus reset, busy status) a few times, and a host that refuses
	 * commands (settling after the reset) for up to the command timeout.
	 */
	while (tries < SCSI_DUMP_RETRIES &&
	       busy < SCSI_DUMP_TIMEOUT_US / SCSI_DUMP_BUSY_WAIT_US) {
		scsi_dump_prep(sdd, cdb, cdb_len, dir, bytes, sgl, nents);
		ret = scsi_dump_issue(sdd);
		if (ret == -EBUSY)
			busy++;
		else if (ret == -EAGAIN)
			tries++;
		else
			return ret;
	}
	pr_emerg("command 0x%02x still failing: %u retries, host busy for %u ms\n",
		 cdb[0], tries, busy * (unsigned int)(SCSI_DUMP_BUSY_WAIT_US / USEC_PER_MSEC));
	return -EIO;
}

/*
 * A command through the DMA buffer (@bytes of it), or with no data.  Where
 * the buffer is bounced (swiotlb), the bounce buffer is brought up to date
 * around the command: that copies, and takes no lock.
 */
static __diskdump_text int
scsi_dump_exec(struct scsi_dump_dev *sdd, const u8 *cdb,
	       unsigned int cdb_len, enum dma_data_direction dir,
	       unsigned int bytes)
{
	struct device *dma = sdd->dma;
	int ret;

	if (bytes && sdd->sync)
		dma_sync_single_for_device(dma, sdd->buf_dma, bytes,
					   DMA_BIDIRECTIONAL);
	ret = scsi_dump_exec_sg(sdd, cdb, cdb_len, dir, bytes, NULL, 0);
	if (bytes && sdd->sync && dir == DMA_FROM_DEVICE)
		dma_sync_single_for_cpu(dma, sdd->buf_dma, bytes,
					DMA_BIDIRECTIONAL);
	return ret;
}

/* Build READ/WRITE (10), or (16) past 2 TiB or 65535 sectors. */
static __diskdump_text unsigned int
scsi_dump_rw_cdb(u8 *cdb, int rw, u64 lba, u32 count)
{
	if (lba > 0xffffffffULL || count > 0xffff) {
		cdb[0] = rw ? WRITE_16 : READ_16;
		put_unaligned_be64(lba, &cdb[2]);
		put_unaligned_be32(count, &cdb[10]);
		return 16;
	}
	cdb[0] = rw ? WRITE_10 : READ_10;
	put_unaligned_be32(lba, &cdb[2]);
	put_unaligned_be16(count, &cdb[7]);
	return 10;
}

/*
 * The CDB of a transfer of @nr_blocks blocks at block @block_nr of @part,
 * or 0 if the partition or the disk cannot take it.
 */
static __diskdump_text unsigned int
scsi_dump_part_cdb(struct disk_dump_partition *part, u8 *cdb, int rw,
		   unsigned long block_nr, unsigned int nr_blocks)
{
	struct scsi_dump_dev *sdd = part->dev->priv;
	unsigned int ssize = sdd->sdev->sector_size;
	u64 byte_off = ((u64)part->start_sect << SECTOR_SHIFT) +
		       (u64)block_nr * DISKDUMP_BLOCK_SIZE;

	if (!nr_blocks || nr_blocks > SCSI_DUMP_MAX_BLOCKS || !ssize ||
	    byte_off % ssize || block_nr + nr_blocks > part->nr_sects >> 3)
		return 0;
	return scsi_dump_rw_cdb(cdb, rw, div_u64(byte_off, ssize),
				nr_blocks * DISKDUMP_BLOCK_SIZE / ssize);
}

static __diskdump_text int
scsi_dump_rw_block(struct disk_dump_partition *part, int rw,
		   unsigned long block_nr, void *buf,
		   unsigned int nr_blocks)
{
	struct scsi_dump_dev *sdd = part->dev->priv;
	unsigned int bytes = nr_blocks * DISKDUMP_BLOCK_SIZE;
	u8 cdb[16] = { };
	unsigned int len;
	int ret;

	len = scsi_dump_part_cdb(part, cdb, rw, block_nr, nr_blocks);
	if (!len)
		return -EINVAL;
	if (rw)
		memcpy(sdd->buf, buf, bytes);
	ret = scsi_dump_exec(sdd, cdb, len, rw ? DMA_TO_DEVICE : DMA_FROM_DEVICE,
			     bytes);
	if (!ret && !rw)
		memcpy(buf, sdd->buf, bytes);
	return ret;
}

/* May page @pfn join the scatterlist entry @sg, which ends right before it? */
static __diskdump_text bool
scsi_dump_seg_grows(struct scsi_dump_dev *sdd, struct scatterlist *sg,
		    dma_addr_t addr)
{
	dma_addr_t start = addr - sg->length;

	return sg->length + PAGE_SIZE <= sdd->max_seg_size &&
	       (start & ~(dma_addr_t)sdd->seg_boundary) ==
	       ((addr + PAGE_SIZE - 1) & ~(dma_addr_t)sdd->seg_boundary);
}

/*
 * The address of page @pfn for the host's device, if it reaches it.  A
 * DMA device without a mask is one the host never maps through: its
 * device takes guest-physical addresses (virtio-scsi's dump queue).
 */
static __diskdump_text bool
scsi_dump_page_addr(struct device *dma, unsigned long pfn, dma_addr_t *addr)
{
	if (!dma->dma_mask) {
		*addr = PFN_PHYS(pfn);
		return true;
	}
	*addr = phys_to_dma(dma, PFN_PHYS(pfn));
	return dma_capable(dma, *addr, PAGE_SIZE, true);
}

/*
 * Describe as many of the @nr pages @pfns as one command takes with
 * sdd->pages, runs of contiguous pages in one entry.  Returns how many, 0
 * if the HBA cannot reach the first; *@nents is the entries used.
 */
static __diskdump_text unsigned int
scsi_dump_map_pages(struct scsi_dump_dev *sdd, const unsigned long *pfns,
		    unsigned int nr, unsigned int *nents)
{
	struct device *dma = sdd->dma;
	struct scatterlist *sg = NULL;
	dma_addr_t addr, prev = 0;
	unsigned int i, n = 0;

	sg_init_table(sdd->pages, min(nr, sdd->max_segs));
	for (i = 0; i < nr; i++) {
		if (!scsi_dump_page_addr(dma, pfns[i], &addr))
			break;
		if (sg && pfns[i] == pfns[i - 1] + 1 &&
		    addr == prev + PAGE_SIZE &&
		    scsi_dump_seg_grows(sdd, sg, addr)) {
			sg->length += PAGE_SIZE;
		} else {
			if (n == sdd->max_segs)
				break;
			sg = &sdd->pages[n++];
			sg_set_page(sg, pfn_to_page(pfns[i]), PAGE_SIZE, 0);
		}
		prev = addr;
	}
	if (n && n < min(nr, sdd->max_segs))
		sg_mark_end(&sdd->pages[n - 1]);
	*nents = n;
	return i;
}

/*
 * Write pages from where they are, in as many commands as the HBA's
 * scatterlist limits need.  A write that fails is done again from copies:
 * the HBA may have failed to read a page whose poison nobody had seen, of
 * which the machine-check safe copy loses only that page.
 */
static __diskdump_text int
scsi_dump_write_pages(struct disk_dump_partition *part, unsigned long block_nr,
		      const unsigned long *pfns, unsigned int nr_blocks)
{
	struct scsi_dump_dev *sdd = part->dev->priv;
	unsigned int done, len, nents;
	u8 cdb[16];
	int ret;

	if (!sdd->direct)
		return -ERANGE;
	while (nr_blocks) {
		done = scsi_dump_map_pages(sdd, pfns, nr_blocks, &nents);
		if (!done)
			return -ERANGE;
		memset(cdb, 0, sizeof(cdb));
		len = scsi_dump_part_cdb(part, cdb, 1, block_nr, done);
		if (!len)
			return -EINVAL;
		ret = scsi_dump_exec_sg(sdd, cdb, len, DMA_TO_DEVICE,
					done * DISKDUMP_BLOCK_SIZE,
					sdd->pages, nents);
		if (ret && !sdd->broken) {
			pr_emerg("write of blocks %lu-%lu failed (%d): writing them again from a copy\n",
				 block_nr, block_nr + done - 1, ret);
			diskdump_copy_pages(sdd->buf, pfns, done);
			ret = scsi_dump_exec(sdd, cdb, len, DMA_TO_DEVICE,
					     done * DISKDUMP_BLOCK_SIZE);
		}
		if (ret)
			return ret;
		pfns += done;
		block_nr += done;
		nr_blocks -= done;
	}
	return 0;
}

/* write_pages waits for each write: nothing is left in flight. */
static __diskdump_text int
scsi_dump_drain(struct disk_dump_partition *part, unsigned long *bad_block)
{
	return 0;
}

static __diskdump_text int scsi_dump_sanity_check(struct disk_dump_device *dev)
{
	struct scsi_dump_dev *sdd = dev->priv;
	struct scsi_device *sdev = sdd->sdev;
	struct Scsi_Host *shost = sdev->host;

	if (sdd->broken)
		return -EIO;
	if (!scsi_device_online(sdev))
		return -ENODEV;
	if (scsi_host_in_recovery(shost))
		return -EBUSY;
	/* A stopped CPU may hold it: using the host would deadlock. */
	if (!spin_trylock(shost->host_lock)) {
		pr_emerg("host %d: host lock is held\n", shost->host_no);
		return -EBUSY;
	}
	spin_unlock(shost->host_lock);
	return shost->hostt->dump_sanity_check(sdev);
}

/*
 * Wait, within the command timeout, until the disk takes commands after
 * the host's quiesce (a bus reset takes seconds to settle), and clear the
 * unit attention the reset leaves, so that what follows is plain I/O.
 */
static __diskdump_text int scsi_dump_ready(struct scsi_dump_dev *sdd)
{
	u8 cdb[6] = { TEST_UNIT_READY };
	int ret;

	ret = scsi_dump_exec(sdd, cdb, sizeof(cdb), DMA_NONE, 0);
	if (ret)
		pr_emerg("disk not ready after quiesce (%d)\n", ret);
	return ret;
}

static __diskdump_text int scsi_dump_quiesce(struct disk_dump_device *dev)
{
	struct scsi_dump_dev *sdd = dev->priv;
	int ret;

	if (sdd->quiesced)
		return 0;
	ret = sdd->sdev->host->hostt->dump_quiesce(sdd->sdev);
	if (ret)
		return ret;
	sdd->quiesced = true;
	return scsi_dump_ready(sdd);
}

static __diskdump_text int scsi_dump_shutdown(struct disk_dump_device *dev)
{
	struct scsi_dump_dev *sdd = dev->priv;
	const struct scsi_host_template *hostt = sdd->sdev->host->hostt;
	u8 cdb[10] = { SYNCHRONIZE_CACHE };
	int ret;

	ret = scsi_dump_exec(sdd, cdb, sizeof(cdb), DMA_NONE, 0);
	if (ret)
		pr_emerg("cache flush failed (%d)\n", ret);
	if (hostt->dump_shutdown && hostt->dump_shutdown(sdd->sdev) && !ret)
		ret = -EIO;
	return ret;
}

static const struct disk_dump_device_ops scsi_dump_ops = {
	.sanity_check	= scsi_dump_sanity_check,
	.quiesce	= scsi_dump_quiesce,
	.shutdown	= scsi_dump_shutdown,
	.rw_block	= scsi_dump_rw_block,
	.write_pages	= scsi_dump_write_pages,
	.drain		= scsi_dump_drain,
};

/* The name of the driver of @shost: its parent device's, as lspci -k says. */
static const char *scsi_dump_host_driver(struct Scsi_Host *shost)
{
	struct device *parent = shost->shost_gendev.parent;

	if (parent && parent->driver)
		return parent->driver->name;
	return shost->hostt->proc_name ?: shost->hostt->name;
}

/*
 * The device that does @sdev's host's DMA, or an ERR_PTR() if the host
 * cannot take dumps now (its dump_arm hook said why).
 */
static struct device *scsi_dump_dma_dev(struct scsi_device *sdev)
{
	const struct scsi_host_template *hostt = sdev->host->hostt;
	struct device *dma;

	if (!hostt->dump_arm)
		return sdev->host->dma_dev;
	dma = hostt->dump_arm(sdev);
	return dma ?: sdev->host->dma_dev;
}

/*
 * A SCSI disk whose host has the dump hooks; a SCSI disk whose host has
 * none is refused, naming its driver, so that the administrator is not
 * left with a bare "no such device".
 */
static void *scsi_dump_probe(struct gendisk *disk)
{
	struct device *dev = disk_to_dev(disk)->parent;
	struct scsi_device *sdev;
	const struct scsi_host_template *hostt;
	struct device *dma;

	if (!dev || !scsi_is_sdev_device(dev))
		return NULL;
	sdev = to_scsi_device(dev);
	hostt = sdev->host->hostt;
	if (!hostt->dump_sanity_check || !hostt->dump_quiesce ||
	    !hostt->dump_poll) {
		sdev_printk(KERN_WARNING, sdev,
			    "%s: its host's driver, %s, has no crash dump support\n",
			    disk->disk_name, scsi_dump_host_driver(sdev->host));
		return ERR_PTR(-EOPNOTSUPP);
	}
	dma = scsi_dump_dma_dev(sdev);
	if (IS_ERR(dma))
		return dma;
	return sdev;
}

/*
 * The host's and the disk's own limit (libata: 128 KiB without LBA48),
 * and what the DMA device @dma maps in one piece (swiotlb: 256 KiB), so
 * that the buffer can be mapped when armed.  The SCSI host caps its
 * max_sectors so only where its own dma_dev is the one that maps.
 */
static unsigned int scsi_dump_max_blocks(struct scsi_device *sdev,
					 struct device *dma)
{
	unsigned int sectors = min(sdev->host->max_sectors,
				   queue_max_hw_sectors(sdev->request_queue));
	unsigned int blocks = (sectors << SECTOR_SHIFT) / DISKDUMP_BLOCK_SIZE;

	if (dma->dma_mask)
		blocks = min_t(size_t, blocks,
			       dma_max_mapping_size(dma) / DISKDUMP_BLOCK_SIZE);
	return clamp(blocks, 1U, (unsigned int)SCSI_DUMP_MAX_BLOCKS);
}

/*
 * Can the HBA be handed the dump's pages where they are (not if its
 * template says dump_copy_pages), and within which scatterlist limits (the
 * request queue's, which are the HBA's)?  Entries
 * are whole pages or runs of them, so a virt boundary above a page is the
 * one limit they could not keep.
 */
static void scsi_dump_set_limits(struct scsi_dump_dev *sdd)
{
	struct request_queue *q = sdd->sdev->request_queue;

	sdd->max_segs = min_t(unsigned int, queue_max_segments(q),
			      SCSI_DUMP_MAX_BLOCKS);
	sdd->max_seg_size = queue_max_segment_size(q);
	sdd->seg_boundary = queue_segment_boundary(q);
	sdd->direct = !sdd->sdev->host->hostt->dump_copy_pages &&
		      diskdump_dma_direct(sdd->dma) &&
		      queue_virt_boundary(q) < PAGE_SIZE &&
		      sdd->max_segs && sdd->max_seg_size >= PAGE_SIZE &&
		      sdd->seg_boundary >= PAGE_SIZE - 1;
}

/*
 * The module of a host's dump hooks where it is not the host driver's own
 * (libata's, for an ATA host): its code runs at panic too.
 */
static struct module *scsi_dump_hooks_module(const struct scsi_host_template *hostt)
{
	struct module *mod = diskdump_code_module(hostt->dump_poll);

	return mod == hostt->module ? NULL : mod;
}

/* The size of the dump buffer (pages of order sdd->order). */
static size_t scsi_dump_buf_size(const struct scsi_dump_dev *sdd)
{
	return PAGE_SIZE << sdd->order;
}

/*
 * Map the DMA buffer for the HBA now, once: at panic neither its
 * queuecommand (scsi_dma_map()) nor libata maps or unmaps a command that
 * is SCMD_DUMP_MAPPED, so no IOVA allocator, IOMMU page table, flush or
 * invalidation queue or swiotlb area lock is taken then, whoever holds it.
 * Should mapping fail, the HBA maps at panic, as without this.
 */
static void scsi_dump_map_buf(struct scsi_dump_dev *sdd)
{
	struct device *dma = sdd->dma;
	bool sync;

	if (diskdump_test_fail_premap())
		return;
	/*
	 * A host whose DMA device has no mask does not map commands itself
	 * (virtio-scsi whose ring takes guest-physical addresses): mapping
	 * here would only warn.
	 */
	if (!dma->dma_mask)
		return;
	sdd->buf_dma = dma_map_single(dma, sdd->buf, scsi_dump_buf_size(sdd),
				      DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dma, sdd->buf_dma))
		return;
	sync = dma_need_sync(dma, sdd->buf_dma);
	/* DMA API debugging would take its own locks in a sync */
	if (sync && IS_ENABLED(CONFIG_DMA_API_DEBUG)) {
		dma_unmap_single(dma, sdd->buf_dma, scsi_dump_buf_size(sdd),
				 DMA_BIDIRECTIONAL);
		return;
	}
	sdd->sync = sync;
	sdd->mapped = true;
}

static void scsi_dump_unmap_buf(struct scsi_dump_dev *sdd)
{
	if (!sdd->mapped)
		return;
	dma_unmap_single(sdd->dma, sdd->buf_dma,
			 scsi_dump_buf_size(sdd), DMA_BIDIRECTIONAL);
	sdev_printk(KERN_INFO, sdd->sdev, "dump buffer unmapped\n");
}

static int scsi_dump_add_device(struct disk_dump_device *dev)
{
	struct scsi_device *sdev = dev->device;
	struct Scsi_Host *shost = sdev->host;
	struct scsi_dump_dev *sdd;
	struct request *rq;
	gfp_t gfp = GFP_KERNEL;
	size_t size;

	if (!get_device(&sdev->sdev_gendev))
		return -ENODEV;
	sdd = kzalloc(sizeof(*sdd), GFP_KERNEL);
	if (!sdd)
		goto out_put;
	sdd->sdev = sdev;
	dev->host = shost;	/* an oops in its driver passes over its disks */
	sdd->dma = scsi_dump_dma_dev(sdev);
	if (IS_ERR(sdd->dma))
		goto out_free;
	dev->max_blocks = scsi_dump_max_blocks(sdev, sdd->dma);
	/* Keep the buffer reachable without a bounce buffer at panic time. */
	if (dma_get_mask(sdd->dma) <= DMA_BIT_MASK(32))
		gfp |= GFP_DMA32;
	/* Large commands are faster; settle for less if memory is fragmented. */
	for (;;) {
		sdd->order = get_order(dev->max_blocks * DISKDUMP_BLOCK_SIZE);
		sdd->buf = (void *)__get_free_pages(gfp | __GFP_NOWARN, sdd->order);
		if (sdd->buf || dev->max_blocks == 1)
			break;
		dev->max_blocks /= 2;
	}
	if (!sdd->buf)
		goto out_free;

	/* Laid out like a blk-mq request: request, scsi_cmnd, driver data. */
	size = sizeof(struct request) + sizeof(struct scsi_cmnd) +
	       shost->hostt->cmd_size;
	rq = kzalloc(size, GFP_KERNEL);
	if (!rq)
		goto out_buf;
	blk_rq_init(NULL, rq);
	/*
	 * Hosts that index their own command slots by the block layer tag
	 * (libata) need a valid one.  The dump command runs only after
	 * quiesce, when no other command holds any tag: take the first.
	 */
	rq->tag = 0;
	sdd->cmd = blk_mq_rq_to_pdu(rq);
	scsi_init_command(sdev, sdd->cmd);
	sdd->cmd->submitter = SUBMITTED_BY_SCSI_DUMP;
	sdd->cmd->flags |= SCMD_LAST;

	dev->ops = &scsi_dump_ops;
	dev->drivers[0] = shost->hostt->module;
	dev->drivers[1] = scsi_dump_hooks_module(shost->hostt);
	scsi_dump_map_buf(sdd);
	/* unless mapped now, the HBA maps each command's buffer at panic */
	dev->dma_locks = !sdd->mapped &&
			 diskdump_dma_takes_locks(sdd->dma, sdd->buf,
						  scsi_dump_buf_size(sdd));
	if (dev->dma_locks)
		sdev_printk(KERN_WARNING, sdev,
			    "dump buffer not mapped when armed: the host maps it at panic, and the disk is skipped if a CPU could not be stopped outside the IOMMU's or swiotlb's locks\n");
	scsi_dump_set_limits(sdd);
	dev->priv = sdd;
	dev->priv_fixed = offsetof(struct scsi_dump_dev, sg);
	return 0;

out_buf:
	free_pages((unsigned long)sdd->buf, sdd->order);
out_free:
	kfree(sdd);
out_put:
	put_device(&sdev->sdev_gendev);
	return -ENOMEM;
}

static void scsi_dump_remove_device(struct disk_dump_device *dev)
{
	struct scsi_dump_dev *sdd = dev->priv;

	kfree(scsi_cmd_to_rq(sdd->cmd));
	scsi_dump_unmap_buf(sdd);
	free_pages((unsigned long)sdd->buf, sdd->order);
	put_device(&sdd->sdev->sdev_gendev);
	kfree(sdd);
}

static struct disk_dump_type scsi_dump_type = {
	.probe		= scsi_dump_probe,
	.add_device	= scsi_dump_add_device,
	.remove_device	= scsi_dump_remove_device,
	.owner		= THIS_MODULE,
};

int scsi_dump_init(void)
{
	return register_disk_dump_type(&scsi_dump_type);
}

void scsi_dump_exit(void)
{
	unregister_disk_dump_type(&scsi_dump_type);
}
