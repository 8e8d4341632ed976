// SPDX-License-Identifier: GPL-2.0
/* The dump partition format, shared by savecore and diskdumpfmt. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "ddcore.h"

uint32_t dd_crc32(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	const uint8_t *p = buf;

	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

int dd_open(struct dd_dev *dev, const char *path, bool writable)
{
	struct stat st;

	memset(dev, 0, sizeof(*dev));
	dev->path = path;
	dev->fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (dev->fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(dev->fd, &st) < 0)
		goto err;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(dev->fd, BLKGETSIZE64, &dev->size) < 0)
			goto err;
	} else if (S_ISREG(st.st_mode)) {
		dev->size = (uint64_t)st.st_size;
	} else {
		fprintf(stderr, "%s: not a block device or image file\n", path);
		close(dev->fd);
		return -1;
	}
	dev->blocks = dev->size / DISKDUMP_BLOCK_SIZE;
	return 0;
err:
	fprintf(stderr, "%s: %s\n", path, strerror(errno));
	close(dev->fd);
	return -1;
}

void dd_close(struct dd_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
	if (dev->crypt_free)
		dev->crypt_free(dev->crypt);
	dev->crypt = NULL;
	dev->decrypt = NULL;
	dev->crypt_free = NULL;
}

static int rw_all(struct dd_dev *dev, bool wr, uint64_t block, void *buf,
		  uint64_t n)
{
	uint64_t off = block * DISKDUMP_BLOCK_SIZE, len = n * DISKDUMP_BLOCK_SIZE;
	char *p = buf;

	if (block > dev->blocks || n > dev->blocks - block) {
		fprintf(stderr,
			"%s: blocks %" PRIu64 "+%" PRIu64
			" lie outside the device (%" PRIu64 " blocks)\n",
			dev->path, block, n, dev->blocks);
		return -1;
	}
	while (len) {
		ssize_t r = wr ? pwrite(dev->fd, p, len, (off_t)off) :
				 pread(dev->fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			fprintf(stderr, "%s: %s at byte %" PRIu64 ": %s\n", dev->path,
				wr ? "write" : "read", off,
				r < 0 ? strerror(errno) : "unexpected end");
			return -1;
		}
		p += r;
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

int dd_read_raw_blocks(struct dd_dev *dev, uint64_t block, void *buf,
		       uint64_t n)
{
	return rw_all(dev, false, block, buf, n);
}

int dd_read_blocks(struct dd_dev *dev, uint64_t block, void *buf, uint64_t n)
{
	if (rw_all(dev, false, block, buf, n))
		return -1;
	return dev->decrypt ? dev->decrypt(dev, block, buf, n) : 0;
}

int dd_write_blocks(struct dd_dev *dev, uint64_t block, const void *buf,
		    uint64_t n)
{
	return rw_all(dev, true, block, (void *)buf, n);
}

int dd_write_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int err = w < 0 ? errno : ENOSPC;

			fprintf(stderr, "savecore: write: %s\n", strerror(err));
			return err == ENOSPC || err == EDQUOT ? -EX_NOSPACE : -EX_ERROR;
		}
		p += w;
		off += (uint64_t)w;
		len -= (size_t)w;
	}
	return 0;
}

void dd_fill_fmt_block(void *block, uint64_t block_nr, uint64_t nr_blocks)
{
	struct diskdump_fmt_block *fb = block;

	memset(block, 0, DISKDUMP_BLOCK_SIZE);
	memcpy(fb->magic, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN);
	fb->endian = DISKDUMP_ENDIAN_MARK;
	fb->block_size = DISKDUMP_BLOCK_SIZE;
	fb->block_nr = block_nr;
	fb->nr_blocks = nr_blocks;
}

bool dd_is_fmt_block(const void *block, uint64_t block_nr)
{
	const struct diskdump_fmt_block *fb = block;

	return !memcmp(fb->magic, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN) &&
	       fb->endian == DISKDUMP_ENDIAN_MARK &&
	       fb->block_size == DISKDUMP_BLOCK_SIZE && fb->block_nr == block_nr;
}

#define FMT_CHUNK 256	/* blocks per write: 1 MiB */

int dd_format_range(struct dd_dev *dev, uint64_t first, uint64_t end)
{
	char *buf = malloc((size_t)FMT_CHUNK * DISKDUMP_BLOCK_SIZE);
	uint64_t b;
	int ret = 0;

	if (!buf)
		return -1;
	for (b = first; b < end && !ret; b += FMT_CHUNK) {
		uint64_t n = end - b < FMT_CHUNK ? end - b : FMT_CHUNK;

		for (uint64_t i = 0; i < n; i++)
			dd_fill_fmt_block(buf + i * DISKDUMP_BLOCK_SIZE, b + i,
					  dev->blocks);
		ret = dd_write_blocks(dev, b, buf, n);
	}
	free(buf);
	if (!ret && fsync(dev->fd) < 0) {
		fprintf(stderr, "%s: fsync: %s\n", dev->path, strerror(errno));
		ret = -1;
	}
	return ret;
}

enum dd_content dd_classify(const void *block0)
{
	if (dd_is_fmt_block(block0, 0))
		return DD_EMPTY;
	if (!memcmp(block0, DISKDUMP_HDR_MAGIC, DISKDUMP_MAGIC_LEN))
		return DD_DUMP;
	return DD_FOREIGN;
}

