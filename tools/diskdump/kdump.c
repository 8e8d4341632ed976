// SPDX-License-Identifier: GPL-2.0
/*
 * The kdump-compressed format ("KDUMP   ", header version 6), as
 * makedumpfile writes it and crash(8) and makedumpfile read it:
 *
 *   block 0                 struct kdump_disk_header
 *   block 1 ...             struct kdump_sub_header, then the ELF notes
 *                           (NT_PRSTATUS per CPU, VMCOREINFO)
 *   then                    RAM bitmap, dumpable bitmap (block aligned)
 *   then                    one struct kdump_page_desc per dumpable page,
 *                           in PFN order
 *   then                    one shared zero page, then the page data
 *
 * Every page is stored compressed (zlib, LZO1X-1 or zstd, one per file) if
 * that makes it smaller, else raw;
 * all-zero pages share the one zero page.  Pages the partition does not
 * hold (a partial dump) are cleared from the dumpable bitmap, and the
 * header says incomplete.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lzo/lzo1x.h>
#include <zlib.h>
#include <zstd.h>

#include "savecore.h"

#define KDUMP_SIGNATURE		"KDUMP   "
#define KDUMP_VERSION		6
#define KDUMP_ZLIB		0x1	/* page_desc.flags and header status */
#define KDUMP_LZO		0x2
#define KDUMP_INCOMPLETE	0x8	/* header status */
#define KDUMP_ZSTD		0x20
#define PAGE_BOUND		(DISKDUMP_BLOCK_SIZE + DISKDUMP_BLOCK_SIZE / 16 + 64 + 3)

struct kdump_disk_header {		/* 464 bytes on x86_64 */
	char signature[8];
	int32_t header_version;
	char utsname[6][65];
	char pad[6];
	int64_t tv_sec;
	int64_t tv_usec;
	uint32_t status;
	int32_t block_size;
	int32_t sub_hdr_size;		/* blocks: sub header + notes */
	uint32_t bitmap_blocks;		/* both bitmaps */
	uint32_t max_mapnr;
	uint32_t total_ram_blocks;
	uint32_t device_blocks;
	uint32_t written_blocks;
	uint32_t current_cpu;
	int32_t nr_cpus;
};

struct kdump_sub_header {		/* 104 bytes */
	uint64_t phys_base;
	int32_t dump_level;
	int32_t split;
	uint64_t start_pfn;
	uint64_t end_pfn;
	int64_t offset_vmcoreinfo;
	uint64_t size_vmcoreinfo;
	int64_t offset_note;
	uint64_t size_note;
	int64_t offset_eraseinfo;
	uint64_t size_eraseinfo;
	uint64_t start_pfn_64;
	uint64_t end_pfn_64;
	uint64_t max_mapnr_64;
};

struct kdump_page_desc {		/* 24 bytes */
	int64_t offset;
	uint32_t size;
	uint32_t flags;
	uint64_t page_flags;
};

_Static_assert(sizeof(struct kdump_disk_header) == 464, "disk_dump_header layout");
_Static_assert(sizeof(struct kdump_sub_header) == 104, "kdump_sub_header layout");
_Static_assert(sizeof(struct kdump_page_desc) == 24, "page_desc layout");

/* File offset and length of the VMCOREINFO text inside the notes. */
static void find_vmcoreinfo(const struct dd_dump *d, uint64_t *off, uint64_t *len)
{
	struct dd_note vmci;

	*off = 0;
	*len = 0;
	if (!dd_find_vmcoreinfo(d->notes, d->h.note_size, &vmci))
		return;
	*off = (uint64_t)(vmci.desc - d->notes);
	*len = vmci.descsz;
}

static bool page_is_zero(const unsigned char *p)
{
	static const unsigned char zero[DISKDUMP_BLOCK_SIZE];

	return !memcmp(p, zero, sizeof(zero));
}

static uint32_t method_flag(enum dd_compress how)
{
	switch (how) {
	case DD_ZLIB:
		return KDUMP_ZLIB;
	case DD_LZO:
		return KDUMP_LZO;
	case DD_ZSTD:
		return KDUMP_ZSTD;
	default:
		return 0;
	}
}

/* What a compressing thread keeps between pages. */
struct packer {
	enum dd_compress how;
	bool zs_ready;
	z_stream zs;		/* zlib: initialised once, reset per page */
	void *lzo_work;
	ZSTD_CCtx *zc;
};

