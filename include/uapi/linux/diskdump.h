/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * On-disk format of a diskdump partition, shared by the kernel and savecore.
 *
 * A dump partition is a sequence of blocks of DISKDUMP_BLOCK_SIZE bytes.
 * Formatted and empty, every byte of a block is determined by the block's
 * index: a struct diskdump_fmt_block naming the index, then the 64-bit
 * words diskdump_fmt_word(index, i).  The kernel refuses to write a block
 * unless every byte of it is what the format says, so it never overwrites
 * a filesystem, a dump that savecore has not saved yet, or a single sector
 * that anything else wrote there, zeros included.  Every word of a formatted
 * partition is different from every other (the words are a bijection of
 * (index, i)), so no sector of it is all zeros and none is a copy of
 * another.  Version 1 of the format wrote the struct and zeros; it is
 * refused, and diskdumpfmt formats such a partition again.
 *
 * After a crash the partition holds:
 *
 *   block 0                 struct diskdump_header
 *   note_block ...          ELF notes: NT_PRSTATUS per CPU, then VMCOREINFO
 *   bitmap_block ...        RAM bitmap (bitmap_blocks blocks), one bit a PFN
 *   + bitmap_blocks ...     dump bitmap (bitmap_blocks blocks): pages written
 *   data_block ...          one block per set bit of the dump bitmap, in PFN
 *                           order, the first written_pages of them present
 *                           (status WRITING: those no longer formatted)
 *
 * Bit n of a bitmap is bit (n % 8) of byte (n / 8), least significant first.
 *
 * Encrypted dumps (cipher DISKDUMP_CIPHER_CHACHA20_POLY1305): block 0 stays
 * in clear; every other block the kernel writes is XORed with the ChaCha20
 * (20 rounds) keystream under the 256-bit dump key, the 16-byte initial
 * counter and nonce being the little-endian words { 0, block number's low
 * 32 bits, nonce[0..3] XOR the block number's high 32 bits, nonce[4..7] }
 * (nonce[0..3] and nonce[4..7] read as little-endian words; below block
 * 2^32 the XOR changes nothing).  The first 32 bytes of the keystream of
 * block 0 are a one-time Poly1305 key; mac is Poly1305 over blocks 1 ..
 * data_block + written_pages - 1 as they are on disk, then over the header
 * with crc and mac zero.  A header with status WRITING has no mac.  The dump
 * key is in wrapped_key, encrypted with RSA (PKCS#1 v1.5 padding) under the
 * public key whose DER form (PKCS#1 RSAPublicKey) has SHA-256 key_id.
 *
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
#define DISKDUMP_FMT_VERSION	2

/* struct diskdump_header.status */
#define DISKDUMP_STATUS_WRITING		1	/* dump started, not finished */
#define DISKDUMP_STATUS_COMPLETE	2	/* every selected page written */
#define DISKDUMP_STATUS_INCOMPLETE	3	/* stopped early, see flags */

/* struct diskdump_header.flags */
/*
 * The partition was smaller than the dump: the kernel chose the pages it
 * could write (see Documentation/diskdump.txt), or, from kernels before
 * that, wrote the first @written_pages of those in the bitmap.
 */
#define DISKDUMP_FLAG_TRUNCATED	0x1
#define DISKDUMP_FLAG_IO_ERROR	0x2	/* a write failed part way */
#define DISKDUMP_FLAG_IRQS_ON	0x4	/* interrupts were found on while dumping */
/*
 * Set by savecore, never by the kernel: the dump is saved, and the
 * partition is being formatted again (block 0 last).  A format cut short
 * leaves this header, so the next savecore only finishes the format.
 */
#define DISKDUMP_FLAG_SAVED	0x8

/* Dump level: classes of pages left out, as makedumpfile's -d bits. */
#define DISKDUMP_EXCLUDE_ZERO		0x01	/* pages of zeroes */
#define DISKDUMP_EXCLUDE_CACHE		0x02	/* page cache, no private data */
#define DISKDUMP_EXCLUDE_CACHE_PRI	0x04	/* all page cache */
#define DISKDUMP_EXCLUDE_USER		0x08	/* anonymous (user) pages */
#define DISKDUMP_EXCLUDE_FREE		0x10	/* free pages (buddy allocator) */
#define DISKDUMP_EXCLUDE_ALL		0x1f

/* struct diskdump_header.cipher */
#define DISKDUMP_CIPHER_NONE			0
#define DISKDUMP_CIPHER_CHACHA20_POLY1305	1

#define DISKDUMP_KEY_SIZE	32	/* the dump key: ChaCha20 */
#define DISKDUMP_NONCE_SIZE	8
#define DISKDUMP_MAC_SIZE	16	/* Poly1305 */
#define DISKDUMP_KEY_ID_SIZE	32	/* SHA-256 */
#define DISKDUMP_WRAPPED_MAX	512	/* RSA up to 4096 bits */

#define DISKDUMP_UTS_LEN	65
#define DISKDUMP_PANIC_LEN	512

/**
 * struct diskdump_fmt_block - the start of every block of an empty partition
 * @magic: DISKDUMP_FMT_MAGIC
 * @endian: DISKDUMP_ENDIAN_MARK
 * @block_size: DISKDUMP_BLOCK_SIZE
 * @block_nr: index of this block within the partition
 * @nr_blocks: number of blocks of the partition when it was formatted
 * @version: DISKDUMP_FMT_VERSION (0 in a block of format version 1)
 * @pad: zero
 *
 * The rest of the block, from 64-bit word DISKDUMP_FMT_HDR_WORDS on, is
 * word i = diskdump_fmt_word(@block_nr, i), in the machine's byte order.
 */
struct diskdump_fmt_block {
	char	magic[DISKDUMP_MAGIC_LEN];
	__u32	endian;
	__u32	block_size;
	__u64	block_nr;
	__u64	nr_blocks;
	__u32	version;
	__u32	pad;
};

#define DISKDUMP_FMT_HDR_WORDS	(sizeof(struct diskdump_fmt_block) / 8)
#define DISKDUMP_FMT_MULT	0x9e3779b97f4a7c15ULL	/* odd: a bijection */
#define DISKDUMP_FMT_SEED	0x444446524d415432ULL

/**
 * diskdump_fmt_word - word @i of formatted block @block_nr
 * @block_nr: index of the block within the partition (below 2^55)
 * @i: index of the 64-bit word within the block
 *
 * Return: the word the format puts there.
 */
static __inline__ __u64 diskdump_fmt_word(__u64 block_nr, __u32 i)
{
	return ((block_nr << 9 | i) * DISKDUMP_FMT_MULT) ^ DISKDUMP_FMT_SEED;
}

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
 * @verify_ns: of @check_ns, the time spent comparing blocks with the format
 * @write_ns: time from the first header write to the last page write
 * @hwpoison_pages: pages left out because they are hardware-poisoned
 * @check_blocks: blocks the signature check compared with the format: the
 *	dump's extent (blocks 0 .. @data_block + @nr_dump_pages - 1, at most
 *	the partition) and the last block, or every block under "check all"
 * @sysname: utsname sysname of the dumped kernel
 * @nodename: utsname nodename
 * @release: utsname release
 * @version_str: utsname version
 * @machine: utsname machine
 * @domainname: utsname domainname
 * @panic_msg: the panic message, NUL terminated
 * @cipher: DISKDUMP_CIPHER_*; the rest is zero if DISKDUMP_CIPHER_NONE
 * @wrapped_key_size: bytes of @wrapped_key used (the RSA modulus size)
 * @nonce: per-partition ChaCha20 nonce
 * @key_id: SHA-256 of the RSA public key the dump key is wrapped for
 * @mac: Poly1305 tag of the data blocks and the header
 * @wrapped_key: the dump key, RSA-encrypted
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
	__u64	verify_ns;
	__u64	hwpoison_pages;
	__u64	check_blocks;
	char	sysname[DISKDUMP_UTS_LEN];
	char	nodename[DISKDUMP_UTS_LEN];
	char	release[DISKDUMP_UTS_LEN];
	char	version_str[DISKDUMP_UTS_LEN];
	char	machine[DISKDUMP_UTS_LEN];
	char	domainname[DISKDUMP_UTS_LEN];
	char	pad1[2];
	char	panic_msg[DISKDUMP_PANIC_LEN];
	__u32	cipher;
	__u32	wrapped_key_size;
	__u8	nonce[DISKDUMP_NONCE_SIZE];
	__u8	key_id[DISKDUMP_KEY_ID_SIZE];
	__u8	mac[DISKDUMP_MAC_SIZE];
	__u8	wrapped_key[DISKDUMP_WRAPPED_MAX];
};

#endif /* _UAPI_LINUX_DISKDUMP_H */