const char *dd_status_name(uint32_t status)
{
	switch (status) {
	case DISKDUMP_STATUS_WRITING:
		return "incomplete (the kernel stopped while writing)";
	case DISKDUMP_STATUS_COMPLETE:
		return "complete";
	case DISKDUMP_STATUS_INCOMPLETE:
		return "incomplete";
	default:
		return "unknown";
	}
}

/* Say why in @why and return -1. */
static int
dd_fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static bool region_ok(uint64_t start, uint64_t len, uint64_t limit)
{
	return start <= limit && len <= limit - start;
}

int dd_check_header(const struct diskdump_header *h, uint64_t dev_blocks,
		    char *why, size_t whylen)
{
	struct diskdump_header copy;
	uint32_t crc;

	if (memcmp(h->magic, DISKDUMP_HDR_MAGIC, DISKDUMP_MAGIC_LEN))
		return dd_fail(why, whylen, "no dump header signature");
	if (h->endian != DISKDUMP_ENDIAN_MARK)
		return dd_fail(why, whylen, "dump written with another byte order");
	if (h->version != DISKDUMP_HDR_VERSION)
		return dd_fail(why, whylen, "header version %u, this savecore reads %u", h->version,
			       DISKDUMP_HDR_VERSION);
	if (h->header_size != sizeof(*h))
		return dd_fail(why, whylen,
			       "header size %u, expected %zu", h->header_size, sizeof(*h));
	copy = *h;
	copy.crc = 0;
	crc = dd_crc32(0, &copy, sizeof(copy));
	if (crc != h->crc)
		return dd_fail(why, whylen,
			       "header checksum mismatch (%08x, header says %08x)", crc, h->crc);
	if (h->block_size != DISKDUMP_BLOCK_SIZE)
		return dd_fail(why, whylen, "block size %u not supported", h->block_size);
	if (h->partition_blocks > dev_blocks)
		return dd_fail(why, whylen,
			       "header says %" PRIu64 " blocks, the device has %" PRIu64,
			       (uint64_t)h->partition_blocks, dev_blocks);
	if (h->max_pfn == 0 || h->max_pfn > (1ULL << 40))
		return dd_fail(why, whylen, "implausible max_pfn %" PRIu64, (uint64_t)h->max_pfn);
	if (h->bitmap_blocks * DISKDUMP_BLOCK_SIZE * 8 < h->max_pfn ||
	    h->bitmap_blocks > dev_blocks)
		return dd_fail(why, whylen,
			       "bitmap of %" PRIu64 " blocks does not cover %" PRIu64 " pages",
			       (uint64_t)h->bitmap_blocks, (uint64_t)h->max_pfn);
	if (h->note_block != 1 || h->note_size > 16 * 1024 * 1024 ||
	    !region_ok(h->note_block, (h->note_size + DISKDUMP_BLOCK_SIZE - 1) /
		       DISKDUMP_BLOCK_SIZE, h->bitmap_block))
		return dd_fail(why, whylen,
			       "bad note area (%" PRIu64 " bytes)", (uint64_t)h->note_size);
	if (!region_ok(h->bitmap_block, 2 * h->bitmap_blocks, dev_blocks) ||
	    h->data_block != h->bitmap_block + 2 * h->bitmap_blocks)
		return dd_fail(why, whylen, "bad bitmap placement");
	if (h->nr_dump_pages > h->nr_ram_pages || h->nr_ram_pages > h->max_pfn)
		return dd_fail(why, whylen, "page counts do not add up");
	if (h->written_pages > h->nr_dump_pages ||
	    !region_ok(h->data_block, h->written_pages, dev_blocks))
		return dd_fail(why, whylen, "%" PRIu64 " written pages do not fit the partition",
			       (uint64_t)h->written_pages);
	if (h->status < DISKDUMP_STATUS_WRITING ||
	    h->status > DISKDUMP_STATUS_INCOMPLETE)
		return dd_fail(why, whylen, "unknown status %u", h->status);
	return 0;
}

const char *dd_foreign_signature(const unsigned char *buf, size_t len)
{
	if (len >= 1082 && buf[1080] == 0x53 && buf[1081] == 0xef)
		return "an ext2/3/4 file system";
	if (len >= 4 && !memcmp(buf, "XFSB", 4))
		return "an XFS file system";
	if (len >= 65536 + 72 && !memcmp(buf + 65536 + 64, "_BHRfS_M", 8))
		return "a btrfs file system";
	if (len >= 6 && !memcmp(buf, "LUKS\xba\xbe", 6))
		return "a LUKS volume";
	if (len >= 4096 && (!memcmp(buf + 4086, "SWAPSPACE2", 10) ||
			    !memcmp(buf + 4086, "SWAP-SPACE", 10)))
		return "a swap area";
	if (len >= 512 && buf[510] == 0x55 && buf[511] == 0xaa &&
	    (!memcmp(buf + 54, "FAT", 3) || !memcmp(buf + 82, "FAT", 3)))
		return "a FAT file system";
	if (len >= 8 && !memcmp(buf, DISKDUMP_HDR_MAGIC, 8))
		return "a crash dump that savecore has not saved";
	return NULL;
}
