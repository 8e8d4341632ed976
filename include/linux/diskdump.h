/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diskdump - write a crash dump to a dedicated disk partition at panic time
 *
 * The dump devices: block drivers offer them through a struct
 * disk_dump_type, and they move page-sized blocks by polling, with
 * interrupts off, through struct disk_dump_device_ops.  Crashdump mode,
 * which the drivers test with crashdump_mode(), is in diskdump_mode.h.
 */
#ifndef _LINUX_DISKDUMP_H
#define _LINUX_DISKDUMP_H

#include <linux/diskdump_mode.h>
#include <linux/list.h>
#include <uapi/linux/diskdump.h>

/*
 * __diskdump_text marks code that runs at panic, in diskdump and in the
 * dump drivers.  It is kept in its own section, .diskdump.text (bounded by
 * __diskdump_text_start and __diskdump_text_end in vmlinux, and by
 * diskdump_text_start and diskdump_text_size in a module's struct module),
 * which the panic-time self check covers whole and kprobes refuses.  A
 * module's is covered while a disk of its driver is armed.  It is never
 * traced either: function tracing, BPF trampolines and livepatch rewrite
 * function entries, which the self check would take for corruption, so
 * the files that hold it are built without the ftrace flags
 * (CFLAGS_REMOVE_... = $(CC_FLAGS_FTRACE) in their Makefiles).
 *
 * While dumping, only the dump drivers' timers are run: those whose
 * callback is __diskdump_text, or in the module of an armed dump driver.
 * A timer of other code armed meanwhile stays pending and never runs.  A
 * driver built into the kernel marks the callback of a timer it needs at
 * panic "notrace __diskdump_text" (notrace where its file is built with
 * the ftrace flags).
 */
#ifdef CONFIG_DISKDUMP
#define __diskdump_text	__section(".diskdump.text")
#else
#define __diskdump_text
#endif

/* Dump devices: the driver contract */

struct device;
struct gendisk;
struct module;
struct disk_dump_device;
struct disk_dump_partition;

/**
 * struct disk_dump_device_ops - what a dump driver does at panic time
 * @sanity_check: can the device be used at all now (controller present, not
 *	mid-reset, its locks free)?  Returns 0 or a negative errno.  Must not
 *	touch the hardware in a way that loses data.
 * @quiesce: stop the device's normal work: drop or finish in-flight
 *	commands, so that only dump commands run from here on.
 * @shutdown: flush the device's write cache: after the dump's pages, and
 *	again after its final header, so it must be repeatable.
 * @rw_block: read (@rw == 0) or write (@rw == 1) @nr_blocks blocks of
 *	DISKDUMP_BLOCK_SIZE bytes at block @block_nr of @part, from or to the
 *	kernel virtual address @buf, by polling.  @nr_blocks is at most the
 *	device's max_blocks.  Finishes the writes write_pages started first.
 *	Returns 0 or a negative errno.
 * @write_pages: optional, for a device that reads memory itself: start
 *	writing @nr_blocks blocks at block @block_nr of @part, block i being
 *	the RAM page @pfns[i] as it is, with no copy.  May return before the
 *	write is done, keeping up to the driver's queue of writes in flight.
 *	Returns 0; -ERANGE, having started nothing, if the device cannot reach
 *	one of the pages (diskdump then copies them and calls rw_block); or
 *	another negative errno if this or an earlier write failed for good.
 * @drain: wait for the writes write_pages started.  Returns 0, or a
 *	negative errno with the first block of the first write that failed in
 *	*@bad_block.  Required with write_pages.
 *
 * All run with interrupts off and the other CPUs stopped: they may not
 * sleep, allocate memory, take sleeping locks or wait without a bound.
 */
struct disk_dump_device_ops {
	int (*sanity_check)(struct disk_dump_device *dev);
	int (*quiesce)(struct disk_dump_device *dev);
	int (*shutdown)(struct disk_dump_device *dev);
	int (*rw_block)(struct disk_dump_partition *part, int rw,
			unsigned long block_nr, void *buf,
			unsigned int nr_blocks);
	int (*write_pages)(struct disk_dump_partition *part,
			   unsigned long block_nr, const unsigned long *pfns,
			   unsigned int nr_blocks);
	int (*drain)(struct disk_dump_partition *part,
		     unsigned long *bad_block);
};

