// SPDX-License-Identifier: GPL-2.0
/*
 * diskdump - write the memory of a panicking kernel to a dump partition
 *
 * At panic time diskdump takes over the panicking CPU with interrupts off,
 * stops the other CPUs the way kdump does (keeping their registers in the
 * crash_notes), checks that its own code and configuration are intact, and
 * then tries each configured partition in turn: the driver's sanity_check
 * and quiesce, a check that every block the dump will write carries the
 * format signature (so nothing but an empty dump partition is ever
 * overwritten), and the dump itself, written by polling.  Whatever
 * happens, it returns to panic(), which goes on to reboot.  savecore turns
 * the partition into a core file after the reboot.
 *
 * Nothing on the panic path allocates memory, sleeps, takes a sleeping lock,
 * uses the block layer or waits without a bound: every buffer is allocated
 * when a partition is configured through /proc/diskdump.
 */

#define pr_fmt(fmt) "diskdump: " fmt

#include <crypto/akcipher.h>
#include <crypto/chacha.h>
#include <crypto/internal/rsa.h>
#include <crypto/poly1305.h>
#include <crypto/public_key.h>
#include <crypto/sha2.h>
#include <keys/asymmetric-type.h>
#include <keys/system_keyring.h>
#include <linux/blkdev.h>
#include <linux/cc_platform.h>
#include <linux/crash_core.h>
#include <linux/crc32.h>
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/diskdump.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/iommu.h>
#include <linux/ioport.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kexec.h>
#include <linux/key.h>
#include <linux/memblock.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/panic.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/swiotlb.h>
#include <linux/security.h>
#include <linux/set_memory.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>
#include <linux/vmcore_info.h>
#include <asm/sections.h>

#include "diskdump_internal.h"

#define DISKDUMP_MAX_RAM_RANGES	256
#define DISKDUMP_IO_BLOCKS	256	/* blocks per rw_block call, at most */
#define DISKDUMP_KEY_DER_MAX	600	/* an RSA-4096 RSAPublicKey is 526 bytes */
#define DISKDUMP_CERT_DER_MAX	4096	/* an X.509 certificate */
#define DISKDUMP_CMD_MAX	(2 * DISKDUMP_CERT_DER_MAX + 16)	/* longest line */
#define DISKDUMP_PARK_US	100000	/* other CPUs' answer to the park IPI */
#define DISKDUMP_PARK_STEP_US	10	/* how often it is looked for */
#define DISKDUMP_PARK_RESEND_US	1000	/* the IPI sent again */

#define DD_READ		0
#define DD_WRITE	1

/* The key of encrypted dumps, made when the admin gives a public key. */
struct dd_key {
	bool on;
	bool trusted;		/* from a certificate the kernel trusts */
	u32 key[DISKDUMP_KEY_SIZE / sizeof(u32)];	/* the ChaCha20 key */
	u8 key_id[DISKDUMP_KEY_ID_SIZE];
	u8 wrapped[DISKDUMP_WRAPPED_MAX];
	u32 wrapped_size;
};

struct dd_ram_range {
	unsigned long start_pfn;
	unsigned long end_pfn;		/* exclusive */
};

/* What panic() is told to do after a dump: see dd_reboot_after_dump(). */
enum dd_reboot {
	DD_REBOOT_AUTO,		/* "reboot auto": at once where panic= never would */
	DD_REBOOT_AFTER,	/* "reboot N": N seconds, 0 at once */
	DD_REBOOT_PANIC,	/* "reboot panic": as panic= says */
};

/* the longest "reboot N": a longer wait is panic='s to set */
#define DD_REBOOT_MAX_SECS	3600

/*
 * The configuration the panic path works from, prepared whenever it changes
 * (under dd_mutex, between dd_config_begin() and dd_config_commit()) and
 * only read at panic.  Its checksum, with the devices and partitions on
 * dd_devices and the panic-path code, is dd_cfg_crc.
 */
struct dd_config {
	struct dd_ram_range ram[DISKDUMP_MAX_RAM_RANGES];
	unsigned int nr_ram;
	unsigned long max_pfn;
	unsigned long nr_ram_pages;
	unsigned long bitmap_blocks;
	unsigned long note_blocks;
	size_t note_bytes;
	unsigned int dump_level;	/* DISKDUMP_EXCLUDE_* bits */
	bool check_all;			/* "check all": every block at panic */
	bool copy_pages;		/* "pages copy": never write_pages */
	enum dd_reboot reboot;		/* after a dump: "reboot ..." */
	unsigned int reboot_secs;	/* "reboot N" */
	unsigned long *dump_map;	/* bitmap_blocks blocks: pages chosen at panic */
	unsigned long dump_map_blocks;
	void *io_buf;			/* DISKDUMP_IO_BLOCKS blocks */
	void *note_buf;			/* note_blocks blocks */
	struct diskdump_header *hdr;	/* one block */
	struct dd_key key;
};

/* How many times an oops in a driver may go on to the next partition. */
#define DD_GO_ON_MAX		3

/* What the panic path writes as it dumps; not covered by the checksum. */
struct dd_run {
	atomic_t entered;		/* a dump has started: no second one */
	bool wrote;			/* a partition holds a dump, or part */
	bool writing;			/* a write was sent to the partition */
	unsigned int pass;		/* 0: whole dumps, 1: truncated ones */
	unsigned int next;		/* the pass's next partition, by index */
	struct disk_dump_partition *trying;	/* the one being tried */
	bool in_driver;			/* in its driver's operations */
	bool stopped;			/* the other CPUs are stopped */
	/* devices whose drivers oopsed before writing: passed over */
	const struct disk_dump_device *oopsed[DD_GO_ON_MAX];
	unsigned int oopses;
	unsigned long first_sp;		/* where the dump began, on the stack */
	unsigned int first_ctx;		/* and in which context: NMI, hardirq */
	char msg[DISKDUMP_PANIC_LEN];	/* the first panic's: panic() reuses */
	struct pt_regs regs;		/* of the panicking CPU */
	struct cpumask parked;		/* CPUs that took the park IPI */
	struct cpumask unparked;	/* CPUs stopped where they were */
	unsigned long io_errors;
	unsigned long direct_pages;	/* read by the device, not copied */
	unsigned long pfns[DISKDUMP_IO_BLOCKS];	/* for write_pages */
	u64 unreadable_pages;
	u64 hwpoison_pages;
	u64 verify_ns;			/* comparing blocks with the format */
	unsigned long whole_pages;	/* what the whole dump has */
	struct poly1305_desc_ctx mac;	/* of an encrypted dump */
};

/*
 * Serialises configuration.  The memory hotplug notifier takes it with
 * device_hotplug_lock, mem_hotplug_lock and the CPU hotplug lock held,
 * and a disk going away (dd_bdev_mark_dead()) with the locks of device
 * removal: none of those may be taken, nor a removal waited for, under it.
 */
static DEFINE_MUTEX(dd_mutex);
static LIST_HEAD(dd_types);	/* struct disk_dump_type */
static LIST_HEAD(dd_devices);	/* struct disk_dump_device, armed */
static struct dd_config dd_cfg;
static u32 dd_cfg_crc;		/* checked at panic */
static u32 dd_core_code_crc;	/* taken at init, checked at panic */
static int dd_cfg_busy;		/* the configuration is changing */
static struct dd_run dd_run;

/*
 * Why the last write to /proc/diskdump was refused: its "# last error:"
 * line, which diskdumpctl reads rather than the kernel log.  Cleared by
 * each write; every refusal of a command goes through dd_cmd_err().
 */
static char dd_last_error[320];
static DEFINE_SPINLOCK(dd_last_error_lock);

static __printf(1, 2) void dd_cmd_err(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args, again;

	va_start(args, fmt);
	va_copy(again, args);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("%pV", &vaf);
	spin_lock(&dd_last_error_lock);
	vscnprintf(dd_last_error, sizeof(dd_last_error), fmt, again);
	strim(dd_last_error);
	spin_unlock(&dd_last_error_lock);
	va_end(again);
	va_end(args);
}

static bool dd_last_error_set(void)
{
	return READ_ONCE(dd_last_error[0]) != '\0';
}

static void dd_clear_last_error(void)
{
	spin_lock(&dd_last_error_lock);
	dd_last_error[0] = '\0';
	spin_unlock(&dd_last_error_lock);
}

/**
 * dd_is_dump_code - is @fn in the code of the dump drivers?
 * @fn: a code address, such as a timer's callback
 *
 * The panic-path code built into the kernel is __diskdump_text; a modular
 * dump driver's is told by the text of its module, or for the module of an
 * HBA's dump hooks by its .diskdump.text, recorded when its disk was armed.
 *
 * Return: true if the dump drivers' code holds @fn.
 */
__diskdump_text bool dd_is_dump_code(unsigned long fn)
{
	struct disk_dump_device *dev;
	unsigned int i;

	if (fn >= (unsigned long)__diskdump_text_start &&
	    fn < (unsigned long)__diskdump_text_end)
		return true;
	list_for_each_entry(dev, &dd_devices, list) {
		for (i = 0; i < ARRAY_SIZE(dev->module_text); i++) {
			if (fn >= dev->module_text[i].start &&
			    fn < dev->module_text[i].end)
				return true;
			if (fn >= dev->module_text[i].dump_start &&
			    fn < dev->module_text[i].dump_end)
				return true;
		}
	}
	return false;
}

#ifdef CONFIG_DISKDUMP_TEST
/* A byte the self check covers, for the "corrupt" test hook. */
u8 *dd_test_config_byte(void)
{
	return (u8 *)&dd_cfg.ram[DISKDUMP_MAX_RAM_RANGES - 1];
}

/*
 * For the "corruptpriv" test hook: the second byte of the first word of
 * the first armed device's driver data (a pointer the driver set when
 * armed and uses at panic), whatever its priv_fixed says, or NULL.  Its
 * type's module is put in @whose.
 */
u8 *dd_test_priv_byte(const char **whose)
{
	struct disk_dump_device *dev;
	u8 *victim = NULL;

	mutex_lock(&dd_mutex);
	dev = list_first_entry_or_null(&dd_devices, struct disk_dump_device,
				       list);
	if (dev && dev->priv) {
		victim = (u8 *)dev->priv + 1;
		*whose = module_name(dev->type->owner);
	}
	mutex_unlock(&dd_mutex);
	return victim;
}

static bool dd_is_op(const struct disk_dump_device_ops *ops, unsigned long fn)
{
	return fn == (unsigned long)ops->sanity_check ||
	       fn == (unsigned long)ops->quiesce ||
	       fn == (unsigned long)ops->shutdown ||
	       fn == (unsigned long)ops->rw_block ||
	       fn == (unsigned long)ops->write_pages ||
	       fn == (unsigned long)ops->drain;
}

/* Is @addr in module @name's code?  Any code is, for a NULL @name. */
static bool dd_in_module(unsigned long addr, const char *name)
{
	struct module *mod;

	if (!name)
		return true;
	mod = diskdump_code_module((const void *)addr);
	return mod && !strcmp(module_name(mod), name);
}

/*
 * For the "corruptmod" test hook: a byte in the middle of a function of an
 * armed dump driver's module's .diskdump.text (of module @name, if not
 * NULL) that is not one of the driver's operations (those were
 * checksummed one by one before the section was), or NULL.
 */
u8 *dd_test_module_code_byte(const char *name)
{
	unsigned long addr, size, offset;
	struct disk_dump_device *dev;
	u8 *victim = NULL;
	unsigned int i;

	mutex_lock(&dd_mutex);
	list_for_each_entry(dev, &dd_devices, list) {
		for (i = 0; i < ARRAY_SIZE(dev->module_text) && !victim; i++) {
			addr = dev->module_text[i].dump_start;
			if (addr && !dd_in_module(addr, name))
				continue;
			while (!victim && addr < dev->module_text[i].dump_end) {
				if (!kallsyms_lookup_size_offset(addr, &size, &offset) ||
				    size <= offset) {
					addr++;
					continue;
				}
				if (!dd_is_op(dev->ops, addr - offset))
					victim = (u8 *)(addr - offset + size / 2);
				addr += size - offset;
			}
		}
	}
	mutex_unlock(&dd_mutex);
	return victim;
}
#endif

/* ------------------------------------------------------------------ */
/* Self check                                                          */
/* ------------------------------------------------------------------ */

static __diskdump_text u32 dd_crc_function(u32 crc, const void *fn)
{
	unsigned long size, offset, addr = (unsigned long)fn;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return crc32_le(crc, (const u8 *)&addr, sizeof(addr));
	return crc32_le(crc, (const u8 *)(addr - offset), size);
}

/* diskdump's own code, built into the kernel: its baseline is taken at init */
static __diskdump_text u32 dd_crc_core_code(void)
{
	return crc32_le(~0U, (const u8 *)__diskdump_text_start,
			__diskdump_text_end - __diskdump_text_start);
}

/*
 * The code of @dev's drivers: its operations and the .diskdump.text of
 * their modules, whole.  Its baseline is taken when the disk is armed.
 */
static __diskdump_text u32 dd_crc_device_code(struct disk_dump_device *dev)
{
	const struct disk_dump_device_ops *ops = dev->ops;
	u32 crc = ~0U;
	unsigned int i;

	crc = dd_crc_function(crc, ops->sanity_check);
	crc = dd_crc_function(crc, ops->quiesce);
	crc = dd_crc_function(crc, ops->shutdown);
	crc = dd_crc_function(crc, ops->rw_block);
	crc = dd_crc_function(crc, ops->write_pages);
	crc = dd_crc_function(crc, ops->drain);
	for (i = 0; i < ARRAY_SIZE(dev->module_text); i++)
		crc = crc32_le(crc, (const u8 *)dev->module_text[i].dump_start,
			       dev->module_text[i].dump_end -
			       dev->module_text[i].dump_start);
	return crc;
}

static __diskdump_text u32 dd_crc_device(u32 crc, struct disk_dump_device *dev)
{
	struct disk_dump_partition *part;

	crc = crc32_le(crc, (const u8 *)dev, sizeof(*dev));
	crc = crc32_le(crc, (const u8 *)dev->ops, sizeof(*dev->ops));
	crc = crc32_le(crc, dev->priv, dev->priv_fixed);
	list_for_each_entry(part, &dev->partitions, list)
		crc = crc32_le(crc, (const u8 *)part, sizeof(*part));
	return crc;
}

/*
 * A checksum of what the panic path works from: the configuration, the
 * device and partition descriptions (with each device's code checksum) and
 * the preallocated layout.  Computed whenever the configuration changes,
 * checked at panic.  The code's own checksums are not taken again then: a
 * byte of code changed after init (diskdump's) or after arming (a
 * driver's) stays a difference until the disk is armed anew.
 */
static __diskdump_text u32 dd_checksum(void)
{
	struct disk_dump_device *dev;
	u32 crc = ~0U;

	crc = crc32_le(crc, (const u8 *)&dd_cfg, sizeof(dd_cfg));
	list_for_each_entry(dev, &dd_devices, list)
		crc = dd_crc_device(crc, dev);
	return crc;
}

/* ------------------------------------------------------------------ */
/* The panic path                                                      */
/* ------------------------------------------------------------------ */

static __diskdump_text int dd_rw(struct disk_dump_partition *part, int rw,
				 unsigned long block, void *buf, unsigned int nr)
{
	int ret = part->dev->ops->rw_block(part, rw, block, buf, nr);

	if (ret)
		dd_run.io_errors++;
	return ret;
}

static __diskdump_text unsigned long
dd_part_blocks(struct disk_dump_partition *part)
{
	return part->nr_sects >> (PAGE_SHIFT - SECTOR_SHIFT);
}

static __diskdump_text unsigned int dd_io_blocks(struct disk_dump_partition *part)
{
	return min_t(unsigned int, part->dev->max_blocks, DISKDUMP_IO_BLOCKS);
}

/*
 * Encrypted dumps.  The generic ChaCha20 and Poly1305 code, not the SIMD
 * versions: they need no FPU state, which the panic may have interrupted.
 */
static __diskdump_text bool dd_encrypting(void)
{
	return IS_ENABLED(CONFIG_DISKDUMP_ENCRYPT) && dd_cfg.key.on;
}

/* Dumps are encrypted for a key that came in a trusted certificate. */
static __diskdump_text bool dd_key_trusted(void)
{
	return dd_encrypting() && dd_cfg.key.trusted;
}

/*
 * ChaCha20 state for partition block @block: counter 0, the block number's
 * low word, the nonce's first word XORed with the block number's high word,
 * the nonce's second word.  All 64 bits of the block number are in the IV,
 * so no two blocks of a partition share a keystream however large it is,
 * and below 2^32 blocks the IV is the one format version 2 always had.
 */