static int packer_init(struct packer *pk, enum dd_compress how)
{
	pk->how = how;
	switch (how) {
	case DD_ZLIB:
		if (deflateInit(&pk->zs, 1) != Z_OK)
			return -1;
		pk->zs_ready = true;
		return 0;
	case DD_LZO:
		pk->lzo_work = malloc(LZO1X_1_MEM_COMPRESS);
		return pk->lzo_work ? 0 : -1;
	case DD_ZSTD:
		pk->zc = ZSTD_createCCtx();
		return pk->zc ? 0 : -1;
	default:
		return 0;
	}
}

static void packer_free(struct packer *pk)
{
	if (pk->zs_ready)
		deflateEnd(&pk->zs);
	free(pk->lzo_work);
	ZSTD_freeCCtx(pk->zc);
}

/* One zlib stream per page, as crash's uncompress() wants. */
static size_t zlib_page(z_stream *zs, const unsigned char *page, unsigned char *out)
{
	if (deflateReset(zs) != Z_OK)
		return 0;
	zs->next_in = (Bytef *)page;
	zs->avail_in = DISKDUMP_BLOCK_SIZE;
	zs->next_out = out;
	zs->avail_out = PAGE_BOUND;
	return deflate(zs, Z_FINISH) == Z_STREAM_END ? zs->total_out : 0;
}

/* Compress one page into @out (PAGE_BOUND bytes); its size, or 0 if not. */
static size_t compress_page(struct packer *pk, const unsigned char *page,
			    unsigned char *out)
{
	lzo_uint llen = PAGE_BOUND;
	size_t n;

	switch (pk->how) {
	case DD_ZLIB:
		return zlib_page(&pk->zs, page, out);
	case DD_LZO:
		return lzo1x_1_compress(page, DISKDUMP_BLOCK_SIZE, out, &llen, pk->lzo_work) ==
		       LZO_E_OK ? llen : 0;
	case DD_ZSTD:
		/* what ZSTD_compress() makes, without a new context per page */
		n = ZSTD_compressCCtx(pk->zc, out, PAGE_BOUND, page, DISKDUMP_BLOCK_SIZE, 1);
		return ZSTD_isError(n) ? 0 : n;
	default:
		return 0;
	}
}

static int write_headers(const struct dd_dump *d, int fd, enum dd_compress how,
			 uint32_t sub_blocks, uint32_t bitmap_blocks)
{
	struct kdump_disk_header *hdr;
	struct kdump_sub_header *sub;
	unsigned char *blk;
	uint64_t vi_off, vi_len;
	char val[32];
	int ret;

	blk = calloc(1 + sub_blocks, DISKDUMP_BLOCK_SIZE);
	if (!blk)
		return -DD_EXIT_ERROR;
	hdr = (struct kdump_disk_header *)blk;
	memcpy(hdr->signature, KDUMP_SIGNATURE, 8);
	hdr->header_version = KDUMP_VERSION;
	snprintf(hdr->utsname[0], 65, "%.64s", d->h.sysname);
	snprintf(hdr->utsname[1], 65, "%.64s", d->h.nodename);
	snprintf(hdr->utsname[2], 65, "%.64s", d->h.release);
	snprintf(hdr->utsname[3], 65, "%.64s", d->h.version_str);
	snprintf(hdr->utsname[4], 65, "%.64s", d->h.machine);
	snprintf(hdr->utsname[5], 65, "%.64s", d->h.domainname);
	hdr->tv_sec = (int64_t)d->h.time_sec;
	hdr->tv_usec = 0;	/* not a power of two: libkdumpfile probes it */
	hdr->status = method_flag(how) |
		      (dd_partial(d) ? KDUMP_INCOMPLETE : 0);
	hdr->block_size = DISKDUMP_BLOCK_SIZE;
	hdr->sub_hdr_size = (int32_t)sub_blocks;
	hdr->bitmap_blocks = bitmap_blocks;
	hdr->max_mapnr = (uint32_t)d->h.max_pfn;
	hdr->current_cpu = d->h.panic_cpu;
	hdr->nr_cpus = (int32_t)d->h.nr_cpus;

	sub = (struct kdump_sub_header *)(blk + DISKDUMP_BLOCK_SIZE);
	if (dd_vmcoreinfo(d, "NUMBER(phys_base)", val, sizeof(val)))
		sub->phys_base = strtoull(val, NULL, 0);
	sub->dump_level = (int32_t)d->h.dump_level;
	sub->offset_note = DISKDUMP_BLOCK_SIZE + sizeof(*sub);
	sub->size_note = d->h.note_size;
	find_vmcoreinfo(d, &vi_off, &vi_len);
	if (vi_len) {
		sub->offset_vmcoreinfo = (int64_t)(sub->offset_note + vi_off);
		sub->size_vmcoreinfo = vi_len;
	}
	sub->max_mapnr_64 = d->h.max_pfn;
	memcpy(blk + sub->offset_note, d->notes, d->h.note_size);

	ret = dd_write_full(fd, blk, (1 + (size_t)sub_blocks) * DISKDUMP_BLOCK_SIZE, 0);
	free(blk);
	return ret;
}

