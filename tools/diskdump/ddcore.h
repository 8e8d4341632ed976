/* SPDX-License-Identifier: GPL-2.0 */
/* Shared code of savecore and diskdumpfmt: the dump partition format. */
#ifndef DDCORE_H
#define DDCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/diskdump.h>

#define DD_VERSION "0.1"

/* Exit codes, documented in savecore(8). */
enum {
	EX_OK = 0,
	EX_ERROR = 1,	/* I/O error, bad arguments, unusable target */
	EX_USAGE = 2,
	EX_NODUMP = 3,	/* the partition holds no dump */
	EX_CORRUPT = 4,	/* the partition holds a dump savecore cannot trust */
	EX_NOSPACE = 5,	/* the target file system is too full */
};

struct dd_dev {
	int fd;
	const char *path;
	uint64_t size;		/* bytes */
	uint64_t blocks;	/* DISKDUMP_BLOCK_SIZE blocks */
	const char *keyfile;	/* private key for an encrypted dump, or NULL */
	/* set by dd_unseal(): decrypts blocks read by dd_read_blocks() */
	int (*decrypt)(struct dd_dev *dev, uint64_t block, void *buf, uint64_t n);
	void *crypt;
	void (*crypt_free)(void *crypt);
};

uint32_t dd_crc32(uint32_t crc, const void *buf, size_t len);

int dd_open(struct dd_dev *dev, const char *path, bool writable);
void dd_close(struct dd_dev *dev);
/* Blocks as the dump holds them: decrypted once dd_unseal() succeeded. */
int dd_read_blocks(struct dd_dev *dev, uint64_t block, void *buf, uint64_t n);
/* Blocks as they are on the device. */
int dd_read_raw_blocks(struct dd_dev *dev, uint64_t block, void *buf,
		       uint64_t n);
int dd_write_blocks(struct dd_dev *dev, uint64_t block, const void *buf,
		    uint64_t n);

/* pwrite all of @buf at @off of @fd: 0, or -EX_NOSPACE or -EX_ERROR. */
int dd_write_full(int fd, const void *buf, size_t len, uint64_t off);

void dd_fill_fmt_block(void *block, uint64_t block_nr, uint64_t nr_blocks);
bool dd_is_fmt_block(const void *block, uint64_t block_nr);
int dd_format_range(struct dd_dev *dev, uint64_t first, uint64_t end);

/* What the first block holds. */
enum dd_content {
	DD_EMPTY,		/* formatted, no dump */
	DD_DUMP,		/* a dump header */
	DD_FOREIGN,		/* neither */
};

enum dd_content dd_classify(const void *block0);

/*
 * Check a dump header against itself and the partition: magic, byte order,
 * version, crc, and that every region it names lies inside the partition.
 * On failure returns -1 and puts a reason in @why.
 */
int dd_check_header(const struct diskdump_header *h, uint64_t dev_blocks,
		    char *why, size_t whylen);

const char *dd_status_name(uint32_t status);

/* Name a filesystem or other known signature in the first 128 KiB, or NULL. */
const char *dd_foreign_signature(const unsigned char *buf, size_t len);

static inline bool dd_test_bit(const uint8_t *map, uint64_t bit)
{
	return map[bit / 8] & (1u << (bit % 8));
}

#endif