static __diskdump_text void
dd_chacha_init(u32 *state, struct disk_dump_partition *part, u64 block)
{
	u8 iv[CHACHA_IV_SIZE];

	put_unaligned_le32(0, iv);
	put_unaligned_le32(lower_32_bits(block), iv + 4);
	put_unaligned_le32(get_unaligned_le32(part->nonce) ^ upper_32_bits(block),
			   iv + 8);
	memcpy(iv + 12, part->nonce + 4, DISKDUMP_NONCE_SIZE - 4);
	chacha_init_generic(state, dd_cfg.key.key, iv);
}

/* Encrypt @n blocks in place, bound for partition blocks @block on. */
static __diskdump_text void
dd_encrypt(struct disk_dump_partition *part, unsigned long block,
	   u8 *buf, unsigned int n)
{
	u32 state[CHACHA_STATE_WORDS];
	unsigned int i;

	for (i = 0; i < n; i++, buf += PAGE_SIZE) {
		dd_chacha_init(state, part, block + i);
		chacha_crypt_generic(state, buf, buf, PAGE_SIZE, 20);
	}
	memzero_explicit(state, sizeof(state));
}

/* Start the MAC, keyed by the keystream of block 0 (which is in clear). */
static __diskdump_text void dd_mac_init(struct disk_dump_partition *part)
{
	u8 otk[POLY1305_KEY_SIZE] = { };
	u32 state[CHACHA_STATE_WORDS];

	dd_chacha_init(state, part, 0);
	chacha_crypt_generic(state, otk, otk, sizeof(otk), 20);
	poly1305_init_generic(&dd_run.mac, otk);
	memzero_explicit(otk, sizeof(otk));
	memzero_explicit(state, sizeof(state));
}

/*
 * Write @n blocks of the dump after the header, encrypting them first if
 * dumps are encrypted.  The MAC takes them in only once they are on disk,
 * so that it covers exactly the blocks the final header counts.
 */
static __diskdump_text int
dd_write_data(struct disk_dump_partition *part, unsigned long block,
	      void *buf, unsigned int n)
{
	int ret;

	if (dd_encrypting())
		dd_encrypt(part, block, buf, n);
	ret = dd_rw(part, DD_WRITE, block, buf, n);
	if (!ret && dd_encrypting())
		poly1305_update_generic(&dd_run.mac, buf, n * PAGE_SIZE);
	return ret;
}

/**
 * dd_fmt_mismatch - where a block differs from its formatted content
 * @block: the block as read from the partition
 * @block_nr: its index in the partition
 * @nr_blocks: the partition's size in blocks
 *
 * Every byte of a formatted block is determined by its index (see the
 * uapi header), so one sector that anything else wrote, zeros included,
 * shows here.
 *
 * Return: the offset of the first byte that differs, or -1 if none does.
 */
static __diskdump_text int
dd_fmt_mismatch(const void *block, unsigned long block_nr,
		unsigned long nr_blocks)
{
	const struct diskdump_fmt_block *fb = block;
	const u64 *word = block;
	unsigned int i;

	if (memcmp(fb->magic, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN))
		return offsetof(struct diskdump_fmt_block, magic);
	if (fb->endian != DISKDUMP_ENDIAN_MARK)
		return offsetof(struct diskdump_fmt_block, endian);
	if (fb->block_size != DISKDUMP_BLOCK_SIZE)
		return offsetof(struct diskdump_fmt_block, block_size);
	if (fb->block_nr != block_nr)
		return offsetof(struct diskdump_fmt_block, block_nr);
	if (fb->nr_blocks != nr_blocks)
		return offsetof(struct diskdump_fmt_block, nr_blocks);
	if (fb->version != DISKDUMP_FMT_VERSION)
		return offsetof(struct diskdump_fmt_block, version);
	if (fb->pad)
		return offsetof(struct diskdump_fmt_block, pad);
	for (i = DISKDUMP_FMT_HDR_WORDS; i < DISKDUMP_BLOCK_SIZE / 8; i++)
		if (word[i] != diskdump_fmt_word(block_nr, i))
			return i * 8;
	return -1;
}

#ifdef CONFIG_DISKDUMP_TEST
/*
 * For the "corrupttext" test hook: a byte in the middle of a function of
 * diskdump's own panic-path code that at panic runs only after the self
 * check (and before it only when a partition is added).
 */
u8 *dd_test_core_code_byte(void)
{
	unsigned long size, offset, addr = (unsigned long)dd_fmt_mismatch;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return NULL;
	return (u8 *)(addr - offset + size / 2);
}
#endif

/* Say why block @blk of @part is refused. */
static __diskdump_text void
dd_report_mismatch(const void *block, unsigned long blk, int off)
{
	const struct diskdump_fmt_block *fb = block;

	if (off == offsetof(struct diskdump_fmt_block, version) && !fb->version)
		pr_emerg("block %lu has diskdump format version 1: run diskdumpfmt again\n",
			 blk);
	else
		pr_emerg("block %lu is not a formatted dump block (byte %d differs): not writing here\n",
			 blk, off);
}

/*
 * Read blocks @first .. @end - 1 of the partition and check that every
 * byte of them is what the format puts there.  A filesystem, a swap area,
 * a dump that savecore has not saved yet, or one sector written over,
 * fails here.
 */
static __diskdump_text int
dd_check_blocks(struct disk_dump_partition *part, unsigned long first,
		unsigned long end)
{
	unsigned long nr_blocks = dd_part_blocks(part), blk, i;
	unsigned int chunk = dd_io_blocks(part);
	u64 start;
	int ret, off;

	for (blk = first; blk < end; blk += chunk) {
		unsigned int n = min_t(unsigned long, chunk, end - blk);

		ret = dd_rw(part, DD_READ, blk, dd_cfg.io_buf, n);
		if (ret) {
			pr_emerg("read error %d at block %lu\n", ret, blk);
			return ret;
		}
		start = ktime_get_mono_fast_ns();
		for (i = 0; i < n; i++) {
			void *block = dd_cfg.io_buf + i * PAGE_SIZE;

			off = dd_fmt_mismatch(block, blk + i, nr_blocks);
			if (off >= 0) {
				dd_report_mismatch(block, blk + i, off);
				return -EILSEQ;
			}
		}
		dd_run.verify_ns += ktime_get_mono_fast_ns() - start;
	}
	return 0;
}

/* The blocks the dump will write: header, notes, bitmaps and pages. */
static __diskdump_text unsigned long
dd_dump_extent(const struct diskdump_header *hdr)
{
	return min(hdr->data_block + hdr->nr_dump_pages, hdr->partition_blocks);
}

/*
 * Before anything is written: check every block the dump @hdr describes
 * will write (its extent) and the partition's last block, which says that
 * the format still spans the partition; or, under "check all", every
 * block, as the 2004 diskdump did.  A mismatch leaves the partition
 * untouched.  The cost follows the dump, not the partition; the blocks
 * past the extent are never written, so they need no check.
 */
static __diskdump_text int dd_check_signatures(struct disk_dump_partition *part,
					       struct diskdump_header *hdr)
{
	unsigned long nr_blocks = dd_part_blocks(part);
	unsigned long extent = dd_cfg.check_all ? nr_blocks : dd_dump_extent(hdr);
	u64 start = ktime_get_mono_fast_ns();
	int ret;

	dd_run.verify_ns = 0;
	ret = dd_check_blocks(part, 0, extent);
	if (!ret && extent < nr_blocks)
		ret = dd_check_blocks(part, nr_blocks - 1, nr_blocks);
	if (ret)
		return ret;
	hdr->check_ns = ktime_get_mono_fast_ns() - start;
	hdr->verify_ns = dd_run.verify_ns;
	hdr->check_blocks = extent + (extent < nr_blocks);
	pr_emerg("signature check: %llu of %lu blocks in %llu ms (%llu ms comparing)\n",
		 hdr->check_blocks, nr_blocks,
		 div_u64(hdr->check_ns, NSEC_PER_MSEC),
		 div_u64(hdr->verify_ns, NSEC_PER_MSEC));
	return 0;
}

static __diskdump_text bool dd_pfn_is_ram(unsigned long pfn)
{
	unsigned int i;

	for (i = 0; i < dd_cfg.nr_ram; i++)
		if (pfn >= dd_cfg.ram[i].start_pfn && pfn < dd_cfg.ram[i].end_pfn)
			return true;
	return false;
}

/*
 * The compound head of @page, or NULL if its compound_head field does not
 * look like one (a corrupt struct page must not send us astray).
 */
static __diskdump_text struct page *dd_head_page(struct page *page)
{
	unsigned long head = READ_ONCE(page->compound_head);
	struct page *h;

	if (!(head & 1))
		return page;
	h = (struct page *)(head - 1);
	if (h >= page || page - h >= (1L << MAX_PAGE_ORDER) || !pfn_valid(page_to_pfn(h)))
		return NULL;
	return h;
}

/*
 * How many pages from @pfn on the dump level leaves out: 0 to keep @pfn,
 * or the length of the run (a free buddy block) it starts.  Reads only the
 * struct pages, and @pfn's own memory for the zero test, never through a
 * pointer taken from them.  The classes are makedumpfile's -d bits.
 */
static __diskdump_text unsigned long
dd_excluded(unsigned long pfn, struct page *page, unsigned int level)
{
	struct page *head;
	unsigned long mapping, flags;
	bool anon, cache;

	if (!level)
		return 0;
	if ((level & DISKDUMP_EXCLUDE_FREE) && PageBuddy(page))
		return 1UL << min_t(unsigned long, page_private(page), MAX_PAGE_ORDER);
	head = dd_head_page(page);
	/*
	 * The folio tests on the head dd_head_page() found, not PageSlab():
	 * its page_folio() tests a static key, which would change this
	 * code, and the self check would refuse every dump after.
	 */
	if (head && !folio_test_slab((struct folio *)head) && !PageBuddy(head)) {
		mapping = (unsigned long)READ_ONCE(head->mapping);
		flags = READ_ONCE(head->flags);
		anon = mapping & PAGE_MAPPING_ANON;
		cache = !anon && mapping &&
			((flags & BIT(PG_lru)) ||
			 ((flags & BIT(PG_swapcache)) && (flags & BIT(PG_swapbacked))));
		if ((level & DISKDUMP_EXCLUDE_USER) && anon)
			return 1;
		if ((level & DISKDUMP_EXCLUDE_CACHE_PRI) && cache)
			return 1;
		if ((level & DISKDUMP_EXCLUDE_CACHE) && cache && !(flags & BIT(PG_private)))
			return 1;
	}
	if ((level & DISKDUMP_EXCLUDE_ZERO) &&
	    !copy_from_kernel_nofault(dd_cfg.io_buf, pfn_to_kaddr(pfn), PAGE_SIZE) &&
	    !memchr_inv(dd_cfg.io_buf, 0, PAGE_SIZE))
		return 1;
	return 0;
}

/*
 * A page the memory-failure code took out of use: reading it may raise
 * a machine check, so it is never read, whatever the dump level.  A
 * hugetlb page carries the mark on its head for all its pages.
 */
static __diskdump_text bool dd_hwpoisoned(struct page *page)
{
	struct page *head;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		return false;
	if (PageHWPoison(page))
		return true;
	head = dd_head_page(page);
	return head && head != page && PageHWPoison(head) &&
	       folio_test_hugetlb((struct folio *)head);
}

/*
 * Pages from @pfn on that are not backed: 1 for a page a balloon or
 * virtio-mem took back from the guest (logically offline), a whole
 * MAX_ORDER block for one never accepted by a confidential guest (only
 * its first page is marked); 0 for a page that may be read.  Reading them
 * may fault or touch memory the hypervisor reclaimed; makedumpfile leaves
 * them out too, whatever the level.  (A block being accepted when its CPU
 * was stopped is no longer marked: that window stays.)
 */
static __diskdump_text unsigned long dd_not_backed(struct page *page)
{
	if (PageUnaccepted(page))
		return MAX_ORDER_NR_PAGES;
	return PageOffline(page) ? 1 : 0;
}

/*
 * Which kernel pages a truncated dump takes first, after the kernel's page
 * tables and the panicking task (dd_walk_kernel(), dd_pick_current()):
 * reserved memory (the kernel image and what memblock gave out at boot:
 * mem_map, the first per-CPU chunk with the IRQ stacks, the log), then the
 * slabs, which hold the tasks.  The level's other pages come after.
 */
enum dd_tier {
	DD_TIER_RESERVED,
	DD_TIER_SLAB,
	DD_TIER_ANY,
};

/*
 * Whether @page belongs to @tier.  PG_reserved is read from the flags
 * word: PageReserved()'s debug check would trip on a poisoned struct page.
 */
static __diskdump_text bool dd_in_tier(struct page *page, enum dd_tier tier)
{
	struct page *head;

	if (tier == DD_TIER_ANY || test_bit(PG_reserved, &page->flags))
		return true;
	if (tier == DD_TIER_RESERVED)
		return false;
	head = dd_head_page(page);
	return head && folio_test_slab((struct folio *)head);
}

/*
 * Add to the dump bitmap the RAM pages of @tier that @level keeps and that
 * are not in it yet, in PFN order, until it holds @room pages; @n is how
 * many it holds now.  Poisoned pages are never chosen (and counted).
 * Return the new count.
 */
static __diskdump_text unsigned long
dd_select_level(unsigned int level, enum dd_tier tier, unsigned long room,
		unsigned long n)
{
	unsigned long pfn, skip;
	struct page *page;
	unsigned int i;

	for (i = 0; i < dd_cfg.nr_ram && n < room; i++) {
		for (pfn = dd_cfg.ram[i].start_pfn;
		     pfn < dd_cfg.ram[i].end_pfn && n < room; pfn++) {
			if (test_bit(pfn, dd_cfg.dump_map))
				continue;
			/* without a struct page to judge it by, keep it */
			page = pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
			if (page && dd_hwpoisoned(page)) {
				dd_run.hwpoison_pages++;
				continue;
			}
			/* before the level's tests, which may read the page */
			if (page && !dd_in_tier(page, tier))
				continue;
			skip = page ? dd_not_backed(page) ?: dd_excluded(pfn, page, level) : 0;
			if (skip) {
				pfn += skip - 1;
				continue;
			}
			__set_bit(pfn, dd_cfg.dump_map);
			n++;
		}
	}
	return n;
}

/* What a walk of the kernel's page tables picks. */
enum dd_walk {
	DD_WALK_TABLES,		/* the tables themselves */
	DD_WALK_MODULES,	/* the pages mapped in module space */
	DD_WALK_VMALLOC,	/* the pages mapped in vmalloc space */
};

/* A selection in progress: the dump bitmap holds @n pages of @room. */
struct dd_pick {
	unsigned long room;
	unsigned long n;
	enum dd_walk walk;
};

/*
 * Put @pfn in the dump, if it is RAM that may be read, not there yet, and
 * there is room.  A page mapped in vmalloc space that the dump level
 * leaves out (user memory mapped there too) stays out.
 */
static __diskdump_text void dd_pick_pfn(struct dd_pick *pick, unsigned long pfn)
{
	struct page *page;

	if (!pfn || pick->n >= pick->room || !dd_pfn_is_ram(pfn))
		return;
	if (pfn_valid(pfn)) {
		page = pfn_to_page(pfn);
		if (dd_hwpoisoned(page) || dd_not_backed(page))
			return;
		if (pick->walk != DD_WALK_TABLES &&
		    dd_excluded(pfn, page, dd_cfg.dump_level & ~DISKDUMP_EXCLUDE_ZERO))
			return;
	}
	if (!__test_and_set_bit(pfn, dd_cfg.dump_map))
		pick->n++;
}

/*
 * Whether the page table at @pfn, which an entry points to, may be read: a
 * RAM page with a struct page, neither poisoned, given back nor free, and
 * mapped (a page freed under DEBUG_PAGEALLOC is not).  An entry that is
 * corrupt, or whose table was freed by a CPU stopped before it cleared the
 * entry, must not make the walk fault.
 */
static __diskdump_text bool dd_table_ok(unsigned long pfn)
{
	struct page *page;
	unsigned long probe;

	if (!pfn_valid(pfn) || !dd_pfn_is_ram(pfn))
		return false;
	page = pfn_to_page(pfn);
	if (dd_hwpoisoned(page) || dd_not_backed(page) || PageBuddy(page))
		return false;
	return !copy_from_kernel_nofault(&probe, pfn_to_kaddr(pfn), sizeof(probe));
}

/*
 * Whether to read the table at @pfn: one that may be read, and, when the
 * walk picks the tables, one not picked before (the KASAN shadow maps one
 * table under many entries: it is walked once).
 */