/*
 * The dumpable bitmap: the pages of the dump bitmap the partition actually
 * holds (dd_rank_present()).
 */
static int write_bitmaps(const struct dd_dump *d, int fd, uint64_t off,
			 uint64_t map_bytes, uint64_t *nr_pages)
{
	uint8_t *present = calloc(1, map_bytes);
	uint64_t rank = 0, n = 0;
	int ret;

	if (!present)
		return -DD_EXIT_ERROR;
	for (uint64_t pfn = 0; pfn < d->h.max_pfn && rank < d->extent; pfn++) {
		if (!dd_test_bit(d->dump_map, pfn))
			continue;
		if (dd_rank_present(d, rank++)) {
			present[pfn / 8] |= (uint8_t)(1 << (pfn % 8));
			n++;
		}
	}
	*nr_pages = n;
	ret = dd_write_full(fd, d->ram_map, (d->h.max_pfn + 7) / 8, off);
	if (!ret)
		ret = dd_write_full(fd, present, map_bytes, off + map_bytes);
	free(present);
	return ret;
}

/*
 * A page kept takes at most a block, but its compressor may use PAGE_BOUND
 * bytes before it is known to be kept raw: room for that after the last.
 */
#define PACKED_SLACK	(PAGE_BOUND - DISKDUMP_BLOCK_SIZE)
#define ZERO_PAGE	(-1)
#define ABSENT_PAGE	(-2)	/* not written by an unfinished dump */

/*
 * A chunk of pages packed by a worker: its descriptors, their offsets
 * relative to the chunk's data (ZERO_PAGE: the shared zero page;
 * ABSENT_PAGE: a page not on the partition, which gets no descriptor),
 * then the data, @len bytes.  The writer makes the offsets the file's.
 */
struct packed {
	size_t len;
	struct kdump_page_desc pd[];	/* dd_pipe_chunk() of them, then the data */
};

static unsigned char *packed_data(struct packed *pk)
{
	return (unsigned char *)&pk->pd[dd_pipe_chunk()];
}

/*
 * Compress @n pages from @in, the pages of ranks @rank on of @d, into
 * @out, filling @pd and @len.
 */
static void pack_pages(struct packer *pk, const struct dd_dump *d, uint64_t rank,
		       const unsigned char *in, uint64_t n,
		       struct kdump_page_desc *pd, unsigned char *out, size_t *len)
{
	size_t used = 0;

	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *page = in + i * DISKDUMP_BLOCK_SIZE;
		size_t clen;

		memset(&pd[i], 0, sizeof(pd[i]));
		if (!dd_rank_present(d, rank + i)) {
			pd[i].offset = ABSENT_PAGE;
			continue;
		}
		if (page_is_zero(page)) {
			pd[i].offset = ZERO_PAGE;
			pd[i].size = DISKDUMP_BLOCK_SIZE;
			continue;
		}
		pd[i].offset = (int64_t)used;
		clen = compress_page(pk, page, out + used);
		if (clen && clen < DISKDUMP_BLOCK_SIZE) {
			pd[i].size = (uint32_t)clen;
			pd[i].flags = method_flag(pk->how);
		} else {
			memcpy(out + used, page, DISKDUMP_BLOCK_SIZE);
			pd[i].size = DISKDUMP_BLOCK_SIZE;
		}
		used += pd[i].size;
	}
	*len = used;
}

struct kdump_out {
	const struct dd_dump *d;
	int fd;
	struct packer *packers;		/* one per worker */
	uint64_t desc_off, zero_off;
	uint64_t data;			/* where the next page data goes */
	uint64_t done, nr_pages;	/* descriptors written, and to write */
	struct dd_behind behind;
};

static int kdump_work(void *arg, struct dd_chunk *c, unsigned int worker)
{
	struct kdump_out *o = arg;
	struct packed *pk = c->priv;

	pack_pages(&o->packers[worker], o->d, c->block - o->d->h.data_block, c->buf,
		   c->n, pk->pd, packed_data(pk), &pk->len);
	return 0;
}

/*
 * In order: the chunk's data where the last one's ended, then the
 * descriptors of its pages that are present, after the last chunk's.
 */
