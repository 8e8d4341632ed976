/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * On-disk format of a diskdump partition, shared by the kernel and savecore.
 *
 * A dump partition is a sequence of blocks of DISKDUMP_BLOCK_SIZE bytes.
 * Formatted and empty, every block starts with a struct diskdump_fmt_block
 * naming its own index; the kernel refuses to write to a partition unless
 * every block it checks carries that signature, so it never overwrites a
 * filesystem or a dump that savecore has not saved yet.
 *
 * After a crash the partition holds:
 *
 *   block 0                 struct diskdump_header
 *   note_block ...          ELF notes: NT_PRSTATUS per CPU, then VMCOREINFO
 *   bitmap_block ...        RAM bitmap (bitmap_blocks blocks), one bit a PFN
 *   + bitmap_blocks ...     dump bitmap (bitmap_blocks blocks): pages written
 *   data_block ...          one block per set bit of the dump bitmap, in PFN
 *                           order, the first written_pages of them present
 *
 * Bit n of a bitmap is bit (n % 8) of byte (n / 8), least significant first.
 * All fields are in the byte order of the machine that wrote them; the magic
 * strings and DISKDUMP_ENDIAN_MARK let a reader tell.
 */
#ifndef _UAPI_LINUX_DISKDUMP_H
#define _UAPI_LINUX_DISKDUMP_H

#include <linux/types.h>

#define DISKDUMP_BLOCK_SIZE	4096

#define DISKDUMP_FMT_MAGIC	"DDFORMAT"	/* 8 bytes, no NUL */
#define DISKDUMP_HDR_MAGIC	"DDUMPHDR"	/* 8 bytes, no NUL */
#define DISKDUMP_MAGIC_LEN	8
#define DISKDUMP_ENDIAN_MARK	0x01020304U
#define DISKDUMP_HDR_VERSION	1

/* struct diskdump_header.status */
#define DISKDUMP_STATUS_WRITING		1	/* dump started, not finished */
#define DISKDUMP_STATUS_COMPLETE	2	/* every selected page written */
#define DISKDUMP_STATUS_INCOMPLETE	3	/* stopped early, see flags */

/* struct diskdump_header.flags */
#define DISKDUMP_FLAG_TRUNCATED	0x1	/* the partition is smaller than the dump */
#define DISKDUMP_FLAG_IO_ERROR	0x2	/* a write failed part way */
#define DISKDUMP_FLAG_IRQS_ON	0x4	/* interrupts were found on while dumping */

/* Dump level: classes of pages left out, as makedumpfile's -d bits. */
#define DISKDUMP_EXCLUDE_ZERO		0x01	/* pages of zeroes */
#define DISKDUMP_EXCLUDE_CACHE		0x02	/* page cache, no private data */
#define DISKDUMP_EXCLUDE_CACHE_PRI	0x04	/* all page cache */
#define DISKDUMP_EXCLUDE_USER		0x08	/* anonymous (user) pages */
#define DISKDUMP_EXCLUDE_FREE		0x10	/* free pages (buddy allocator) */
#define DISKDUMP_EXCLUDE_ALL		0x1f

#define DISKDUMP_UTS_LEN	65
#define DISKDUMP_PANIC_LEN	512

/**
 * struct diskdump_fmt_block - the start of every block of an empty partition
 * @magic: DISKDUMP_FMT_MAGIC
 * @endian: DISKDUMP_ENDIAN_MARK
 * @block_size: DISKDUMP_BLOCK_SIZE
 * @block_nr: index of this block within the partition
 * @nr_blocks: number of blocks the formatter wrote
 *
 * The rest of the block is zero.
 */
struct diskdump_fmt_block {
	char	magic[DISKDUMP_MAGIC_LEN];
	__u32	endian;
	__u32	block_size;
	__u64	block_nr;
	__u64	nr_blocks;
};