static __diskdump_text bool dd_descend(struct dd_pick *pick, unsigned long pfn)
{
	if (!dd_table_ok(pfn))
		return false;
	if (pick->walk != DD_WALK_TABLES)
		return true;
	if (pick->n >= pick->room || __test_and_set_bit(pfn, dd_cfg.dump_map))
		return false;
	pick->n++;
	return true;
}

/*
 * The address the indices of a walk make: the top bit of the virtual
 * address space extends to the bits above it, as the CPU does.
 */
static __diskdump_text unsigned long dd_walk_addr(unsigned long addr)
{
	unsigned int bits = PGDIR_SHIFT + ilog2(PTRS_PER_PGD);

	if (bits < BITS_PER_LONG && (addr & BIT(bits - 1)))
		addr |= ~0UL << bits;
	return addr;
}

/* diskdump's own scratch buffers, which a truncated dump can do without. */
static __diskdump_text bool dd_own_buffer(unsigned long addr)
{
	unsigned long io = (unsigned long)dd_cfg.io_buf;
	unsigned long map = (unsigned long)dd_cfg.dump_map;

	return (addr >= io && addr - io < DISKDUMP_IO_BLOCKS * PAGE_SIZE) ||
	       (addr >= map && addr - map < dd_cfg.dump_map_blocks * PAGE_SIZE);
}

/*
 * Whether [@addr, @addr + @size) (as the indices make it) meets the
 * space the walk picks pages of; every address for the tables.
 */
static __diskdump_text bool dd_walk_wants(const struct dd_pick *pick,
					  unsigned long addr, unsigned long size)
{
	unsigned long start = dd_walk_addr(addr), last = start + (size - 1);

	switch (pick->walk) {
	case DD_WALK_MODULES:
		return start < MODULES_END && last >= MODULES_VADDR;
	case DD_WALK_VMALLOC:
		return start <= VMALLOC_END && last >= VMALLOC_START;
	default:
		return true;
	}
}

/* The pages a PTE table maps, in the space the walk picks. */
static __diskdump_text void dd_walk_pte(struct dd_pick *pick, pmd_t *pmd,
					unsigned long addr)
{
	pte_t *pte = pte_offset_kernel(pmd, 0);
	unsigned long a;
	unsigned int i;
	pte_t entry;

	for (i = 0; i < PTRS_PER_PTE && pick->n < pick->room; i++) {
		a = addr | (unsigned long)i << PAGE_SHIFT;
		entry = ptep_get(pte + i);
		if (pte_present(entry) && dd_walk_wants(pick, a, PAGE_SIZE) &&
		    !dd_own_buffer(dd_walk_addr(a)))
			dd_pick_pfn(pick, pte_pfn(entry));
	}
}

static __diskdump_text void dd_walk_pud(struct dd_pick *pick, pud_t *pud,
					unsigned long addr)
{
	unsigned long a;
	unsigned int i, j;
	pmd_t entry;

	for (i = 0; i < PTRS_PER_PMD && pick->n < pick->room; i++) {
		a = addr | (unsigned long)i << PMD_SHIFT;
		entry = pmdp_get(pmd_offset(pud, a));
		if (pmd_none(entry) || !dd_walk_wants(pick, a, PMD_SIZE))
			continue;
		/* before pmd_bad(), which a huge page's entry is to x86 */
		if (pmd_leaf(entry)) {
			for (j = 0; pick->walk != DD_WALK_TABLES && j < PTRS_PER_PTE; j++)
				dd_pick_pfn(pick, pmd_pfn(entry) + j);
			continue;
		}
		if (!pmd_bad(entry) && dd_descend(pick, pmd_pfn(entry)) &&
		    pick->walk != DD_WALK_TABLES)
			dd_walk_pte(pick, pmd_offset(pud, a), a);
	}
}

static __diskdump_text void dd_walk_p4d(struct dd_pick *pick, p4d_t *p4d,
					unsigned long addr)
{
	unsigned long a;
	unsigned int i;
	pud_t entry;

	for (i = 0; i < PTRS_PER_PUD && pick->n < pick->room; i++) {
		a = addr | (unsigned long)i << PUD_SHIFT;
		entry = pudp_get(pud_offset(p4d, a));
		/* a 1 GiB page maps only the direct map */
		if (pud_none(entry) || pud_leaf(entry) || pud_bad(entry) ||
		    !dd_walk_wants(pick, a, PUD_SIZE))
			continue;
		if (dd_descend(pick, pud_pfn(entry)))
			dd_walk_pud(pick, pud_offset(p4d, a), a);
	}
}

/*
 * Walk the kernel's page tables from init_mm and pick, as @pick->walk
 * says, the tables themselves (a reader translates every virtual address
 * through them, and the PTE pages of vmalloc space carry no page type in
 * 6.12) or the pages mapped in module or vmalloc space (the modules, the
 * tasks' stacks).  Every table is checked before it is read
 * (dd_table_ok()), and the walk ends when the dump is full.
 */
static __diskdump_text void dd_walk_kernel(struct dd_pick *pick)
{
	unsigned long addr;
	unsigned int i, j;
	pgd_t *pgd, entry;
	p4d_t *p4d;

	if (pick->walk == DD_WALK_TABLES)
		dd_pick_pfn(pick, PHYS_PFN(__pa(init_mm.pgd)));
	for (i = 0; i < PTRS_PER_PGD && pick->n < pick->room; i++) {
		addr = (unsigned long)i << PGDIR_SHIFT;
		pgd = init_mm.pgd + i;
		entry = pgdp_get(pgd);
		if (pgd_none(entry) || pgd_bad(entry) ||
		    !dd_walk_wants(pick, addr, PGDIR_SIZE))
			continue;
		/* the P4D level is folded into the PGD without 5-level paging */
		if (PTRS_PER_P4D > 1 && !dd_descend(pick, pgd_pfn(entry)))
			continue;
		for (j = 0; j < PTRS_PER_P4D && pick->n < pick->room; j++) {
			addr = (unsigned long)i << PGDIR_SHIFT |
			       (unsigned long)j << P4D_SHIFT;
			p4d = p4d_offset(pgd, addr);
			if (p4d_none(*p4d) || p4d_bad(*p4d) ||
			    !dd_walk_wants(pick, addr, P4D_SIZE))
				continue;
			if (dd_descend(pick, p4d_pfn(*p4d)))
				dd_walk_p4d(pick, p4d, addr);
		}
	}
}

/*
 * The page of the panicking task's kernel address @addr, found as the
 * walk finds pages (vmalloc_to_pfn() would WARN on an odd entry, and
 * panic again under panic_on_warn); 0 if it is not mapped.
 */
static __diskdump_text unsigned long dd_kernel_pfn(unsigned long addr)
{
	pgd_t *pgd = pgd_offset_k(addr);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;
	pte_t pte;

	if (!is_vmalloc_or_module_addr((void *)addr))
		return virt_addr_valid(addr) ? PHYS_PFN(__pa(addr)) : 0;
	if (pgd_none(*pgd) || pgd_bad(*pgd) ||
	    (PTRS_PER_P4D > 1 && !dd_table_ok(pgd_pfn(*pgd))))
		return 0;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(*p4d) || p4d_bad(*p4d) || !dd_table_ok(p4d_pfn(*p4d)))
		return 0;
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud) || pud_leaf(*pud) || pud_bad(*pud) ||
	    !dd_table_ok(pud_pfn(*pud)))
		return 0;
	pmd = pmd_offset(pud, addr);
	if (pmd_leaf(*pmd))
		return pmd_pfn(*pmd) + pte_index(addr);
	if (pmd_none(*pmd) || pmd_bad(*pmd) || !dd_table_ok(pmd_pfn(*pmd)))
		return 0;
	pte = ptep_get(pte_offset_kernel(pmd, addr));
	return pte_present(pte) ? pte_pfn(pte) : 0;
}

/*
 * The panicking task's stack and task_struct: a reader's first backtrace.
 * (The stacks of the tasks the other CPUs ran come with vmalloc's pages.)
 */
static __diskdump_text void dd_pick_current(struct dd_pick *pick)
{
	unsigned long stack = (unsigned long)task_stack_page(current);
	unsigned long task = (unsigned long)current, off;

	for (off = 0; off < THREAD_SIZE; off += PAGE_SIZE)
		dd_pick_pfn(pick, dd_kernel_pfn(stack + off));
	for (off = 0; off < arch_task_struct_size; off += PAGE_SIZE)
		dd_pick_pfn(pick, dd_kernel_pfn(task + off));
	dd_pick_pfn(pick, dd_kernel_pfn(task + arch_task_struct_size - 1));
}

/*
 * Choose the pages to dump: every RAM page, less the poisoned ones and
 * what the dump level excludes.  The choice is made once, before anything
 * is written, so the dump bitmap and the pages agree even though writing
 * changes memory.
 *
 * If they do not all fit in @room blocks, the dump is truncated, unless
 * @cut_ok is false (0 is returned then, the header flagged truncated).
 * Then what a reader needs first comes first, so that what fits still
 * opens in crash and drgn: the kernel's page tables, the panicking task,
 * reserved memory, the slabs (these two in PFN order), the pages mapped in
 * vmalloc space, then in module space (in address order), the other
 * kernel pages, and last the level's other pages (in PFN order).
 * dd_run.whole_pages is what the whole dump has.
 */
static __diskdump_text unsigned long dd_select_pages(struct diskdump_header *hdr,
						     unsigned long room,
						     bool cut_ok)
{
	/* no zero test unless the level asks: it reads every page */
	unsigned int kernel = (DISKDUMP_EXCLUDE_ALL & ~DISKDUMP_EXCLUDE_ZERO) |
			      dd_cfg.dump_level;
	struct dd_pick pick = { .room = room };
	unsigned long n, poisoned;

	memset(dd_cfg.dump_map, 0, dd_cfg.dump_map_blocks * PAGE_SIZE);
	dd_run.hwpoison_pages = 0;
	n = dd_select_level(dd_cfg.dump_level, DD_TIER_ANY, ULONG_MAX, 0);
	dd_run.whole_pages = n;
	if (n <= room)
		return n;
	hdr->flags |= DISKDUMP_FLAG_TRUNCATED;
	if (!cut_ok)
		return 0;
	pr_emerg("%lu pages do not fit in %lu blocks: kernel pages first\n",
		 n, room);
	poisoned = dd_run.hwpoison_pages;
	memset(dd_cfg.dump_map, 0, dd_cfg.dump_map_blocks * PAGE_SIZE);
	dd_walk_kernel(&pick);
	dd_pick_current(&pick);
	n = dd_select_level(kernel, DD_TIER_RESERVED, room, pick.n);
	n = dd_select_level(kernel, DD_TIER_SLAB, room, n);
	pick.n = n;
	/* the tasks' stacks before the modules */
	pick.walk = DD_WALK_VMALLOC;
	dd_walk_kernel(&pick);
	pick.walk = DD_WALK_MODULES;
	dd_walk_kernel(&pick);
	pr_emerg("%lu pages of page tables, the panicking task, reserved memory and slabs; %lu with vmalloc's and the modules'\n",
		 n, pick.n);
	n = dd_select_level(kernel, DD_TIER_ANY, room, pick.n);
	n = dd_select_level(dd_cfg.dump_level, DD_TIER_ANY, room, n);
	dd_run.hwpoison_pages = poisoned;
	return n;
}

/* Fill one block of the bitmap: the bits of PFNs first_pfn onwards. */
static __diskdump_text void dd_fill_bitmap_block(u8 *buf, unsigned long first_pfn)
{
	unsigned long bit, pfn;

	memset(buf, 0, PAGE_SIZE);
	for (bit = 0; bit < PAGE_SIZE * BITS_PER_BYTE; bit++) {
		pfn = first_pfn + bit;
		if (pfn >= dd_cfg.max_pfn)
			break;
		if (dd_pfn_is_ram(pfn))
			buf[bit / BITS_PER_BYTE] |= 1 << (bit % BITS_PER_BYTE);
	}
}

/*
 * The RAM bitmap, then the dump bitmap chosen at panic, block by block in
 * partition order (the order the MAC of an encrypted dump takes them in).
 */
static __diskdump_text int dd_write_bitmaps(struct disk_dump_partition *part,
					    struct diskdump_header *hdr)
{
	unsigned long b;
	int ret;

