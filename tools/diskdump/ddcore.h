/* SPDX-License-Identifier: GPL-2.0 */
/* Shared code of savecore and diskdumpfmt: the dump partition format. */
#ifndef DDCORE_H
#define DDCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/diskdump.h>

#define DD_VERSION "0.1"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Exit codes, documented in savecore(8) and diskdumpfmt(8). */
enum {
	DD_EXIT_OK = 0,		/* a dump is there, or was saved */
	DD_EXIT_ERROR = 1,	/* I/O error, bad arguments, unusable target */
	DD_EXIT_USAGE = 2,
	DD_EXIT_NODUMP = 3,	/* formatted (version 2) and empty */
	DD_EXIT_CORRUPT = 4,	/* a dump savecore cannot trust */
	DD_EXIT_NOSPACE = 5,	/* the target file system is too full */
	DD_EXIT_UNFORMATTED = 6, /* not, or no longer, what the format says */
	DD_EXIT_OLDFORMAT = 7,	/* format version 1: format it again */
};

/* dd_open() flags */
#define DD_OPEN_WRITE	0x1
#define DD_OPEN_EXCL	0x2	/* a block device nobody else holds */
#define DD_OPEN_QUIET	0x4	/* no message: the caller reports the error */

struct dd_dev {
	int fd;
	const char *path;
	uint64_t size;		/* bytes */
	uint64_t blocks;	/* DISKDUMP_BLOCK_SIZE blocks */
	bool direct;		/* O_DIRECT: reads and writes bypass the cache */
	const char *keyfile;	/* private key for an encrypted dump, or NULL */
	/* set by dd_unseal(): decrypts blocks read by dd_read_blocks() */
	int (*decrypt)(struct dd_dev *dev, uint64_t block, void *buf, uint64_t n);
	void *crypt;
	void (*crypt_free)(void *crypt);
};

uint32_t dd_crc32(uint32_t crc, const void *buf, size_t len);

/*
 * Open a partition or image file with O_DIRECT, or, where that is refused,
 * buffered with its cached pages dropped.  0, or -errno after a message
 * (none with DD_OPEN_QUIET, nor for EBUSY with DD_OPEN_EXCL: the caller
 * says who holds it).
 */
int dd_open(struct dd_dev *dev, const char *path, unsigned int flags);
/* What dd_open()'s -errno @err means, in words. */
const char *dd_open_error(int err);
/*
 * Open @dev's name again with @flags (O_CLOEXEC added): a new fd, or
 * -errno, -ESTALE if the name leads to another file or device than @dev's
 * fd (a udev link re-pointed since dd_open()).  What is checked through the
 * new fd is then what is written through the old one.
 */
int dd_reopen(const struct dd_dev *dev, int flags);
/* What dd_reopen()'s -errno @err means, in words. */
const char *dd_reopen_error(int err);
void dd_close(struct dd_dev *dev);
/* Blocks as the dump holds them: decrypted once dd_unseal() succeeded. */
int dd_read_blocks(struct dd_dev *dev, uint64_t block, void *buf, uint64_t n);
/* Blocks as they are on the device. */
int dd_read_raw_blocks(struct dd_dev *dev, uint64_t block, void *buf,
		       uint64_t n);
int dd_write_blocks(struct dd_dev *dev, uint64_t block, const void *buf,
		    uint64_t n);
/* Write back what was written; drop the cache of a buffered device. */
int dd_sync(struct dd_dev *dev);
/* Make the next reads of a buffered device come from the disk. */
void dd_drop_cache(struct dd_dev *dev);
/* @n blocks, aligned for O_DIRECT; free() them. */
void *dd_alloc_blocks(uint64_t n);

/* pwrite all of @buf at @off of @fd: 0, or -DD_EXIT_NOSPACE or -DD_EXIT_ERROR. */
int dd_write_full(int fd, const void *buf, size_t len, uint64_t off);

/*
 * Write-behind for a file written front to back: its writeback starts as
 * the data comes (so the fsync at the end has little left to do) and what
 * is on the disk leaves the page cache.  Errors are left to that fsync.
 */
struct dd_behind {
	int fd;
	uint64_t started;	/* writeback started below this offset */
	uint64_t dropped;	/* written, waited for and dropped below this */
};

void dd_behind_init(struct dd_behind *b, int fd, uint64_t off);
/* The file is written up to @end. */
void dd_behind_advance(struct dd_behind *b, uint64_t end);

/*
 * A run of blocks read ahead in a thread, in chunks, optionally worked on by
 * several threads (chunks in any order), then handed to emit() in the
 * calling thread, in order.  With one thread configured everything happens
 * in the calling thread, one chunk after the other.
 */