/**
 * struct disk_dump_device - a disk that can take dumps
 * @list: on the diskdump core's device list
 * @partitions: the dump partitions configured on this disk
 * @ops: the driver's panic-time operations
 * @device: driver private data (for SCSI, the scsi_device)
 * @type: the disk_dump_type that offered this device
 * @priv: the driver's own per-device data
 * @priv_fixed: how many bytes at the start of @priv add_device set for good
 *	(buffer and DMA addresses, limits): the self check covers them
 * @max_blocks: largest @nr_blocks one rw_block call takes
 * @drivers: the modules of the drivers below the dump type whose code runs
 *	at panic (for SCSI, the HBA's, and that of its dump hooks where that
 *	is another: libata's for an ATA host), or NULL; set by add_device.
 *	diskdump holds them while the device is armed.
 * @host: what the driver's state is shared with (for SCSI, the Scsi_Host),
 *	or NULL for the device alone; set by add_device.  After an oops in
 *	the driver, every device with the same @host is passed over.
 * @dma_locks: the driver maps the dump's buffer at panic (in queuecommand,
 *	as sym53c8xx and libata do) through an IOMMU, swiotlb or other DMA
 *	ops, whose locks that takes; set by add_device, with
 *	diskdump_dma_takes_locks().  NVMe maps everything when armed.
 * @module_text: set by diskdump: the text of @type's module and of
 *	@drivers[0], whose timers it runs while dumping, and the
 *	.diskdump.text of those and of @drivers[1], which the self check
 *	covers whole
 * @code_crc: set by diskdump when the device is armed: the checksum of
 *	its operations and of that .diskdump.text, which the self check
 *	compares at panic
 */
struct disk_dump_device {
	struct list_head list;
	struct list_head partitions;
	const struct disk_dump_device_ops *ops;
	void *device;
	struct disk_dump_type *type;
	void *priv;
	unsigned int priv_fixed;
	unsigned int max_blocks;
	struct module *drivers[2];
	const void *host;
	bool dma_locks;
	struct {
		unsigned long start, end;
		unsigned long dump_start, dump_end;
	} module_text[3];
	u32 code_crc;
};

/**
 * struct disk_dump_partition - one configured dump partition
 * @list: on its device's partition list
 * @dev: the device it lives on
 * @bdev_file: the block device, held open while configured
 * @devt: device number of the partition
 * @start_sect: first 512-byte sector of the partition on the disk
 * @nr_sects: size in 512-byte sectors
 * @nonce: random when the partition is added; the ChaCha20 nonce of an
 *	encrypted dump, so that no two partitions share a keystream
 */
struct disk_dump_partition {
	struct list_head list;
	struct disk_dump_device *dev;
	struct file *bdev_file;
	dev_t devt;
	sector_t start_sect;
	sector_t nr_sects;
	u8 nonce[DISKDUMP_NONCE_SIZE];
	bool too_small;		/* at panic: passed over for a whole dump */
};

/**
 * struct disk_dump_type - a class of block devices that can take dumps
 * @probe: return driver data if @disk is one of ours and can dump, NULL if
 *	it is not ours, or ERR_PTR(-EOPNOTSUPP) if it is ours but cannot take
 *	a dump (after logging why).
 *	Partitions whose probe returns the same pointer share one
 *	struct disk_dump_device (for SCSI the scsi_device, for NVMe the
 *	controller, whose namespaces share one dump queue).
 * @add_device: fill in @dev->ops and @dev->max_blocks and preallocate what
 *	the panic path needs; called in process context.  0 or -errno.
 * @remove_device: free what add_device allocated.
 * @owner: module that provides the type
 * @list: on the diskdump core's type list
 */
struct disk_dump_type {
	void *(*probe)(struct gendisk *disk);
	int (*add_device)(struct disk_dump_device *dev);
	void (*remove_device)(struct disk_dump_device *dev);
	struct module *owner;
	struct list_head list;
};

#ifdef CONFIG_DISKDUMP

int register_disk_dump_type(struct disk_dump_type *type);
void unregister_disk_dump_type(struct disk_dump_type *type);
void diskdump_udelay(unsigned int usecs);
bool diskdump_dma_takes_locks(struct device *dma, void *buf, size_t len);
bool diskdump_dma_direct(struct device *dma);
struct module *diskdump_code_module(const void *fn);
void diskdump_copy_pages(void *dst, const unsigned long *pfns, unsigned int nr);
bool diskdump_panic(const char *msg);

#else

static inline bool diskdump_panic(const char *msg)
{
	return false;
}

#endif /* CONFIG_DISKDUMP */

#ifdef CONFIG_DISKDUMP_TEST
bool diskdump_test_fail_premap(void);
void diskdump_test_slow_queue(void);
#else
static inline bool diskdump_test_fail_premap(void)
{
	return false;
}

static inline void diskdump_test_slow_queue(void)
{
}
#endif

#endif /* _LINUX_DISKDUMP_H */