	for (b = 0; b < dd_cfg.bitmap_blocks; b++) {
		dd_fill_bitmap_block(dd_cfg.io_buf, b * PAGE_SIZE * BITS_PER_BYTE);
		ret = dd_write_data(part, hdr->bitmap_block + b, dd_cfg.io_buf, 1);
		if (ret)
			return ret;
	}
	for (b = 0; b < dd_cfg.bitmap_blocks; b++) {
		memcpy(dd_cfg.io_buf, (u8 *)dd_cfg.dump_map + b * PAGE_SIZE, PAGE_SIZE);
		ret = dd_write_data(part, hdr->bitmap_block + dd_cfg.bitmap_blocks + b,
				    dd_cfg.io_buf, 1);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Copy page @pfn for the dump.  Where the architecture has a machine-check
 * safe copy, a page whose poison nobody has seen yet costs that page, not
 * the dump; it needs the page mapped, which copy_from_kernel_nofault()
 * does not.  A page that cannot be read is written as 0xdd bytes and
 * counted in the header.
 */
static __diskdump_text void dd_copy_page(void *dst, unsigned long pfn)
{
	void *src = pfn_to_kaddr(pfn);
	bool failed;

	if (IS_ENABLED(CONFIG_ARCH_HAS_COPY_MC) &&
	    kernel_page_present(pfn_to_page(pfn)))
		failed = copy_mc_to_kernel(dst, src, PAGE_SIZE);
	else
		failed = copy_from_kernel_nofault(dst, src, PAGE_SIZE);
	if (failed) {
		memset(dst, 0xdd, PAGE_SIZE);
		dd_run.unreadable_pages++;
	}
}

/**
 * diskdump_copy_pages - copy RAM pages for the dump
 * @dst: where to, @nr pages
 * @pfns: the pages
 * @nr: how many
 *
 * The machine-check safe copy of each page (see dd_copy_page()), one after
 * the other in @dst: for the core, whose device cannot read them where
 * they are, and for a driver writing a failed write_pages again from
 * copies (its device may have failed to read a poisoned page).
 */
__diskdump_text void diskdump_copy_pages(void *dst, const unsigned long *pfns,
					 unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		dd_copy_page(dst + i * PAGE_SIZE, pfns[i]);
}
EXPORT_SYMBOL_GPL(diskdump_copy_pages);

/*
 * Can the device read page @pfn itself (write_pages)?  Not under "pages
 * copy", nor for an encrypted dump, whose bytes are not the page's, nor
 * for a page taken out of the kernel's direct map (secretmem, say), which
 * the copy writes as unreadable.
 */
static __diskdump_text bool
dd_page_direct(struct disk_dump_partition *part, unsigned long pfn)
{
	return part->dev->ops->write_pages && !dd_cfg.copy_pages &&
	       !dd_encrypting() && kernel_page_present(pfn_to_page(pfn));
}

/* Pages on their way to the disk: @n blocks from block @start. */
struct dd_batch {
	unsigned long start;
	unsigned int n;
	bool direct;		/* pfns in dd_run.pfns, else copies in io_buf */
};

/*
 * Start writing the batch; the next one follows it on the partition.  A
 * batch that failed leaves b->start at its first block.
 */
static __diskdump_text int
dd_flush_batch(struct disk_dump_partition *part, struct dd_batch *b)
{
	int ret = -ERANGE;

	if (!b->n)
		return 0;
	if (b->direct)
		ret = part->dev->ops->write_pages(part, b->start, dd_run.pfns,
						  b->n);
	if (ret == -ERANGE) {
		if (b->direct)
			diskdump_copy_pages(dd_cfg.io_buf, dd_run.pfns, b->n);
		ret = dd_write_data(part, b->start, dd_cfg.io_buf, b->n);
	} else if (ret) {
		dd_run.io_errors++;
	} else {
		dd_run.direct_pages += b->n;
	}
	if (!ret)
		b->start += b->n;
	b->n = 0;
	return ret;
}

/* Wait for the writes in flight; how many pages are sure to be written. */
static __diskdump_text int
dd_drain(struct disk_dump_partition *part, struct diskdump_header *hdr,
	 unsigned long *written)
{
	unsigned long bad = ULONG_MAX;
	int ret;

	if (!part->dev->ops->drain)
		return 0;
	ret = part->dev->ops->drain(part, &bad);
	if (ret) {
		dd_run.io_errors++;
		/* no block said (or a wrong one): nothing is sure */
		*written = bad >= hdr->data_block ?
			   min(*written, bad - hdr->data_block) : 0;
	}
	return ret;
}

/* Add page @pfn to the batch, writing the batch first if it cannot take it. */
static __diskdump_text int
dd_add_page(struct disk_dump_partition *part, struct dd_batch *b,
	    unsigned long pfn)
{
	bool direct = dd_page_direct(part, pfn);
	int ret;

	if (b->n && (b->direct != direct || b->n == dd_io_blocks(part))) {
		ret = dd_flush_batch(part, b);
		if (ret)
			return ret;
	}
	b->direct = direct;
	if (direct)
		dd_run.pfns[b->n] = pfn;
	else
		dd_copy_page(dd_cfg.io_buf + b->n * PAGE_SIZE, pfn);
	b->n++;
	return 0;
}

/* Say how far the dump is, every tenth of it. */
static __diskdump_text void
dd_report_progress(unsigned long written, unsigned long total,
		   unsigned long *next_report)
{
	if (written < *next_report)
		return;
	pr_emerg("%lu of %lu pages written\n", written, total);
	while (*next_report <= written)
		*next_report += max(total / 10, 1UL);
	if (written >= total / 10 * 8)
		dd_test_fault_point();
}

/*
 * Write the RAM pages in PFN order, as many as the partition holds, batching
 * them into writes of up to dd_io_blocks() blocks: those the device reads
 * itself through write_pages, the others copied for rw_block.  Never past
 * the dump's extent, the blocks the signature check saw.
 */
static __diskdump_text int dd_write_pages(struct disk_dump_partition *part,
					  struct diskdump_header *hdr)
{
	unsigned long end = dd_dump_extent(hdr), total = hdr->nr_dump_pages;
	struct dd_batch b = { .start = hdr->data_block };
	unsigned long pfn, written, next_report = max(total / 10, 1UL);
	unsigned int i;
	int ret = 0, err;

	for (i = 0; i < dd_cfg.nr_ram && !ret; i++) {
		for (pfn = dd_cfg.ram[i].start_pfn;
		     pfn < dd_cfg.ram[i].end_pfn && b.start + b.n < end && !ret;
		     pfn++) {
			if (!test_bit(pfn, dd_cfg.dump_map))
				continue;
			ret = dd_add_page(part, &b, pfn);
			dd_report_progress(b.start - hdr->data_block, total,
					   &next_report);
		}
	}
	if (!ret)
		ret = dd_flush_batch(part, &b);
	written = b.start - hdr->data_block;
	err = dd_drain(part, hdr, &written);
	hdr->written_pages = written;
	return ret ?: err;
}

static __diskdump_text void dd_fill_header(struct diskdump_header *hdr,
					   struct disk_dump_partition *part, const char *msg)
{
	struct new_utsname *uts = init_utsname();
	u64 now = ktime_get_real_fast_ns();
	u32 nsec;

	memset(hdr, 0, PAGE_SIZE);
	memcpy(hdr->magic, DISKDUMP_HDR_MAGIC, DISKDUMP_MAGIC_LEN);
	hdr->endian = DISKDUMP_ENDIAN_MARK;
	hdr->version = DISKDUMP_HDR_VERSION;
	hdr->header_size = sizeof(*hdr);
	hdr->block_size = PAGE_SIZE;
	hdr->status = DISKDUMP_STATUS_WRITING;
	hdr->panic_cpu = smp_processor_id();
	hdr->nr_cpus = num_online_cpus();
	hdr->time_sec = div_u64_rem(now, NSEC_PER_SEC, &nsec);
	hdr->time_nsec = nsec;
	hdr->partition_blocks = dd_part_blocks(part);
	hdr->max_pfn = dd_cfg.max_pfn;
	hdr->note_block = 1;
	hdr->bitmap_block = hdr->note_block + dd_cfg.note_blocks;
	hdr->bitmap_blocks = dd_cfg.bitmap_blocks;
	hdr->data_block = hdr->bitmap_block + 2 * dd_cfg.bitmap_blocks;
	hdr->nr_ram_pages = dd_cfg.nr_ram_pages;
	hdr->dump_level = dd_cfg.dump_level;
	hdr->page_offset = PAGE_OFFSET;
	hdr->kernel_vaddr = (unsigned long)_text;
	hdr->kernel_paddr = __pa_symbol(_text);
	hdr->kernel_size = _end - _text;
	hdr->start_sect = part->start_sect;
	strscpy(hdr->sysname, uts->sysname, sizeof(hdr->sysname));
	strscpy(hdr->nodename, uts->nodename, sizeof(hdr->nodename));
	strscpy(hdr->release, uts->release, sizeof(hdr->release));
	strscpy(hdr->version_str, uts->version, sizeof(hdr->version_str));
	strscpy(hdr->machine, uts->machine, sizeof(hdr->machine));
	strscpy(hdr->domainname, uts->domainname, sizeof(hdr->domainname));
	strscpy(hdr->panic_msg, msg ? msg : "", sizeof(hdr->panic_msg));
	if (dd_encrypting()) {
		hdr->cipher = DISKDUMP_CIPHER_CHACHA20_POLY1305;
		hdr->wrapped_key_size = dd_cfg.key.wrapped_size;
		memcpy(hdr->nonce, part->nonce, sizeof(hdr->nonce));
		memcpy(hdr->key_id, dd_cfg.key.key_id, sizeof(hdr->key_id));
		memcpy(hdr->wrapped_key, dd_cfg.key.wrapped, dd_cfg.key.wrapped_size);
		dd_mac_init(part);
	}
}

/* Write block 0; the final header of an encrypted dump gets the MAC. */
static __diskdump_text int dd_write_header(struct disk_dump_partition *part,
					   struct diskdump_header *hdr)
{
	hdr->crc = 0;
	memset(hdr->mac, 0, sizeof(hdr->mac));
	if (dd_encrypting() && hdr->status != DISKDUMP_STATUS_WRITING) {
		poly1305_update_generic(&dd_run.mac, (const u8 *)hdr, sizeof(*hdr));
		poly1305_final_generic(&dd_run.mac, hdr->mac);
	}
	hdr->crc = ~crc32_le(~0U, (const u8 *)hdr, sizeof(*hdr));
	return dd_rw(part, DD_WRITE, 0, hdr, 1);
}

/* Gather the CPUs' NT_PRSTATUS notes and the VMCOREINFO note. */
static __diskdump_text void dd_collect_notes(struct diskdump_header *hdr)
{
	size_t off = 0, len;
	int cpu;

	memset(dd_cfg.note_buf, 0, dd_cfg.note_blocks * PAGE_SIZE);
	for_each_online_cpu(cpu) {
		struct elf_note *note = (struct elf_note *)per_cpu_ptr(crash_notes, cpu);

		if (!note->n_namesz)
			continue;	/* this CPU did not answer the stop */
		len = sizeof(*note) + ALIGN(note->n_namesz, 4) +
		      ALIGN(note->n_descsz, 4);
		if (off + len > dd_cfg.note_bytes)
			break;
		memcpy(dd_cfg.note_buf + off, note, len);
		off += len;
		hdr->nr_cpu_notes++;
	}
	if (vmcoreinfo_note && off + VMCOREINFO_NOTE_SIZE <= dd_cfg.note_bytes) {
		struct elf_note *note = (struct elf_note *)vmcoreinfo_note;

		len = sizeof(*note) + ALIGN(note->n_namesz, 4) +
		      ALIGN(note->n_descsz, 4);
		memcpy(dd_cfg.note_buf + off, note, len);
		off += len;
	}
	hdr->note_size = off;
}

/*
 * Fill in the header for @part and choose the pages, which fixes the
 * dump's extent.  Nothing is written yet.  -EFBIG if the partition cannot
 * hold the whole dump and @cut_ok is false.
 */
static __diskdump_text int
dd_prepare_dump(struct disk_dump_partition *part, const char *msg, bool cut_ok)
{
	struct diskdump_header *hdr = dd_cfg.hdr;
	unsigned long room;

	dd_fill_header(hdr, part, msg);
	/*
	 * The notes first: dd_collect_notes() zeroes the note buffer, whose
	 * pages must not change after dd_select_pages() has seen them.
	 */
	dd_collect_notes(hdr);
	if (hdr->data_block >= hdr->partition_blocks) {
		pr_emerg("partition too small for the dump header\n");
		return -ENOSPC;
	}
	room = hdr->partition_blocks - hdr->data_block;
	hdr->nr_dump_pages = dd_select_pages(hdr, room, cut_ok);
	hdr->hwpoison_pages = dd_run.hwpoison_pages;
	if (!cut_ok && hdr->flags & DISKDUMP_FLAG_TRUNCATED) {
		pr_emerg("partition %u:%u holds %lu of the dump's %lu pages: trying the others for the whole dump first\n",
			 MAJOR(part->devt), MINOR(part->devt), room,
			 dd_run.whole_pages);
		return -EFBIG;
	}
	return 0;
}

static __diskdump_text int dd_write_dump(struct disk_dump_partition *part)
{
	struct diskdump_header *hdr = dd_cfg.hdr;
	unsigned long b;
	u64 start;
	int ret;

	pr_emerg("writing %llu pages, interrupts %s (dump level %u: %llu of %llu RAM pages left out)\n",
		 hdr->nr_dump_pages, irqs_disabled() ? "off" : "ON", hdr->dump_level,
		 hdr->nr_ram_pages - hdr->nr_dump_pages, hdr->nr_ram_pages);
	if (hdr->hwpoison_pages)
		pr_emerg("%llu hardware-poisoned pages left out\n",
			 hdr->hwpoison_pages);
	dd_run.unreadable_pages = 0;
	dd_run.direct_pages = 0;
	start = ktime_get_mono_fast_ns();
	WRITE_ONCE(dd_run.writing, true);	/* no going on after an oops */
	ret = dd_write_header(part, hdr);
	if (ret)
		return ret;
	dd_run.wrote = true;	/* its header says WRITING: savecore saves it */
	for (b = 0; b < dd_cfg.note_blocks && !ret; b++) {
		memcpy(dd_cfg.io_buf, dd_cfg.note_buf + b * PAGE_SIZE, PAGE_SIZE);
		ret = dd_write_data(part, hdr->note_block + b, dd_cfg.io_buf, 1);
	}
	if (!ret)
		ret = dd_write_bitmaps(part, hdr);
	if (!ret)
		ret = dd_write_pages(part, hdr);
	if (part->dev->ops->write_pages)
		pr_emerg("%lu pages read by the device itself, %llu copied\n",
			 dd_run.direct_pages,
			 hdr->written_pages - min_t(u64, hdr->written_pages,
						    dd_run.direct_pages));

	/*
	 * The pages on the medium before the header that says they are: a
	 * drive's write cache may write its blocks in any order.  The caller
	 * flushes again after the header.
	 */
	if (!ret && part->dev->ops->shutdown(part->dev)) {
		pr_emerg("cache flush before the final header failed\n");
		ret = -EIO;
	}
	if (ret)
		hdr->flags |= DISKDUMP_FLAG_IO_ERROR;
	else if (hdr->written_pages < hdr->nr_dump_pages)
		hdr->flags |= DISKDUMP_FLAG_TRUNCATED;
	if (dd_mode_counts()->irqs_seen_on)
		hdr->flags |= DISKDUMP_FLAG_IRQS_ON;
	hdr->timers_run = dd_mode_counts()->timers_run;
	hdr->tasklets_run = dd_mode_counts()->tasklets_run;
	hdr->unreadable_pages = dd_run.unreadable_pages;
	hdr->write_ns = ktime_get_mono_fast_ns() - start;
	hdr->status = hdr->flags & (DISKDUMP_FLAG_IO_ERROR | DISKDUMP_FLAG_TRUNCATED) ?
		      DISKDUMP_STATUS_INCOMPLETE : DISKDUMP_STATUS_COMPLETE;
	/* Best effort for the final header even after an I/O error. */
	if (dd_write_header(part, hdr) && !ret)
		ret = -EIO;
	return ret;
}

static bool dd_all_parked(void);

/*
 * Timers and tasklets that stayed pending, never run: a hint if a dump
 * went wrong.
 */
static __diskdump_text void dd_report_ignored(void)
{
	const struct dd_mode_stats *st = dd_mode_counts();

	if (st->timers_ignored)
		pr_emerg("timers of other code armed %llu times, never run; the first %ps\n",
			 st->timers_ignored, st->first_ignored);
	if (st->tasklets_ignored)
		pr_emerg("tasklets of other code: %llu left queued, never run; the first %ps\n",
			 st->tasklets_ignored, st->first_ignored_tasklet);
}

static __diskdump_text int dd_dump_partition(struct disk_dump_partition *part,
					     const char *msg, bool cut_ok)
{
	const struct disk_dump_device_ops *ops = part->dev->ops;
	u64 start;
	int ret;

	dd_run.io_errors = 0;
	pr_emerg("trying partition %u:%u (%llu sectors at %llu)\n",
		 MAJOR(part->devt), MINOR(part->devt),
		 (unsigned long long)part->nr_sects,
		 (unsigned long long)part->start_sect);
	/* A partition resized since it was armed: its blocks may be another's. */
	if (bdev_nr_sectors(file_bdev(part->bdev_file)) != part->nr_sects) {
		pr_emerg("the partition was resized since it was armed: not writing here\n");
		return -ESTALE;
	}
	if (part->dev->dma_locks && !dd_all_parked()) {
		pr_emerg("a CPU stopped where it was may hold the IOMMU's or swiotlb's locks, which this disk's driver takes to map the dump: not using it\n");
		return -EBUSY;
	}
	/* an oops from here to the end of quiesce may go on (dd_go_on()) */
	WRITE_ONCE(dd_run.in_driver, true);
	ret = ops->sanity_check(part->dev);
	if (ret) {
		pr_emerg("sanity check failed (%d)\n", ret);
		return ret;
	}
	start = ktime_get_mono_fast_ns();
	ret = ops->quiesce(part->dev);
	if (ret) {
		pr_emerg("quiesce failed (%d)\n", ret);
		return ret;
	}
	pr_emerg("quiesced in %llu ms\n",
		 div_u64(ktime_get_mono_fast_ns() - start, NSEC_PER_MSEC));
	dd_test_quiesce_point();
	/* an oops in diskdump's own page choice is not the driver's */
	WRITE_ONCE(dd_run.in_driver, false);
	ret = dd_prepare_dump(part, msg, cut_ok);
	if (ret)
		return ret;
	WRITE_ONCE(dd_run.in_driver, true);	/* the driver's reads */
	ret = dd_check_signatures(part, dd_cfg.hdr);
	WRITE_ONCE(dd_run.in_driver, false);
	if (ret)
		return ret;
	ret = dd_write_dump(part);
	if (ops->shutdown(part->dev) && !ret)
		ret = -EIO;
	if (ret)
		pr_emerg("dump failed (%d) after %llu pages, %lu failed I/O requests\n",
			 ret, dd_cfg.hdr->written_pages, dd_run.io_errors);
	else
		pr_emerg("dump complete: %llu pages in %llu ms%s\n",
			 dd_cfg.hdr->written_pages,
			 div_u64(dd_cfg.hdr->write_ns, NSEC_PER_MSEC),
			 dd_cfg.hdr->flags & DISKDUMP_FLAG_TRUNCATED ?
			 " (truncated: the partition is too small)" : "");
	dd_report_ignored();
	return ret;
}

/*
 * The other CPUs are parked before the NMIs stop them.  An NMI lands
 * anywhere, also where a CPU holds a lock that the dump needs and that is
 * only ever taken with interrupts off: a SCSI host lock in queuecommand or
 * in the HBA's interrupt handler, a libata port lock, a timer base, an
 * IOVA or swiotlb lock.  A CPU stopped there leaves that disk unusable
 * (sanity_check() refuses it) or the dump spinning.  A call-function IPI
 * is only taken where interrupts are on, outside all of those (or by an
 * idle CPU, from its idle loop): each CPU is sent one, and spins in
 * dd_park() until its NMI.  Its registers in the dump are then those of
 * dd_park(), with the interrupted context one exception frame below.  A
 * CPU that has not parked after DISKDUMP_PARK_US (interrupts off that
 * long, in its own panic or in an NMI handler) is stopped where it is.
 *
 * Only where the stop is an NMI, which reaches a parked CPU: x86 with its
 * own crash_stop_other_cpus (Xen PV's stop is an ordinary IPI), and not
 * PREEMPT_RT, whose spin_lock_irqsave() leaves interrupts on.
 */
#if defined(CONFIG_X86) && defined(CONFIG_SMP) && !defined(CONFIG_PREEMPT_RT)
static __diskdump_text void dd_park(void *unused)
{
	cpumask_set_cpu(smp_processor_id(), &dd_run.parked);
	for (;;)
		cpu_relax();
}

static DEFINE_PER_CPU(call_single_data_t, dd_park_csd) = CSD_INIT(dd_park, NULL);

/*
 * The IPI is sent again every DISKDUMP_PARK_RESEND_US to the CPUs not yet
 * parked: the call-function queue only sends one when the queue was
 * empty, and another CPU may have queued a call there and been parked (or
 * stopped) before it sent its own IPI.  An extra IPI only empties the
 * queue.
 */
static __diskdump_text void dd_park_cpus(void)
{
	unsigned int cpu, this = smp_processor_id(), us;

	if (!smp_ops.crash_stop_other_cpus)
		return;
	for_each_online_cpu(cpu)
		if (cpu != this)
			smp_call_function_single_async(cpu, per_cpu_ptr(&dd_park_csd, cpu));
	/* A CPU the call could not be queued for is waited for all the same. */
	for (us = 0; us < DISKDUMP_PARK_US; us += DISKDUMP_PARK_STEP_US) {
		cpumask_andnot(&dd_run.unparked, cpu_online_mask, &dd_run.parked);
		cpumask_clear_cpu(this, &dd_run.unparked);
		if (cpumask_empty(&dd_run.unparked))
			return;
		if (us % DISKDUMP_PARK_RESEND_US == 0)
			for_each_cpu(cpu, &dd_run.unparked)
				arch_send_call_function_single_ipi(cpu);
		udelay(DISKDUMP_PARK_STEP_US);
	}
	pr_emerg("CPUs %*pbl not parked in %u ms: stopped where they are\n",
		 cpumask_pr_args(&dd_run.unparked), DISKDUMP_PARK_US / 1000);
}

/* Were the other CPUs parked (or are there none)?  Known after the stop. */
static __diskdump_text bool dd_all_parked(void)
{
	return smp_ops.crash_stop_other_cpus && cpumask_empty(&dd_run.unparked);
}

/* Can the other CPUs be parked at panic? */
static bool dd_can_park(void)
{
	return smp_ops.crash_stop_other_cpus;
}
#else
/* Without SMP there is no other CPU to park; elsewhere they cannot be. */
static inline void dd_park_cpus(void) { }
static inline bool dd_all_parked(void) { return !IS_ENABLED(CONFIG_SMP); }
static inline bool dd_can_park(void) { return !IS_ENABLED(CONFIG_SMP); }
#endif

/**
 * diskdump_dma_takes_locks - does mapping a buffer at panic take locks?
 * @dma: the device the driver maps for
 * @buf: the buffer it maps at panic
 * @len: its length
 *
 * For a dump driver whose hardware driver maps the dump's buffer at panic
 * (a SCSI HBA in queuecommand), called from add_device.  Through an IOMMU,
 * swiotlb or other DMA ops, a mapping takes locks with interrupts off (the
 * IOVA allocator's, the flush and invalidation queues', an swiotlb
 * area's), and a CPU stopped inside one of them would leave the dump
 * spinning on it for ever.  diskdump parks the other CPUs outside them; a
 * device for which this returns true is not armed where they cannot be
 * parked, and is skipped at panic when one was not.
 *
 * Return: true if mapping @buf for @dma takes such locks.
 */
bool diskdump_dma_takes_locks(struct device *dma, void *buf, size_t len)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dma);
	phys_addr_t last = virt_to_phys(buf) + len - 1;