/**
 * struct diskdump_header - block 0 of a partition that holds a dump
 * @magic: DISKDUMP_HDR_MAGIC
 * @endian: DISKDUMP_ENDIAN_MARK
 * @version: DISKDUMP_HDR_VERSION
 * @header_size: sizeof(struct diskdump_header)
 * @block_size: bytes per block, the page size of the dumped kernel
 * @status: DISKDUMP_STATUS_*
 * @flags: DISKDUMP_FLAG_*
 * @panic_cpu: CPU that panicked
 * @nr_cpus: CPUs online at the panic
 * @nr_cpu_notes: NT_PRSTATUS notes saved (CPUs that answered the stop)
 * @dump_level: page classes left out, DISKDUMP_EXCLUDE_* (0: every page)
 * @crc: crc32 (zlib polynomial, ~0 seed) of the header with @crc zero
 * @time_sec: wall clock time of the panic, seconds since the epoch
 * @time_nsec: nanoseconds part of the panic time
 * @partition_blocks: size of the partition in blocks
 * @max_pfn: the bitmaps describe PFNs 0 .. max_pfn - 1
 * @note_block: first block of the ELF notes
 * @note_size: bytes of ELF notes
 * @bitmap_block: first block of the RAM bitmap
 * @bitmap_blocks: blocks of one bitmap
 * @data_block: first page block
 * @nr_ram_pages: set bits in the RAM bitmap
 * @nr_dump_pages: set bits in the dump bitmap
 * @written_pages: page blocks actually written, from data_block on
 * @page_offset: virtual address of physical 0 in the kernel's direct map
 * @kernel_vaddr: virtual address of the kernel image (_text)
 * @kernel_paddr: physical address of the kernel image
 * @kernel_size: size of the kernel image (_end - _text)
 * @start_sect: first 512-byte sector of the partition on its disk
 * @timers_run: timer callbacks diskdump ran while dumping
 * @tasklets_run: tasklets diskdump ran while dumping
 * @unreadable_pages: pages that faulted when read (written as 0xdd bytes)
 * @check_ns: time the signature check of this partition took
 * @write_ns: time from the first header write to the last page write
 * @reserved: zero
 * @sysname: utsname sysname of the dumped kernel
 * @nodename: utsname nodename
 * @release: utsname release
 * @version_str: utsname version
 * @machine: utsname machine
 * @domainname: utsname domainname
 * @panic_msg: the panic message, NUL terminated
 */
struct diskdump_header {
	char	magic[DISKDUMP_MAGIC_LEN];
	__u32	endian;
	__u32	version;
	__u32	header_size;
	__u32	block_size;
	__u32	status;
	__u32	flags;
	__u32	panic_cpu;
	__u32	nr_cpus;
	__u32	nr_cpu_notes;
	__u32	dump_level;
	__u32	crc;
	__u32	pad0;
	__u64	time_sec;
	__u64	time_nsec;
	__u64	partition_blocks;
	__u64	max_pfn;
	__u64	note_block;
	__u64	note_size;
	__u64	bitmap_block;
	__u64	bitmap_blocks;
	__u64	data_block;
	__u64	nr_ram_pages;
	__u64	nr_dump_pages;
	__u64	written_pages;
	__u64	page_offset;
	__u64	kernel_vaddr;
	__u64	kernel_paddr;
	__u64	kernel_size;
	__u64	start_sect;
	__u64	timers_run;
	__u64	tasklets_run;
	__u64	unreadable_pages;
	__u64	check_ns;
	__u64	write_ns;
	__u64	reserved[3];
	char	sysname[DISKDUMP_UTS_LEN];
	char	nodename[DISKDUMP_UTS_LEN];
	char	release[DISKDUMP_UTS_LEN];
	char	version_str[DISKDUMP_UTS_LEN];
	char	machine[DISKDUMP_UTS_LEN];
	char	domainname[DISKDUMP_UTS_LEN];
	char	pad1[2];
	char	panic_msg[DISKDUMP_PANIC_LEN];
};

#endif /* _UAPI_LINUX_DISKDUMP_H */