struct dd_chunk {
	uint64_t seq;		/* 0, 1, ...: the chunk's place in the run */
	uint64_t block;		/* its first block */
	uint64_t n;		/* its blocks, read (and decrypted) into buf */
	void *buf;
	void *priv;		/* the caller's: priv_size bytes, one per slot */
};

struct dd_pipe {
	/* in a worker thread (number @worker), chunks in any order */
	int (*work)(void *arg, struct dd_chunk *c, unsigned int worker);
	/* in the calling thread, chunks in order */
	int (*emit)(void *arg, struct dd_chunk *c);
	void *arg;
	size_t priv_size;
};

/*
 * Tuning of every pipe: @threads, the threads that work on chunks (0: one
 * per online CPU; 1: no thread at all), @chunk, blocks per chunk (0: the
 * default, 1024 blocks, 4 MiB).
 */
void dd_pipe_tune(unsigned int threads, unsigned int chunk);
/* How many workers a pipe that works on chunks would use (at least 1). */
unsigned int dd_pipe_workers(void);
/* Blocks per chunk. */
unsigned int dd_pipe_chunk(void);
/*
 * Run blocks [@block, @block + @n) of @dev through @p: 0, or the first
 * error, -DD_EXIT_ERROR for a read, or what work() or emit() returned.
 */
int dd_pipe_run(struct dd_dev *dev, uint64_t block, uint64_t n,
		const struct dd_pipe *p);

/* Block @block_nr of a formatted partition of @nr_blocks blocks. */
void dd_fill_fmt_block(void *block, uint64_t block_nr, uint64_t nr_blocks);

enum dd_fmt_check {
	DD_FMT_OK,	/* every byte is what format version 2 says */
	DD_FMT_OLD,	/* a block of format version 1 */
	DD_FMT_BAD,	/* anything else */
};

enum dd_fmt_check dd_fmt_block_check(const void *block, uint64_t block_nr,
				     uint64_t nr_blocks);

/* Write blocks [first, end): block 0, if in range, last. */
int dd_format_range(struct dd_dev *dev, uint64_t first, uint64_t end);

struct dd_fmt_scan {
	uint64_t first_bad;	/* the first block not DD_FMT_OK, if nr_bad */
	uint64_t nr_bad;
};

/* Compare every block of [first, end) with the format, from the disk. */
int dd_verify_format(struct dd_dev *dev, uint64_t first, uint64_t end,
		     struct dd_fmt_scan *scan);

/* What the first block holds. */
enum dd_content {
	DD_EMPTY,		/* format version 2, no dump */
	DD_OLD_FORMAT,		/* format version 1 */
	DD_DUMP,		/* a dump header */
	DD_SAVED,		/* a header savecore marked saved: format it */
	DD_DAMAGED,		/* the format's signature, not the rest */
	DD_FOREIGN,		/* none of these */
};

enum dd_content dd_classify(const void *block0, uint64_t nr_blocks);

/*
 * Check a dump header against itself and the partition: magic, byte order,
 * version, crc, and that every region it names lies inside the partition.
 * On failure returns -1 and puts a reason in @why.
 */
int dd_check_header(const struct diskdump_header *h, uint64_t dev_blocks,
		    char *why, size_t whylen);

const char *dd_status_name(uint32_t status);

/* A signature libblkid found: a file system, a partition table, ... */
struct dd_signature {
	char type[32];		/* TYPE or PTTYPE: "ext4", "gpt", "swap" */
	char usage[32];		/* "filesystem", "raid", "crypto", "partition table" */
	uint64_t offset;	/* of its magic, in bytes */
	bool has_offset;	/* libblkid named where its magic is */
};

/*
 * Every signature libblkid finds on @dev, as wipefs(8) lists them, up to
 * @max of them into @sigs: how many were found (possibly more than @max),
 * or a negative errno: -ESTALE if @dev's name leads elsewhere now.
 */
int dd_signatures(const struct dd_dev *dev, struct dd_signature *sigs, int max);

/* One ELF note: an Elf64_Nhdr, then name and desc, each padded to 4 bytes. */
struct dd_note {
	const char *name;	/* namesz bytes, its NUL included */
	uint32_t namesz;
	uint32_t type;
	const char *desc;
	uint32_t descsz;
};

/*
 * The note at *@pos of the @size bytes of notes at @notes, and *@pos moved
 * past it: true, or false at the end or at a note that does not fit whole.
 */
bool dd_note_next(const char *notes, size_t size, size_t *pos,
		  struct dd_note *note);
/* The VMCOREINFO note of @notes, or false if there is none. */
bool dd_find_vmcoreinfo(const char *notes, size_t size, struct dd_note *note);

static inline bool dd_test_bit(const uint8_t *map, uint64_t bit)
{
	return map[bit / 8] & (1u << (bit % 8));
}

#endif