	if (get_dma_ops(dma) || (domain && iommu_is_dma_domain(domain)) ||
	    is_swiotlb_force_bounce(dma))
		return true;
	/* the direct mapping bounces what the device cannot reach */
	return is_swiotlb_active(dma) &&
	       last > min_not_zero(dma_get_mask(dma), dma->bus_dma_limit);
}
EXPORT_SYMBOL_GPL(diskdump_dma_takes_locks);

/**
 * diskdump_dma_direct - can a device read any RAM page at its address?
 * @dma: the device
 *
 * For a dump driver offering write_pages, called from add_device: true
 * where @dma's DMA goes straight to memory, with no IOMMU translation, no
 * DMA ops, no forced bounce buffers, no memory encryption and no cache
 * maintenance, so that the device can be handed a page's bus address,
 * phys_to_dma(), at panic without mapping anything.  The driver must still
 * check each page with dma_capable(): a device with a narrow DMA mask does
 * not reach all of RAM.
 *
 * Return: true if the device may read RAM pages unmapped.
 */
bool diskdump_dma_direct(struct device *dma)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dma);

	/* DMA API debugging maps with its own locks, and may allocate */
	if (IS_ENABLED(CONFIG_DMA_API_DEBUG))
		return false;
	return !get_dma_ops(dma) &&
	       (!domain || domain->type == IOMMU_DOMAIN_IDENTITY) &&
	       !is_swiotlb_force_bounce(dma) && dev_is_dma_coherent(dma) &&
	       !cc_platform_has(CC_ATTR_MEM_ENCRYPT);
}
EXPORT_SYMBOL_GPL(diskdump_dma_direct);

/**
 * diskdump_code_module - the module whose code holds a function
 * @fn: code that runs at panic, such as a SCSI host's dump hook
 *
 * For a dump type's add_device(), to name in &disk_dump_device.drivers
 * the module of code that runs at panic and may not be the driver's own
 * (libata's, for an ATA host's hooks).  The caller keeps that module
 * loaded (by holding one that needs it) until diskdump holds it.
 *
 * Return: the module, or NULL for code built into the kernel.
 */
struct module *diskdump_code_module(const void *fn)
{
	struct module *mod;

	preempt_disable();
	mod = __module_text_address((unsigned long)fn);
	preempt_enable();
	return mod;
}
EXPORT_SYMBOL_GPL(diskdump_code_module);

/* Stop the other CPUs and save everyone's registers, as kdump does. */
static __diskdump_text void dd_stop_cpus(void)
{
	crash_setup_regs(&dd_run.regs, NULL);
	crash_save_cpu(&dd_run.regs, smp_processor_id());
	dd_park_cpus();
	crash_smp_send_stop();
	dd_run.stopped = true;
	crash_save_vmcoreinfo();
}

static __diskdump_text bool dd_crc_matches(const char *what, u32 crc, u32 was)
{
	if (crc == was)
		return true;
	pr_emerg("checksum of diskdump code and data changed (%s: %08x, was %08x): memory is corrupt, not dumping\n",
		 what, crc, was);
	return false;
}

/*
 * A kernel that scribbled over the panic path's code or data must not be
 * trusted to write to a disk.
 */
static __diskdump_text bool dd_self_check(void)
{
	struct disk_dump_device *dev;

	if (!dd_crc_matches("diskdump's code", dd_crc_core_code(),
			    dd_core_code_crc))
		return false;
	if (!dd_crc_matches("configuration", dd_checksum(), dd_cfg_crc))
		return false;
	list_for_each_entry(dev, &dd_devices, list)
		if (!dd_crc_matches("a dump driver's code",
				    dd_crc_device_code(dev), dev->code_crc))
			return false;
	return true;
}

/*
 * Once a partition holds the dump, or part of it, the machine is best back
 * in service, as kdump's capture kernel reboots once it has saved the
 * dump.  With panic=0, the default of Debian's kernel and others, panic()
 * would never reboot: "reboot auto", the default, has it reboot at once
 * then, and leaves a panic= timeout the administrator set alone.  "reboot
 * N" sets the wait to N seconds whatever panic= says (0: none), "reboot
 * panic" leaves panic= as it is.  With no dump written panic() goes on as
 * without diskdump.
 */
static __diskdump_text void dd_reboot_after_dump(void)
{
	unsigned int secs = 0;

	switch (dd_cfg.reboot) {
	case DD_REBOOT_PANIC:
		return;
	case DD_REBOOT_AUTO:
		if (panic_timeout)
			return;
		break;
	case DD_REBOOT_AFTER:
		secs = dd_cfg.reboot_secs;
		break;
	}
	if (secs) {
		panic_timeout = secs;	/* panic() says "Rebooting in N seconds" */
		return;
	}
	pr_emerg("rebooting at once: the dump holds the panic message\n");
	panic_timeout = -1;		/* no wait */
}

/* The partition at @n in the order of the list, or NULL past its end. */
static __diskdump_text struct disk_dump_partition *dd_nth_partition(unsigned int n)
{
	struct disk_dump_device *dev;
	struct disk_dump_partition *part;

	list_for_each_entry(dev, &dd_devices, list)
		list_for_each_entry(part, &dev->partitions, list)
			if (!n--)
				return part;
	return NULL;
}

/* Whether @dev's driver, or one sharing its state, oopsed in this dump. */
static __diskdump_text bool dd_oopsed(const struct disk_dump_device *dev)
{
	unsigned int i;

	for (i = 0; i < dd_run.oopses; i++)
		if (dev == dd_run.oopsed[i] ||
		    (dev->host && dev->host == dd_run.oopsed[i]->host))
			return true;
	return false;
}

/*
 * A whole dump first, in the order of the list; only if no partition
 * holds it whole, a truncated one, in the same order, on those that were
 * passed over for their size (not on one that failed).  The place reached
 * is kept in dd_run, so that after an oops in a driver dd_go_on() carries
 * on from the partition after the one that oopsed.
 */
static __diskdump_text bool dd_try_partitions(void)
{
	struct disk_dump_partition *part;
	int ret;

	for (; dd_run.pass < 2; dd_run.pass++, dd_run.next = 0) {
		while ((part = dd_nth_partition(dd_run.next++))) {
			if (dd_oopsed(part->dev) ||
			    (dd_run.pass && !part->too_small))
				continue;
			if (!dd_run.pass)
				part->too_small = false;
			dd_run.writing = false;
			dd_run.in_driver = false;
			WRITE_ONCE(dd_run.trying, part);
			ret = dd_dump_partition(part, dd_run.msg, dd_run.pass != 0);
			WRITE_ONCE(dd_run.trying, NULL);
			if (!ret)
				return true;
			if (!dd_run.pass && ret == -EFBIG)
				part->too_small = true;
		}
	}
	return false;
}

/* The rest of the dump, whichever panic() got here, and then a reboot. */
static __diskdump_text void dd_finish_dump(void)
{
	bool done = dd_try_partitions();

	dd_mode_leave();
	if (!done)
		pr_emerg("no partition took the dump whole\n");
	/* Part of a dump, cut short by an I/O error, is still worth saving. */
	if (done || READ_ONCE(dd_run.wrote))
		dd_reboot_after_dump();
}

/*
 * The dump itself, from diskdump_panic().  The name is the one the 2004
 * diskdump gave its panic entry, and it matters: crash(8) finds where the
 * panic task's registers belong by looking for a start_disk_dump frame on
 * its stack, as it looks for machine_kexec in a kdump.  Without one it
 * searches the exception stacks instead and gives up.  So it is never
 * inlined or cloned under another name.
 */
static __diskdump_text noinline __noclone bool start_disk_dump(const char *msg)
{
	local_irq_disable();
	/*
	 * An oops from here on (a bad pointer in a dump driver) must panic
	 * again, whatever panic_on_oops says: otherwise oops_end() kills the
	 * task that panicked, and the machine, its other CPUs halted, hangs
	 * instead of rebooting.  The nested panic() finds dd_run.entered set
	 * and goes on to the next partition if it can (dd_go_on()), or gives
	 * up the dump and goes on to reboot; the partition's header says how
	 * far the dump got.  A nested panic() writes its own message over
	 * the first one: the dump keeps a copy.
	 */
	panic_on_oops = 1;
	dd_run.first_sp = current_stack_pointer;
	dd_run.first_ctx = preempt_count() & (NMI_MASK | HARDIRQ_MASK);
	strscpy(dd_run.msg, msg ? msg : "", sizeof(dd_run.msg));
	dd_stop_cpus();
	if (READ_ONCE(dd_cfg_busy)) {
		pr_emerg("configuration was being changed: not dumping\n");
		return true;
	}
	if (!dd_self_check())
		return true;
	/*
	 * Lockdown may have been raised since the partitions were armed in
	 * clear or with a key no trusted key vouches for.  Only the lockdown
	 * LSM's level is read here: other LSMs' hooks may take locks or
	 * allocate.
	 */
	if (!dd_key_trusted() && lockdown_reached(LOCKDOWN_DISKDUMP)) {
		pr_emerg("kernel lockdown forbids a dump not encrypted for a trusted key: not dumping\n");
		return true;
	}

	dd_mode_enter();
	/* a call, not a tail call: crash looks for this function's frame */
	dd_finish_dump();
	return true;
}

/*
 * The stack an oops in a dump driver may go on with: the panicking task's
 * own, where the dump began, with a guard page below it (an overflow is
 * then a double fault, on its own stack, which does not go on), and room
 * left for at least this much and for another round as deep as this one.
 */
#define DD_GO_ON_STACK		(4 * 1024)

/* Bytes of the task's stack left below @sp, or 0 if @sp is not on it. */
static __diskdump_text unsigned long dd_stack_left(unsigned long sp)
{
	unsigned long base = (unsigned long)task_stack_page(current);

	if (sp <= base || sp >= base + THREAD_SIZE)
		return 0;
	return sp - base;
}

/* Why the dump may not go on from the nested panic at @sp, or NULL. */
static __diskdump_text const char *dd_go_on_refused(unsigned long sp)
{
	unsigned long left = dd_stack_left(sp);

	if (dd_run.oopses >= DD_GO_ON_MAX)
		return "as many drivers as allowed failed already";
	if ((preempt_count() & (NMI_MASK | HARDIRQ_MASK)) != dd_run.first_ctx)
		return "it failed in NMI or interrupt context";
	if (!IS_ENABLED(CONFIG_VMAP_STACK) ||
	    !is_vmalloc_addr(task_stack_page(current)))
		return "the task's stack has no guard page";
	if (!dd_stack_left(dd_run.first_sp) || sp >= dd_run.first_sp)
		return "the dump did not begin on this stack";
	if (left < DD_GO_ON_STACK || left < dd_run.first_sp - sp)
		return "too little of the stack is left";
	return NULL;
}

/*
 * An oops (or a panic) in the driver of the partition being tried, before
 * anything was written to it, panicked again: the next partition may
 * still take the whole dump.  Only from a driver's operations (an oops in
 * diskdump's own code would come again), below the first attempt's frames
 * (which stay as they were, so the panicking task's registers and stack
 * in the dump are the first panic's), and a few times at most.
 */
static __diskdump_text bool dd_may_go_on(void)
{
	unsigned long sp = current_stack_pointer;
	struct disk_dump_partition *part = READ_ONCE(dd_run.trying);
	const char *why;

	if (!part || READ_ONCE(dd_run.writing) || !READ_ONCE(dd_run.in_driver))
		return false;
	why = dd_go_on_refused(sp);
	if (why) {
		pr_emerg("partition %u:%u's driver failed before writing, but the dump cannot go on: %s\n",
			 MAJOR(part->devt), MINOR(part->devt), why);
		return false;
	}
	pr_emerg("partition %u:%u's driver failed before writing: going on to the next partition (%lu bytes of stack left)\n",
		 MAJOR(part->devt), MINOR(part->devt), dd_stack_left(sp));
	return true;
}

/*
 * Every partition of the device whose driver oopsed, and of every device
 * that shares its host, is passed over: the driver's state, and the locks
 * it held, are unknown.  Its timers and tasklets are shelved, so that the
 * next driver's poll loop does not run them.
 */
static __diskdump_text noinline bool dd_go_on(void)
{
	unsigned int timers, tasklets;

	dd_run.oopsed[dd_run.oopses++] = dd_run.trying->dev;
	WRITE_ONCE(dd_run.trying, NULL);
	dd_mode_shelve(&timers, &tasklets);
	pr_emerg("%u timers and %u tasklets of the failed driver shelved\n",
		 timers, tasklets);
	dd_finish_dump();
	return true;
}

/**
 * diskdump_panic - write a crash dump; called from panic()
 * @msg: the panic message
 *
 * Runs on the panicking CPU with interrupts off.  Returns to panic() whether
 * or not a dump was written.  Called again by a panic during the dump, it
 * goes on to the next partition if nothing was written yet.
 *
 * Return: true if the other CPUs have been stopped (panic() must not try to
 * stop them again), false if diskdump did nothing.
 */
__diskdump_text bool diskdump_panic(const char *msg)
{
	if (list_empty(&dd_devices))
		return false;
	if (atomic_xchg(&dd_run.entered, 1)) {
		if (dd_may_go_on())
			return dd_go_on();
		pr_emerg("panic during the dump: giving up, the partition header says how far it got\n");
		if (READ_ONCE(dd_run.wrote))
			dd_reboot_after_dump();
		/* the other CPUs need not be stopped again */
		return READ_ONCE(dd_run.stopped);
	}
	return start_disk_dump(msg);
}