static int kdump_emit(void *arg, struct dd_chunk *c)
{
	struct kdump_out *o = arg;
	struct packed *pk = c->priv;
	uint64_t kept = 0;
	int ret;

	for (uint64_t i = 0; i < c->n; i++) {
		if (pk->pd[i].offset == ABSENT_PAGE)
			continue;
		pk->pd[kept] = pk->pd[i];
		pk->pd[kept].offset = pk->pd[i].offset == ZERO_PAGE ? (int64_t)o->zero_off :
				      (int64_t)o->data + pk->pd[i].offset;
		kept++;
	}
	if (o->done + kept > o->nr_pages) {
		fprintf(stderr, "savecore: more pages present than the bitmap says\n");
		return -DD_EXIT_ERROR;
	}
	ret = dd_write_full(o->fd, packed_data(pk), pk->len, o->data);
	if (!ret)
		ret = dd_write_full(o->fd, pk->pd, kept * sizeof(pk->pd[0]),
				    o->desc_off + o->done * sizeof(pk->pd[0]));
	if (ret)
		return ret;
	o->data += pk->len;
	dd_behind_advance(&o->behind, o->data);
	o->done += kept;
	dd_progress(o->d->opts.quiet, o->done, o->nr_pages);
	return 0;
}

int dd_write_kdump(struct dd_dev *dev, const struct dd_dump *d, int fd,
		   enum dd_compress how, uint64_t *bytes)
{
	uint64_t map_bytes, map_blocks, sub_blocks, off, nr_pages;
	unsigned int workers = dd_pipe_workers(), ready = 0;
	struct kdump_out o = { .d = d, .fd = fd };
	struct dd_pipe pipe = {
		.work = kdump_work, .emit = kdump_emit, .arg = &o,
		.priv_size = sizeof(struct packed) + PACKED_SLACK +
			     (size_t)dd_pipe_chunk() * (sizeof(struct kdump_page_desc) +
							DISKDUMP_BLOCK_SIZE),
	};
	unsigned char *zero = NULL;
	int ret;

	if (d->sealed)
		return -DD_EXIT_ERROR;	/* encrypted and no key */

	map_blocks = ((d->h.max_pfn + 7) / 8 + DISKDUMP_BLOCK_SIZE - 1) / DISKDUMP_BLOCK_SIZE;
	map_bytes = map_blocks * DISKDUMP_BLOCK_SIZE;
	sub_blocks = (sizeof(struct kdump_sub_header) + d->h.note_size +
		      DISKDUMP_BLOCK_SIZE - 1) / DISKDUMP_BLOCK_SIZE;
	if (2 * map_blocks > UINT32_MAX || sub_blocks > INT32_MAX)
		return -DD_EXIT_CORRUPT;
	if (how == DD_LZO && lzo_init() != LZO_E_OK)
		return -DD_EXIT_ERROR;
	o.packers = calloc(workers, sizeof(*o.packers));
	ret = o.packers ? 0 : -DD_EXIT_ERROR;
	for (; !ret && ready < workers; ready++)
		if (packer_init(&o.packers[ready], how))
			ret = -DD_EXIT_ERROR;
	if (ret)
		goto out;
	ret = write_headers(d, fd, how, (uint32_t)sub_blocks, (uint32_t)(2 * map_blocks));
	off = (1 + sub_blocks) * DISKDUMP_BLOCK_SIZE;
	if (!ret)
		ret = write_bitmaps(d, fd, off, map_bytes, &nr_pages);
	if (ret)
		goto out;

	o.desc_off = off + 2 * map_bytes;
	o.zero_off = o.desc_off + nr_pages * sizeof(struct kdump_page_desc);
	o.data = o.zero_off + DISKDUMP_BLOCK_SIZE;
	o.nr_pages = nr_pages;
	zero = calloc(1, DISKDUMP_BLOCK_SIZE);
	ret = zero ? dd_write_full(fd, zero, DISKDUMP_BLOCK_SIZE, o.zero_off) : -DD_EXIT_ERROR;
	dd_behind_init(&o.behind, fd, o.data);
	if (!ret)
		ret = dd_pipe_run(dev, d->h.data_block, d->extent, &pipe);
	if (!ret && o.done != o.nr_pages) {
		fprintf(stderr, "savecore: %" PRIu64 " pages written of the %" PRIu64 " present\n",
			o.done, o.nr_pages);
		ret = -DD_EXIT_ERROR;
	}
	free(zero);
out:
	for (unsigned int i = 0; o.packers && i < ready; i++)
		packer_free(&o.packers[i]);
	free(o.packers);
	if (bytes)
		*bytes = o.data;
	return ret;
}