/* ------------------------------------------------------------------ */
/* Configuration                                                       */
/* ------------------------------------------------------------------ */

/*
 * A configuration change is made between dd_config_begin() and
 * dd_config_commit(): a panic in between refuses to dump, as the lists and
 * the checksum may not agree.  Only list and field updates go in between;
 * what is slow (opening a block device, a driver setting up its dump
 * queue, reading the partition) is done before, so that a panic while a
 * partition is being armed still dumps to those armed before.
 */
static void dd_config_begin(void)
{
	lockdep_assert_held(&dd_mutex);
	WRITE_ONCE(dd_cfg_busy, 1);
	smp_wmb();	/* busy is seen before any change */
}

/* dd_cfg and dd_devices change only between the two. */
static void dd_assert_config_open(void)
{
	lockdep_assert_held(&dd_mutex);
	WARN_ON_ONCE(!READ_ONCE(dd_cfg_busy));
}

static void dd_config_commit(void)
{
	lockdep_assert_held(&dd_mutex);
	dd_cfg_crc = dd_checksum();
	smp_wmb();	/* the changes and their checksum before !busy */
	WRITE_ONCE(dd_cfg_busy, 0);
}

/**
 * register_disk_dump_type - offer a class of dump devices
 * @type: the type; its probe is tried for every partition added later
 *
 * Return: 0.
 */
int register_disk_dump_type(struct disk_dump_type *type)
{
	mutex_lock(&dd_mutex);
	list_add_tail(&type->list, &dd_types);
	mutex_unlock(&dd_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(register_disk_dump_type);

static void dd_disarm_partition(struct disk_dump_partition *part);

/**
 * unregister_disk_dump_type - withdraw a class of dump devices
 * @type: the type; the partitions on its devices are removed
 */
void unregister_disk_dump_type(struct disk_dump_type *type)
{
	struct disk_dump_device *dev, *ndev;
	struct disk_dump_partition *part, *npart;

	mutex_lock(&dd_mutex);
	list_for_each_entry_safe(dev, ndev, &dd_devices, list) {
		if (dev->type != type)
			continue;
		list_for_each_entry_safe(part, npart, &dev->partitions, list)
			dd_disarm_partition(part);
	}
	list_del(&type->list);
	mutex_unlock(&dd_mutex);
}
EXPORT_SYMBOL_GPL(unregister_disk_dump_type);

/* The RAM ranges as walk_system_ram_range() finds them, before install. */
struct dd_ram_walk {
	struct dd_ram_range ram[DISKDUMP_MAX_RAM_RANGES];
	unsigned int nr_ram;
	unsigned long nr_ram_pages;
	unsigned long max_pfn;
};

/*
 * Add [start, end) to the walk's list, joined to the last range if it can;
 * 1 when the list is full.
 */
static int dd_add_online_range(struct dd_ram_walk *w, unsigned long start,
			       unsigned long end)
{
	struct dd_ram_range *last = w->nr_ram ? &w->ram[w->nr_ram - 1] : NULL;

	if (last && last->end_pfn == start) {
		last->end_pfn = end;
	} else {
		if (w->nr_ram == DISKDUMP_MAX_RAM_RANGES)
			return 1;	/* dd_buffers_alloc() says so */
		w->ram[w->nr_ram].start_pfn = start;
		w->ram[w->nr_ram].end_pfn = end;
		w->nr_ram++;
	}
	w->nr_ram_pages += end - start;
	w->max_pfn = max(w->max_pfn, end);
	return 0;
}

/* Memory goes online and offline by sections; without SPARSEMEM, never. */
#ifdef CONFIG_SPARSEMEM
#define DD_ONLINE_STEP	PAGES_PER_SECTION
#else
#define DD_ONLINE_STEP	(1UL << (BITS_PER_LONG - 2))
#endif

/*
 * A range of System RAM, without the memory sections that are offline:
 * memory being hot-removed stays System RAM until it is gone, but after
 * it went offline the dump must not read it.
 */
static int dd_add_ram_range(unsigned long start_pfn, unsigned long nr_pages,
			    void *arg)
{
	unsigned long pfn, next, end = start_pfn + nr_pages;
	int ret;

	for (pfn = start_pfn; pfn < end; pfn = next) {
		next = min(end, ALIGN(pfn + 1, DD_ONLINE_STEP));
		if (!pfn_to_online_page(pfn))
			continue;
		ret = dd_add_online_range(arg, pfn, next);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The panic path's buffers for the RAM there is now, allocated but not yet
 * in dd_cfg: a larger dump bitmap if RAM grew, and the first time the I/O,
 * note and header buffers.
 */
struct dd_buffers {
	struct dd_ram_walk walk;
	unsigned long bitmap_blocks;
	unsigned long *map;
	unsigned long map_blocks;
	void *io_buf;
	void *note_buf;
	struct diskdump_header *hdr;
	size_t note_bytes;
	bool clipped;
};

static struct dd_buffers dd_new;	/* under dd_mutex */

/* Keep the walk to the PFNs below @limit (a bitmap that cannot grow). */
static void dd_clip_walk(struct dd_ram_walk *w, unsigned long limit)
{
	unsigned int i, n = 0;

	w->nr_ram_pages = 0;
	w->max_pfn = 0;
	for (i = 0; i < w->nr_ram; i++) {
		if (w->ram[i].start_pfn >= limit)
			continue;
		w->ram[n].start_pfn = w->ram[i].start_pfn;
		w->ram[n].end_pfn = min(w->ram[i].end_pfn, limit);
		w->nr_ram_pages += w->ram[n].end_pfn - w->ram[n].start_pfn;
		w->max_pfn = w->ram[n].end_pfn;
		n++;
	}
	w->nr_ram = n;
}

/*
 * Walk RAM and allocate the buffers for it, under dd_mutex and
 * outside dd_config_begin()/dd_config_commit(): nothing in dd_cfg changes
 * here, so a panic meanwhile still dumps.  -ENOMEM if an allocation
 * failed.  But if the buffers exist already and only a larger bitmap
 * could not be had, @b holds the RAM list clipped to the bitmap there is
 * (@b->clipped): installing it keeps memory that went offline out of the
 * dump.
 */
static int dd_buffers_alloc(struct dd_buffers *b)
{
	lockdep_assert_held(&dd_mutex);
	memset(b, 0, sizeof(*b));
	/* to the end of iomem: not every architecture raises max_pfn */
	if (walk_system_ram_range(0, PHYS_PFN(iomem_resource.end), &b->walk,
				  dd_add_ram_range) > 0)
		pr_warn("more than %d RAM ranges: the dump leaves the rest out\n",
			DISKDUMP_MAX_RAM_RANGES);
	b->bitmap_blocks = DIV_ROUND_UP(b->walk.max_pfn,
					PAGE_SIZE * BITS_PER_BYTE);
	if (b->bitmap_blocks > dd_cfg.dump_map_blocks) {
		/* doubling: hot-adding a block at a time reallocates rarely */
		b->map_blocks = roundup_pow_of_two(b->bitmap_blocks);
		b->map = vzalloc(b->map_blocks * PAGE_SIZE);
		if (!b->map && dd_cfg.io_buf) {
			dd_clip_walk(&b->walk, dd_cfg.dump_map_blocks * PAGE_SIZE *
					       BITS_PER_BYTE);
			b->bitmap_blocks = DIV_ROUND_UP(b->walk.max_pfn,
							PAGE_SIZE * BITS_PER_BYTE);
			b->clipped = true;
			return 0;
		}
		if (!b->map)
			return -ENOMEM;
	}
	if (dd_cfg.io_buf)
		return 0;
	b->note_bytes = nr_cpu_ids * sizeof(note_buf_t) + VMCOREINFO_NOTE_SIZE;
	b->note_bytes = round_up(b->note_bytes, PAGE_SIZE);
	b->io_buf = vmalloc(DISKDUMP_IO_BLOCKS * PAGE_SIZE);
	b->note_buf = vmalloc(b->note_bytes);
	b->hdr = (void *)get_zeroed_page(GFP_KERNEL);
	if (!b->io_buf || !b->note_buf || !b->hdr) {
		vfree(b->io_buf);
		vfree(b->note_buf);
		free_page((unsigned long)b->hdr);
		vfree(b->map);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Put @b in dd_cfg, between dd_config_begin() and dd_config_commit().  Return
 * the bitmap it replaced, for vfree() after the commit.
 */
static unsigned long *dd_buffers_install(struct dd_buffers *b)
{
	unsigned long *old = NULL;

	dd_assert_config_open();
	memcpy(dd_cfg.ram, b->walk.ram, sizeof(dd_cfg.ram));
	dd_cfg.nr_ram = b->walk.nr_ram;
	dd_cfg.nr_ram_pages = b->walk.nr_ram_pages;
	dd_cfg.max_pfn = b->walk.max_pfn;
	dd_cfg.bitmap_blocks = b->bitmap_blocks;
	if (b->map) {
		old = dd_cfg.dump_map;
		dd_cfg.dump_map = b->map;
		dd_cfg.dump_map_blocks = b->map_blocks;
	}
	if (b->io_buf) {
		dd_cfg.io_buf = b->io_buf;
		dd_cfg.note_buf = b->note_buf;
		dd_cfg.hdr = b->hdr;
		dd_cfg.note_bytes = b->note_bytes;
		dd_cfg.note_blocks = b->note_bytes / PAGE_SIZE;
	}
	return old;
}

/*
 * Free the bitmap dd_buffers_install() replaced, unless a panic has begun:
 * a panic on a CPU that failed to stop this one may still be using it.
 */
static void dd_free_old_map(unsigned long *old_map)
{
	if (!atomic_read(&dd_run.entered))
		vfree(old_map);
}

/* Blocks a partition needs for the header, the notes and the bitmaps. */
static unsigned long dd_min_blocks(void)
{
	return 1 + dd_cfg.note_blocks + 2 * dd_cfg.bitmap_blocks + 1;
}

static struct disk_dump_partition *dd_find_partition(dev_t devt)
{
	struct disk_dump_device *dev;
	struct disk_dump_partition *part;

	lockdep_assert_held(&dd_mutex);
	list_for_each_entry(dev, &dd_devices, list)
		list_for_each_entry(part, &dev->partitions, list)
			if (part->devt == devt)
				return part;
	return NULL;
}

/*
 * Hold the modules below the dump type whose code runs at panic (an HBA
 * driver, libata): their text is read at panic and by the checksum.
 */
static int dd_get_drivers(struct disk_dump_device *dev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dev->drivers); i++) {
		if (!try_module_get(dev->drivers[i])) {
			while (i--)
				module_put(dev->drivers[i]);
			return -ENODEV;
		}
	}
	return 0;
}

static void dd_put_drivers(struct disk_dump_device *dev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dev->drivers); i++)
		module_put(dev->drivers[i]);
}

static void dd_free_device(struct disk_dump_device *dev)
{
	dev->type->remove_device(dev);
	dd_put_drivers(dev);
	module_put(dev->type->owner);
	kfree(dev);
}

/*
 * The text of the dump drivers' modules, whose timers run while dumping,
 * and the panic-path code in it, which the self check covers.
 */
static void dd_note_module_text(struct disk_dump_device *dev)
{
#ifdef CONFIG_MODULES
	struct module *mods[] = { dev->type->owner, dev->drivers[0], dev->drivers[1] };
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(mods) != ARRAY_SIZE(dev->module_text));
	for (i = 0; i < ARRAY_SIZE(mods); i++) {
		if (!mods[i])
			continue;
		/*
		 * Timers in the dump type's module and the HBA driver's run
		 * while dumping; the module of the host's dump hooks
		 * (libata) is only theirs where its code is __diskdump_text:
		 * its error handling timers must not run.
		 */
		if (i < 2) {
			dev->module_text[i].start =
				(unsigned long)mods[i]->mem[MOD_TEXT].base;
			dev->module_text[i].end = dev->module_text[i].start +
						  mods[i]->mem[MOD_TEXT].size;
		}
		dev->module_text[i].dump_start =
			(unsigned long)mods[i]->diskdump_text_start;
		dev->module_text[i].dump_end = dev->module_text[i].dump_start +
					       mods[i]->diskdump_text_size;
	}
#endif
}

/*
 * The dump device of @disk: an armed one, or a new one that a dump type's
 * add_device() has set up (*@is_new), not yet on dd_devices.
 */
static struct disk_dump_device *dd_find_device(struct gendisk *disk, bool *is_new)
{
	struct disk_dump_device *dev;
	struct disk_dump_type *type;
	void *data;

	lockdep_assert_held(&dd_mutex);
	*is_new = false;
	list_for_each_entry(type, &dd_types, list) {
		data = type->probe(disk);
		if (!data)
			continue;
		if (IS_ERR(data))
			return ERR_CAST(data);
		list_for_each_entry(dev, &dd_devices, list)
			if (dev->device == data)
				return dev;
		if (!try_module_get(type->owner))
			continue;
		dev = kzalloc(sizeof(*dev), GFP_KERNEL);
		if (!dev) {
			module_put(type->owner);
			return ERR_PTR(-ENOMEM);
		}
		INIT_LIST_HEAD(&dev->partitions);
		dev->device = data;
		dev->type = type;
		if (type->add_device(dev)) {
			kfree(dev);
			module_put(type->owner);
			continue;
		}
		if (dd_get_drivers(dev)) {
			type->remove_device(dev);
			kfree(dev);
			module_put(type->owner);
			continue;
		}
		dd_note_module_text(dev);
		dev->code_crc = dd_crc_device_code(dev);
		if (WARN_ON_ONCE(dev->ops->write_pages && !dev->ops->drain)) {
			dd_free_device(dev);
			return ERR_PTR(-EINVAL);
		}
		if (dev->dma_locks && !dd_can_park()) {
			pr_warn("%s: its driver maps the dump's buffers at panic through an IOMMU or swiotlb, and this kernel cannot keep the other CPUs out of their locks\n",
				disk->disk_name);
			dd_free_device(dev);
			return ERR_PTR(-EOPNOTSUPP);
		}
		*is_new = true;
		return dev;
	}
	return ERR_PTR(-ENODEV);
}

/*
 * Take @part off the configuration, between dd_config_begin() and
 * dd_config_commit().  Return: its device if @part was the device's last
 * partition (the device is then off the list too), else NULL.
 */
static struct disk_dump_device *
dd_unlink_partition(struct disk_dump_partition *part)
{
	struct disk_dump_device *dev = part->dev;

	dd_assert_config_open();
	list_del(&part->list);
	if (!list_empty(&dev->partitions))
		return NULL;
	list_del(&dev->list);
	return dev;
}

/*
 * Take @part off the configuration, close and free it, and its device with
 * its last partition (the driver then releases what it set up for the
 * dump).  The block device file's last fput() is deferred: it never closes
 * the disk under dd_mutex.  Once a dump has begun (on a CPU that could not
 * stop this one) the lists it walks are left alone.
 */
static void dd_disarm_partition(struct disk_dump_partition *part)
{
	struct disk_dump_device *gone;

	if (atomic_read(&dd_run.entered))
		return;
	dd_config_begin();
	gone = dd_unlink_partition(part);
	dd_config_commit();
	fput(part->bdev_file);
	kfree(part);
	if (gone)
		dd_free_device(gone);
}

static int dd_holder;	/* of the armed partitions' block devices */

/*
 * The disk of an armed partition is going away: its driver is being
 * unbound, its controller hot-unplugged, its SCSI device deleted, or it
 * failed for good.  Called with @bdev->bd_holder_lock held, which it must
 * drop: by del_gendisk(), before the driver tears the device down, or
 * earlier by blk_mark_disk_dead() (@surprise: the device is already gone
 * or dead).  Disarm the partition now: the dump driver unmaps its buffer
 * (an IOMMU mapping must not outlive the device) and deletes its NVMe
 * dump queue while the device is still there, and a disk that is going
 * away is no longer on the list the panic path tries.
 *
 * The caller may hold device, SCSI scan and PCI rescan locks: nothing
 * under dd_mutex may wait for a device to be removed.
 */
static void dd_bdev_mark_dead(struct block_device *bdev, bool surprise)
{
	struct disk_dump_partition *part;

	mutex_unlock(&bdev->bd_holder_lock);
	/* what bdev_mark_dead() does for a holder without this operation */
	if (!surprise)
		sync_blockdev(bdev);
	mutex_lock(&dd_mutex);
	part = dd_find_partition(bdev->bd_dev);
	if (part && file_bdev(part->bdev_file) == bdev) {
		pr_warn("%pg: its disk is going away%s: no longer a dump partition\n",
			bdev, surprise ? " (gone or dead)" : "");
		dd_disarm_partition(part);
	}
	mutex_unlock(&dd_mutex);
}

static const struct blk_holder_ops dd_holder_ops = {
	.mark_dead = dd_bdev_mark_dead,
};

/* Read block @blk of @bdev into @page from the disk, not the page cache. */
static int dd_read_block_sync(struct block_device *bdev, unsigned long blk,
			      struct page *page)
{
	struct bio_vec bvec;
	struct bio bio;
	int ret;

	bio_init(&bio, bdev, &bvec, 1, REQ_OP_READ);
	bio.bi_iter.bi_sector = (sector_t)blk << (PAGE_SHIFT - SECTOR_SHIFT);
	__bio_add_page(&bio, page, PAGE_SIZE, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

static void dd_report_dump_header(struct block_device *bdev,
				  const struct diskdump_header *hdr)
{
	if (hdr->flags & DISKDUMP_FLAG_SAVED)
		dd_cmd_err("%pg holds a crash dump that savecore saved but did not format again: run savecore on it\n",
			   bdev);
	else
		dd_cmd_err("%pg holds a crash dump that savecore has not saved: not arming it\n",
			   bdev);
}

/*
 * Before arming: the first and the last block must be formatted, so that a
 * partition named by mistake (a file system, a dump not saved yet, a
 * format that was interrupted, which leaves block 0 for last) is refused
 * now, with a reason, rather than at panic.  The panic-time check reads
 * every block the dump writes.
 *
 * Return: 0, -EMEDIUMTYPE (not formatted, said why), or a read error.
 */
static int dd_check_formatted(struct block_device *bdev,
			      unsigned long nr_blocks)
{
	unsigned long blks[2] = { 0, nr_blocks - 1 };
	struct page *page = alloc_page(GFP_KERNEL);
	const struct diskdump_fmt_block *fb;
	int i, off, ret = 0;

	if (!page)
		return -ENOMEM;
	fb = page_address(page);
	for (i = 0; i < ARRAY_SIZE(blks) && !ret; i++) {
		ret = dd_read_block_sync(bdev, blks[i], page);
		if (ret) {
			dd_cmd_err("%pg: read error %d at block %lu\n", bdev, ret, blks[i]);
			break;
		}
		off = dd_fmt_mismatch(fb, blks[i], nr_blocks);
		if (off < 0)
			continue;
		ret = -EMEDIUMTYPE;
		if (!memcmp(fb->magic, DISKDUMP_HDR_MAGIC, DISKDUMP_MAGIC_LEN))
			dd_report_dump_header(bdev, page_address(page));
		else if (!memcmp(fb->magic, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN) &&
			 !fb->version)
			dd_cmd_err("%pg has diskdump format version 1: run diskdumpfmt on it again\n",
				   bdev);
		else if (off == offsetof(struct diskdump_fmt_block, nr_blocks))
			dd_cmd_err("%pg was formatted with %llu blocks and has %lu now: run diskdumpfmt on it again\n",
				   bdev, fb->nr_blocks, nr_blocks);
		else
			dd_cmd_err("%pg is not formatted for diskdump (block %lu, byte %d): not arming it; see diskdumpfmt(8)\n",
				   bdev, blks[i], off);
	}
	__free_page(page);
	return ret;
}

/*
 * Check the format of @devt before taking the configuration lock: the
 * reads may take long on a failing disk, and while the configuration is
 * being changed a panic dumps nowhere.  What changes between this and the
 * exclusive open in dd_add_partition() is caught by the panic-time check.
 */
static int dd_check_device_formatted(dev_t devt)
{
	struct block_device *bdev;
	unsigned long nr_blocks;
	struct file *file;
	int ret = 0;

	file = bdev_file_open_by_dev(devt, BLK_OPEN_READ, NULL, NULL);
	if (IS_ERR(file))
		return PTR_ERR(file);
	bdev = file_bdev(file);
	nr_blocks = bdev_nr_sectors(bdev) >> (PAGE_SHIFT - SECTOR_SHIFT);
	/* too small, or sectors too large: dd_add_partition() says so */
	if (nr_blocks && bdev_logical_block_size(bdev) <= PAGE_SIZE)
		ret = dd_check_formatted(bdev, nr_blocks);
	fput(file);
	return ret;
}

/*
 * Arm the partition @devt: open it, find or set up its dump device, then
 * put both on the lists as one configuration change.
 */
static int dd_add_partition(dev_t devt)
{
	struct disk_dump_partition *part;
	struct disk_dump_device *dev;
	struct block_device *bdev;
	unsigned long *old_map;
	struct file *file;
	bool new_dev;
	int ret;

	if (dd_find_partition(devt))
		return -EEXIST;
	/*
	 * An unencrypted dump would put all of memory, in clear, on a disk,
	 * and root could read it with a key of its own: under
	 * lockdown=confidentiality only a key from a trusted certificate.
	 */
	if (!dd_key_trusted()) {
		ret = security_locked_down(LOCKDOWN_DISKDUMP);
		if (ret)
			return ret;
	}
	file = bdev_file_open_by_dev(devt, BLK_OPEN_READ | BLK_OPEN_WRITE,
				     &dd_holder, &dd_holder_ops);
	if (IS_ERR(file))
		return PTR_ERR(file);
	bdev = file_bdev(file);
	/*
	 * A disk marked dead before the claim above was not told to its
	 * holder operation (del_gendisk() does not report it again).
	 */
	if (test_bit(GD_DEAD, &bdev->bd_disk->state)) {
		ret = -ENXIO;
		goto out_put;
	}
	dd_test_add_point(bdev);
	dev = dd_find_device(bdev->bd_disk, &new_dev);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto out_put;
	}
	part = kzalloc(sizeof(*part), GFP_KERNEL);
	if (!part) {
		ret = -ENOMEM;
		goto out_dev;
	}
	part->dev = dev;
	part->bdev_file = file;
	part->devt = devt;
	part->start_sect = get_start_sect(bdev);
	part->nr_sects = bdev_nr_sectors(bdev);
	get_random_bytes(part->nonce, sizeof(part->nonce));

	ret = dd_buffers_alloc(&dd_new);
	if (!ret && dd_new.clipped)
		ret = -ENOMEM;
	if (ret)
		goto out_part;
	dd_config_begin();
	old_map = dd_buffers_install(&dd_new);
	if (bdev_logical_block_size(bdev) > PAGE_SIZE ||
	    (part->nr_sects >> (PAGE_SHIFT - SECTOR_SHIFT)) < dd_min_blocks()) {
		ret = -ENOSPC;
	} else {
		if (new_dev)
			list_add_tail(&dev->list, &dd_devices);
		list_add_tail(&part->list, &dev->partitions);
	}
	dd_config_commit();
	dd_free_old_map(old_map);
	if (!ret)
		return 0;
out_part:
	kfree(part);
out_dev:
	if (new_dev)
		dd_free_device(dev);
out_put:
	fput(file);
	return ret;
}

struct dd_partuuid {
	const char *uuid;
	dev_t devt;
	unsigned int found;
};

static int dd_match_partuuid(struct device *dev, void *data)
{
	struct block_device *bdev = dev_to_bdev(dev);
	struct dd_partuuid *want = data;

	if (bdev->bd_meta_info && bdev->bd_meta_info->uuid[0] &&
	    !strcasecmp(bdev->bd_meta_info->uuid, want->uuid)) {
		want->devt = dev->devt;
		want->found++;
	}
	return 0;
}

/*
 * The partition whose partition table entry has this UUID, as root= takes
 * it; but a UUID that two partitions share (a cloned disk) names none.
 */
static int dd_lookup_partuuid(const char *uuid, dev_t *devt)
{
	struct dd_partuuid want = { .uuid = uuid };

	if (!*uuid)
		return -EINVAL;
	class_for_each_device(&block_class, NULL, &want, dd_match_partuuid);
	if (!want.found)
		return -ENODEV;
	if (want.found > 1)
		return -ENOTUNIQ;
	*devt = want.devt;
	return 0;
}

/*
 * Parse "/dev/NAME" (symbolic links such as /dev/disk/by-partuuid/... are
 * followed), "PARTUUID=UUID" or "MAJOR:MINOR".
 */
static int dd_parse_device(const char *name, dev_t *devt)
{
	unsigned int maj, min;
	char end;

	if (!strncmp(name, "PARTUUID=", 9))
		return dd_lookup_partuuid(name + 9, devt);

	if (sscanf(name, "%u:%u%c", &maj, &min, &end) == 2) {
		*devt = MKDEV(maj, min);
		if (MAJOR(*devt) != maj || MINOR(*devt) != min)
			return -EINVAL;
		return 0;
	}
	if (name[0] != '/')
		return -EINVAL;
	return lookup_bdev(name, devt);
}

/* "level N": the classes of pages to leave out, DISKDUMP_EXCLUDE_* bits. */
static int dd_set_level(const char *arg)
{
	unsigned int level;

	if (kstrtouint(arg, 0, &level) || level > DISKDUMP_EXCLUDE_ALL) {
		dd_cmd_err("level: '%s' is not a dump level (0-%u: 1 zero, 2 cache, 4 cache with private data, 8 user, 16 free pages)\n",
			   arg, DISKDUMP_EXCLUDE_ALL);
		return -EINVAL;
	}
	mutex_lock(&dd_mutex);
	dd_config_begin();
	dd_cfg.dump_level = level;
	dd_config_commit();
	mutex_unlock(&dd_mutex);
	pr_info("dump level %u\n", level);
	return 0;
}

/*
 * A setting of two words ("check dump|all", "pages direct|copy"): what
 * each means, for the error, and what is logged once it is set.
 */
struct dd_choice {
	const char *cmd;
	const char *off, *off_means;	/* the default */
	const char *on, *on_means;
	const char *what, *off_set, *on_set;
};

/* Set the configuration flag @flag from "CMD @arg", @arg one of @c's words. */
static int dd_set_choice(const struct dd_choice *c, const char *arg, bool *flag)
{
	bool on;

	if (!strcmp(arg, c->on)) {
		on = true;
	} else if (!strcmp(arg, c->off)) {
		on = false;
	} else {
		dd_cmd_err("%s: '%s' is neither '%s' (%s) nor '%s' (%s)\n", c->cmd, arg,
			   c->off, c->off_means, c->on, c->on_means);
		return -EINVAL;
	}
	mutex_lock(&dd_mutex);
	dd_config_begin();
	*flag = on;
	dd_config_commit();
	mutex_unlock(&dd_mutex);
	pr_info("%s: %s\n", c->what, on ? c->on_set : c->off_set);
	return 0;
}

/*
 * "check dump" (the default): at panic, check the blocks the dump will
 * write and the last one; "check all": every block of the partition.
 */
static const struct dd_choice dd_check_choice = {
	.cmd = "check",
	.off = "dump", .off_means = "the blocks a dump writes",
	.on = "all", .on_means = "every block",
	.what = "panic-time check",
	.off_set = "the blocks a dump writes", .on_set = "every block",
};

/*
 * "pages direct" (the default): a device that can read the dump's pages
 * where they are does.  "pages copy": every page goes through the
 * machine-check safe copy, for platforms where a device reading memory
 * poison no one has seen yet is a fatal error rather than a failed write.
 */
static const struct dd_choice dd_pages_choice = {
	.cmd = "pages",
	.off = "direct", .off_means = "devices read the pages where they are",
	.on = "copy", .on_means = "every page copied first",
	.what = "pages",
	.off_set = "read by the device where it can",
	.on_set = "every page copied, machine-check safe",
};

/* "reboot auto", "reboot N" (seconds, 0: at once) or "reboot panic" */
static int dd_set_reboot(const char *arg)
{
	enum dd_reboot reboot = DD_REBOOT_AFTER;
	unsigned int secs = 0;

	if (!strcmp(arg, "auto")) {
		reboot = DD_REBOOT_AUTO;
	} else if (!strcmp(arg, "panic")) {
		reboot = DD_REBOOT_PANIC;
	} else if (kstrtouint(arg, 10, &secs) || secs > DD_REBOOT_MAX_SECS) {
		dd_cmd_err("reboot: '%s' is neither 'auto' (at once where panic= would never reboot), seconds from 0 to %d, nor 'panic' (as panic= says)\n",
			   arg, DD_REBOOT_MAX_SECS);
		return -EINVAL;
	}
	mutex_lock(&dd_mutex);
	dd_config_begin();
	dd_cfg.reboot = reboot;
	dd_cfg.reboot_secs = secs;
	dd_config_commit();
	mutex_unlock(&dd_mutex);
	if (reboot == DD_REBOOT_AUTO)
		pr_info("after a dump: reboot at once where panic= would never reboot\n");
	else if (reboot == DD_REBOOT_PANIC)
		pr_info("after a dump: reboot as panic= says\n");
	else if (secs)
		pr_info("after a dump: reboot in %u seconds\n", secs);
	else
		pr_info("after a dump: reboot at once\n");
	return 0;
}

/*
 * The public exponent of an RSA key: odd and at least 65537 (NIST SP
 * 800-56B).  With e = 1 "wrapping" the dump key would leave it in clear in
 * every dump header, and the crypto API takes any exponent.
 */
static int dd_check_exponent(const char *cmd, const u8 *der, unsigned int len)
{
	struct rsa_key raw = {};
	size_t i;
	u64 e = 0;

	if (rsa_parse_pub_key(&raw, der, len))
		return -EINVAL;
	for (i = 0; i < raw.e_sz; i++) {
		if (e >> 56)
			return 0;	/* more than 64 bits: large enough */
		e = e << 8 | raw.e[i];
	}
	if (e < 65537 || !(e & 1)) {
		dd_cmd_err("%s: RSA public exponent %llu; an odd exponent of at least 65537 is needed\n",
			   cmd, e);
		return -EINVAL;
	}
	return 0;
}

/*
 * Make a fresh dump key and wrap it for the RSA public key @der (DER,
 * PKCS#1 RSAPublicKey), which came with the command @cmd.  Here, in
 * process context, never at panic time.
 */
static int dd_make_key(const char *cmd, const u8 *der, unsigned int len,
		       struct dd_key *k)
{
	struct crypto_akcipher *tfm;
	unsigned int size;
	int ret;

	tfm = crypto_alloc_akcipher("pkcs1pad(rsa)", 0, 0);
	if (IS_ERR(tfm)) {
		dd_cmd_err("%s: no RSA in this kernel (%ld)\n", cmd, PTR_ERR(tfm));
		return PTR_ERR(tfm);
	}
	ret = crypto_akcipher_set_pub_key(tfm, der, len);
	if (ret) {
		dd_cmd_err("%s: not an RSA public key in DER, PKCS#1 RSAPublicKey form (%d)\n",
			   cmd, ret);
		goto out;
	}
	ret = dd_check_exponent(cmd, der, len);
	if (ret)
		goto out;
	size = crypto_akcipher_maxsize(tfm);
	if (size < 256 || size > DISKDUMP_WRAPPED_MAX) {
		dd_cmd_err("%s: a %u-bit RSA key; 2048 to 4096 bits are supported\n",
			   cmd, size * BITS_PER_BYTE);
		ret = -EINVAL;
		goto out;
	}
	ret = get_random_bytes_wait(k->key, sizeof(k->key));
	if (!ret)
		ret = crypto_akcipher_sync_encrypt(tfm, k->key, sizeof(k->key),
						   k->wrapped, size);
	if (ret) {
		dd_cmd_err("%s: cannot wrap the dump key (%d)\n", cmd, ret);
		goto out;
	}
	k->wrapped_size = size;
	sha256(der, len, k->key_id);
	k->on = true;
out:
	crypto_free_akcipher(tfm);
	return ret;
}

/* Install @k (or, if NULL, stop encrypting) as one configuration change. */
static int dd_install_key(const struct dd_key *k)
{
	int ret = 0;

	mutex_lock(&dd_mutex);
	/*
	 * Without a key the armed partitions would take dumps in clear; an
	 * untrusted key is checked again here, as lockdown may have been
	 * raised since the "key" command asked.
	 */
	if ((!k && !list_empty(&dd_devices)) || (k && !k->trusted))
		ret = security_locked_down(LOCKDOWN_DISKDUMP);
	if (!ret) {
		dd_config_begin();
		if (k)
			dd_cfg.key = *k;
		else
			memzero_explicit(&dd_cfg.key, sizeof(dd_cfg.key));
		dd_config_commit();
	}
	mutex_unlock(&dd_mutex);
	return ret;
}

#ifdef CONFIG_DISKDUMP_ENCRYPT
/*
 * The keyring that vets dump certificates.  It links a certificate only
 * if a key in the kernel's builtin or secondary trusted keyring signed it
 * (or it is one of those keys), as kexec_file and module signatures are
 * vetted.  A certificate stays in it just long enough to be checked.
 */
static struct key *dd_keyring;
static DEFINE_MUTEX(dd_cert_mutex);	/* one certificate in it at a time */

static int __init dd_keyring_init(void)
{
	struct key_restriction *r;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->check = restrict_link_by_builtin_and_secondary_trusted;
	dd_keyring = keyring_alloc(".diskdump", GLOBAL_ROOT_UID, GLOBAL_ROOT_GID,
				   current_cred(),
				   (KEY_POS_ALL & ~KEY_POS_SETATTR) |
				   KEY_USR_VIEW | KEY_USR_READ | KEY_USR_SEARCH,
				   KEY_ALLOC_NOT_IN_QUOTA | KEY_ALLOC_SET_KEEP,
				   r, NULL);
	if (IS_ERR(dd_keyring)) {
		ret = PTR_ERR(dd_keyring);
		dd_keyring = NULL;
		kfree(r);
		return ret;
	}
	return 0;
}

/* Why the .diskdump keyring refused a certificate, as far as @err tells. */
static void dd_cert_error(int err)
{
	switch (err) {
	case -ENOKEY:
		dd_cmd_err("cert: not signed by a key in the kernel's trusted keyrings\n");
		break;
	case -EKEYREJECTED:
		dd_cmd_err("cert: its signature does not verify, or it is blacklisted\n");
		break;
	case -EBADMSG:
	case -EINVAL:
		dd_cmd_err("cert: malformed, or its signature does not verify (%d)\n", err);
		break;
	case -ENOPKG:
		dd_cmd_err("cert: its key or signature algorithm is not built into this kernel\n");
		break;
	default:
		dd_cmd_err("cert: the .diskdump keyring refused it (%d)\n", err);
	}
}

/*
 * Make a dump key for the RSA key in the X.509 certificate @der, if the
 * .diskdump keyring accepts the certificate.
 */
static int dd_cert_key(const u8 *der, unsigned int len, struct dd_key *k)
{
	const struct public_key *pk;
	struct key *key;
	key_ref_t kref;
	int ret;

	if (!dd_keyring) {
		dd_cmd_err("cert: no .diskdump keyring to check certificates with\n");
		return -ENOKEY;
	}
	mutex_lock(&dd_cert_mutex);
	kref = key_create_or_update(make_key_ref(dd_keyring, true), "asymmetric",
				    NULL, der, len, KEY_POS_VIEW | KEY_USR_VIEW,
				    KEY_ALLOC_NOT_IN_QUOTA);
	if (IS_ERR(kref)) {
		mutex_unlock(&dd_cert_mutex);
		dd_cert_error(PTR_ERR(kref));
		return PTR_ERR(kref);
	}
	key = key_ref_to_ptr(kref);
	pk = asymmetric_key_public_key(key);
	if (!pk || strcmp(pk->pkey_algo, "rsa")) {
		dd_cmd_err("cert: '%s' does not hold an RSA key\n", key->description);
		ret = -EINVAL;
	} else if (test_bit(KEY_EFLAG_CA, &pk->key_eflags) ||
		   test_bit(KEY_EFLAG_KEYCERTSIGN, &pk->key_eflags)) {
		/* a key that signs certificates should not also read dumps */
		dd_cmd_err("cert: '%s' is a CA certificate, not a dump key's\n",
			   key->description);
		ret = -EINVAL;
	} else {
		ret = dd_make_key("cert", pk->key, pk->keylen, k);
	}
	if (!ret) {
		k->trusted = true;
		pr_info("cert: '%s' is signed by a trusted key\n", key->description);
	}
	if (key_unlink(dd_keyring, key))
		pr_warn("cert: '%s' stays in the .diskdump keyring\n", key->description);
	mutex_unlock(&dd_cert_mutex);
	key_put(key);
	return ret;
}
#else
static int __init dd_keyring_init(void)
{
	return 0;
}

static int dd_cert_key(const u8 *der, unsigned int len, struct dd_key *k)
{
	return -EOPNOTSUPP;
}
#endif

/* "key none": stop encrypting, unless that would leave lockdown unmet. */
static int dd_drop_key(void)
{
	int ret = dd_install_key(NULL);

	if (ret)
		dd_cmd_err("key none: kernel lockdown forbids crash dumps not encrypted for a trusted key while partitions are armed\n");
	else
		pr_info("dumps are not encrypted\n");
	return ret;
}

/*
 * "key HEX": encrypt dumps for the RSA public key whose DER form (PKCS#1
 * RSAPublicKey) is HEX; not under lockdown, where root could read every
 * dump with a key of its own.
 * "cert HEX": for the RSA key of the X.509 certificate whose DER form is
 * HEX, if a key in the kernel's trusted keyrings signed it.
 * "key none": stop encrypting.
 */
static int dd_set_key(const char *cmd, const char *arg)
{
	bool cert = !strcmp(cmd, "cert");
	size_t max = cert ? DISKDUMP_CERT_DER_MAX : DISKDUMP_KEY_DER_MAX;
	size_t len = strlen(arg) / 2;
	struct dd_key *k;
	u8 *der;
	int ret;

	if (!IS_ENABLED(CONFIG_DISKDUMP_ENCRYPT)) {
		dd_cmd_err("%s: this kernel has no encrypted dumps (CONFIG_DISKDUMP_ENCRYPT)\n",
			   cmd);
		return -EOPNOTSUPP;
	}
	if (!cert && !strcmp(arg, "none"))
		return dd_drop_key();
	if (!cert && security_locked_down(LOCKDOWN_DISKDUMP)) {
		dd_cmd_err("key: under kernel lockdown only a key in a certificate signed by a trusted key is taken: use 'cert HEX'\n");
		return -EPERM;
	}
	if (strlen(arg) % 2 || len > max) {
		dd_cmd_err("%s: give the %s as hex of its DER form, at most %zu bytes\n",
			   cmd, cert ? "X.509 certificate" : "RSA public key", max);
		return -EINVAL;
	}
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	der = kmalloc(len, GFP_KERNEL);
	if (!k || !der) {
		ret = -ENOMEM;
	} else if (hex2bin(der, arg, len)) {
		dd_cmd_err("%s: not hex\n", cmd);
		ret = -EINVAL;
	} else if (cert) {
		ret = dd_cert_key(der, len, k);
	} else {
		ret = dd_make_key(cmd, der, len, k);
	}
	if (!ret) {
		ret = dd_install_key(k);
		if (ret)
			dd_cmd_err("key: kernel lockdown was raised meanwhile: use 'cert HEX'\n");
	}
	if (!ret)
		pr_info("dumps encrypted for the RSA-%u key sha256:%*phN%s\n",
			k->wrapped_size * BITS_PER_BYTE, DISKDUMP_KEY_ID_SIZE, k->key_id,
			k->trusted ? ", from a trusted certificate" : "");
	kfree(der);
	kfree_sensitive(k);
	return ret;
}

static int dd_command(char *line)
{
	char *cmd, *arg, *extra;
	dev_t devt;
	int ret;

	line = strim(line);
	cmd = strsep(&line, " \t");
	arg = line ? strim(line) : NULL;
	extra = arg ? strpbrk(arg, " \t") : NULL;
	if (!cmd || !*cmd || !arg || !*arg || extra) {
		dd_cmd_err("usage: 'add DEVICE' or 'remove DEVICE' (DEVICE: /dev/NAME, PARTUUID=UUID or MAJOR:MINOR), 'level N', 'check dump|all', 'pages direct|copy', 'reboot auto|N|panic', 'key HEX', 'cert HEX' or 'key none'\n");
		return -EINVAL;
	}
	if (!strcmp(cmd, "level"))
		return dd_set_level(arg);
	if (!strcmp(cmd, "check"))
		return dd_set_choice(&dd_check_choice, arg, &dd_cfg.check_all);
	if (!strcmp(cmd, "pages"))
		return dd_set_choice(&dd_pages_choice, arg, &dd_cfg.copy_pages);
	if (!strcmp(cmd, "reboot"))
		return dd_set_reboot(arg);
	if (!strcmp(cmd, "key") || !strcmp(cmd, "cert"))
		return dd_set_key(cmd, arg);
	if (strcmp(cmd, "add") && strcmp(cmd, "remove")) {
		dd_cmd_err("unknown command '%s': use 'add DEVICE', 'remove DEVICE', 'level N', 'check dump|all', 'pages direct|copy', 'reboot auto|N|panic', 'key HEX|none' or 'cert HEX'\n",
			   cmd);
		return -EINVAL;
	}
	ret = dd_parse_device(arg, &devt);
	if (ret == -ENOTUNIQ) {
		dd_cmd_err("%s: more than one partition has this UUID\n", arg);
		return ret;
	}
	if (ret) {
		dd_cmd_err("%s: not a block device (%d)\n", arg, ret);
		return ret;
	}

	if (!strcmp(cmd, "add")) {
		ret = dd_check_device_formatted(devt);
		if (ret) {
			if (ret != -EMEDIUMTYPE)
				dd_cmd_err("%s: cannot read it (%d)\n", arg, ret);
			return ret;
		}
	}

	mutex_lock(&dd_mutex);
	if (!strcmp(cmd, "add")) {
		ret = dd_add_partition(devt);
		if (ret == -ENODEV)
			dd_cmd_err("%s: no dump driver handles this disk\n", arg);
		else if (ret == -ENOSPC)
			dd_cmd_err("%s: too small for a dump header, or sectors larger than a page\n",
				   arg);
		else if (ret == -EEXIST)
			dd_cmd_err("%s: already configured\n", arg);
		else if (ret == -EOPNOTSUPP)
			dd_cmd_err("%s: its driver cannot write a dump to this disk\n",
				   arg);
		else if (ret == -EPERM)
			dd_cmd_err("%s: kernel lockdown forbids crash dumps not encrypted for a trusted key: not armed (give a certificate first: 'cert HEX')\n",
				   arg);
		else if (ret)
			dd_cmd_err("%s: cannot add (%d)\n", arg, ret);
		else
			pr_info("%s: dump partition added\n", arg);
	} else {
		struct disk_dump_partition *part = dd_find_partition(devt);

		if (part) {
			dd_disarm_partition(part);
			pr_info("%s: dump partition removed\n", arg);
			ret = 0;
		} else {
			dd_cmd_err("%s: not a configured dump partition\n", arg);
			ret = -ENOENT;
		}
	}
	mutex_unlock(&dd_mutex);
	return ret;
}

static ssize_t dd_proc_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char *buf;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	dd_clear_last_error();
	if (count >= DISKDUMP_CMD_MAX) {
		dd_cmd_err("command longer than %u bytes\n", DISKDUMP_CMD_MAX - 1);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = dd_command(buf);
	if (ret && !dd_last_error_set())
		dd_cmd_err("refused (%d)\n", ret);
	kfree_sensitive(buf);
	return ret ? ret : count;
}

static int dd_proc_show(struct seq_file *m, void *v)
{
	struct disk_dump_device *dev;
	struct disk_dump_partition *part;

	mutex_lock(&dd_mutex);
	seq_printf(m, "# block_size: %lu\n", PAGE_SIZE);
	seq_printf(m, "# dump_level: %u\n", dd_cfg.dump_level);
	seq_printf(m, "# check: %s\n", dd_cfg.check_all ? "all" : "dump");
	seq_printf(m, "# pages: %s\n", dd_cfg.copy_pages ? "copy" : "direct");
	if (dd_cfg.reboot == DD_REBOOT_AFTER)
		seq_printf(m, "# reboot: %u\n", dd_cfg.reboot_secs);
	else
		seq_printf(m, "# reboot: %s\n",
			   dd_cfg.reboot == DD_REBOOT_AUTO ? "auto" : "panic");
	if (dd_cfg.key.on)
		seq_printf(m, "# encryption: chacha20-poly1305, RSA-%u key sha256:%*phN%s\n",
			   dd_cfg.key.wrapped_size * BITS_PER_BYTE, DISKDUMP_KEY_ID_SIZE,
			   dd_cfg.key.key_id,
			   dd_cfg.key.trusted ? ", from a trusted certificate" : "");
	else
		seq_puts(m, "# encryption: none\n");
	seq_printf(m, "# ram_pages: %lu\n", dd_cfg.nr_ram_pages);
	/* memory held for the panic path (the dump drivers hold their own) */
	seq_printf(m, "# buffer_bytes: %lu\n", dd_cfg.dump_map_blocks * PAGE_SIZE +
		   (dd_cfg.io_buf ? (DISKDUMP_IO_BLOCKS + dd_cfg.note_blocks + 1) * PAGE_SIZE : 0));
	seq_printf(m, "# dump_blocks: %lu\n", dd_cfg.nr_ram_pages ?
		   1 + dd_cfg.note_blocks + 2 * dd_cfg.bitmap_blocks + dd_cfg.nr_ram_pages : 0);
	spin_lock(&dd_last_error_lock);
	if (dd_last_error[0])
		seq_printf(m, "# last error: %s\n", dd_last_error);
	spin_unlock(&dd_last_error_lock);
	seq_puts(m, "# device start_sect nr_sects\n");
	list_for_each_entry(dev, &dd_devices, list)
		list_for_each_entry(part, &dev->partitions, list)
			seq_printf(m, "%pg %llu %llu\n", file_bdev(part->bdev_file),
				   (unsigned long long)part->start_sect,
				   (unsigned long long)part->nr_sects);
	mutex_unlock(&dd_mutex);
	return 0;
}

static int dd_proc_open(struct inode *inode, struct file *file)
{
	return single_open(file, dd_proc_show, NULL);
}

static const struct proc_ops dd_proc_ops = {
	.proc_open	= dd_proc_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= dd_proc_write,
};

/* Say what a change of RAM did to the dump, and to the armed partitions. */
static void dd_report_ram_change(unsigned long action, struct memory_notify *arg,
				 bool clipped)
{
	struct disk_dump_device *dev;
	struct disk_dump_partition *part;

	pr_info("memory at PFN %#lx-%#lx went %s: the dump covers %lu pages of RAM\n",
		arg->start_pfn, arg->start_pfn + arg->nr_pages - 1,
		action == MEM_ONLINE ? "online" : "offline", dd_cfg.nr_ram_pages);
	if (clipped)
		pr_warn("no memory for a larger bitmap: RAM from PFN %#lx on is not in the dump\n",
			dd_cfg.max_pfn);
	list_for_each_entry(dev, &dd_devices, list)
		list_for_each_entry(part, &dev->partitions, list)
			if (dd_part_blocks(part) < dd_min_blocks())
				pr_warn("%pg: too small for the header and bitmaps of this much RAM: a dump there will fail\n",
					file_bdev(part->bdev_file));
}

/*
 * Memory that came online or went offline after arming: walk RAM again
 * and size the bitmaps to it.  If the larger bitmap cannot be had, the
 * dump keeps to the RAM below what the bitmap there is covers, and says
 * so.  Never takes mem_hotplug_lock, device_hotplug_lock or the CPU
 * hotplug lock, which the caller holds: nothing under dd_mutex may.
 */
static int dd_memory_callback(struct notifier_block *nb,
			      unsigned long action, void *data)
{
	unsigned long *old_map;
	int ret;

	/* MEM_FINISH_OFFLINE: memmap-on-memory sections go offline last */
	if (action != MEM_ONLINE && action != MEM_OFFLINE &&
	    action != MEM_FINISH_OFFLINE)
		return NOTIFY_OK;
	mutex_lock(&dd_mutex);
	if (list_empty(&dd_devices))	/* arming walks RAM */
		goto out;
	ret = dd_buffers_alloc(&dd_new);
	if (ret)
		goto out;
	dd_config_begin();
	old_map = dd_buffers_install(&dd_new);
	dd_config_commit();
	dd_free_old_map(old_map);
	dd_report_ram_change(action, data, dd_new.clipped);
out:
	mutex_unlock(&dd_mutex);
	return NOTIFY_OK;
}

static struct notifier_block dd_memory_nb = {
	.notifier_call = dd_memory_callback,
};

static int __init dd_init(void)
{
	if (dd_keyring_init())
		pr_warn("no .diskdump keyring: 'cert' cannot be used\n");
	if (!proc_create("diskdump", 0600, NULL, &dd_proc_ops))
		return -ENOMEM;
	if (register_memory_notifier(&dd_memory_nb))
		pr_warn("no memory hotplug notifier: memory added later is not dumped\n");
	mutex_lock(&dd_mutex);
	dd_core_code_crc = dd_crc_core_code();
	dd_cfg_crc = dd_checksum();
	mutex_unlock(&dd_mutex);
	pr_info("ready; configure partitions through /proc/diskdump\n");
	return 0;
}
late_initcall(dd_init);

#if IS_ENABLED(CONFIG_DISKDUMP_KUNIT_TEST)
#include "diskdump_test.c"
#endif
