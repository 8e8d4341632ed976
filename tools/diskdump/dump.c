// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a dump from a diskdump partition, and writing it as an ELF core
 * file: the header and bitmaps loaded and checked (dd_load), the PT_LOAD
 * segments planned (dd_plan_segments), the ELF file written
 * (dd_write_elf), or the partition image as it is for an encrypted dump
 * without its key (dd_write_sealed).  savecore's library; kdump.c writes
 * the kdump-compressed format from the same struct dd_dump.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ddcore.h"
#include "savecore.h"

#define COPY_CHUNK	256		/* blocks per read: 1 MiB */
#define DUMP_ELF_INCOMPLETE 0x1		/* e_flags bit crash(8) honours */
/* x86_64: struct elf_prstatus's pr_reg, and struct user_regs_struct in it */
#define PRSTATUS_REG_OFF	112
#define X86_64_NR_REGS		27
#define X86_64_REG_SP		19
#define DD_MAX_TIME 253402300799ULL	/* 9999-12-31 23:59:59 UTC */

/*
 * A progress line on a terminal (stderr): pages done, MiB, rate and time
 * left.  Silent when stderr is not a terminal, or with -q.
 */
void dd_progress(bool quiet, uint64_t done, uint64_t total)
{
	static struct timespec start;
	static uint64_t last_done;
	struct timespec now;
	double secs, rate;

	if (quiet || !isatty(STDERR_FILENO) || !total)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!start.tv_sec || done < last_done)
		start = now;
	last_done = done;
	secs = (double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
	rate = secs > 0 ? (double)done * DISKDUMP_BLOCK_SIZE / secs / (1 << 20) : 0;
	fprintf(stderr,
		"\rsavecore: %3u%%  %" PRIu64 " of %" PRIu64 " MiB  %.1f MiB/s  ETA %.0f s   ",
		(unsigned int)(done * 100 / total), (done * DISKDUMP_BLOCK_SIZE) >> 20,
		(total * DISKDUMP_BLOCK_SIZE) >> 20, rate,
		rate > 0 ? (double)(total - done) * DISKDUMP_BLOCK_SIZE / (1 << 20) / rate : 0.0);
	if (done >= total) {
		fputc('\n', stderr);
		start.tv_sec = 0;
	}
}

/* Read block 0 into d->h if it is a dump header; else say what it is. */
static int load_block0(struct dd_dev *dev, struct dd_dump *d, char *why,
		       size_t whylen)
{
	uint8_t *block = dd_alloc_blocks(1);
	int ret = 0;

	if (!block || dd_read_blocks(dev, 0, block, 1)) {
		snprintf(why, whylen, "cannot read the first block");
		free(block);
		return -DD_EXIT_ERROR;
	}
	d->content = dd_classify(block, dev->blocks);
	switch (d->content) {
	case DD_EMPTY:
		snprintf(why, whylen, "no dump: the partition is formatted and empty");
		ret = -DD_EXIT_NODUMP;
		break;
	case DD_OLD_FORMAT:
		snprintf(why, whylen,
			 "formatted with diskdump format version 1, which the kernel no longer writes to; run diskdumpfmt %s to format it again",
			 dev->path);
		ret = -DD_EXIT_OLDFORMAT;
		break;
	case DD_DAMAGED:
		snprintf(why, whylen,
			 "block 0 is not what the diskdump format says; run diskdumpfmt %s to format it again",
			 dev->path);
		ret = -DD_EXIT_UNFORMATTED;
		break;
	case DD_FOREIGN:
		snprintf(why, whylen,
			 "not formatted for diskdump; run diskdumpfmt %s to format it",
			 dev->path);
		ret = -DD_EXIT_UNFORMATTED;
		break;
	case DD_DUMP:
	case DD_SAVED:	/* dd_load() tells it from the header's flags */
		memcpy(&d->h, block, sizeof(d->h));
		break;
	}
	free(block);
	return ret;
}

/*
 * Which of the dump's page blocks are on the partition: the first
 * written_pages of a finished dump; those the scan finds written in an
 * unfinished one.
 */
static int count_written(struct dd_dev *dev, struct dd_dump *d, char *why,
			 size_t whylen)
{
	/* the scan stops at the partition's end, whatever the header says */
	uint64_t ranks = d->h.nr_dump_pages < d->h.partition_blocks ?
			 d->h.nr_dump_pages : d->h.partition_blocks;

	if (d->h.status != DISKDUMP_STATUS_WRITING) {
		d->present = d->h.written_pages;
		d->extent = d->h.written_pages;
		d->scanned = d->h.written_pages;
		return 0;
	}
	d->written = calloc(1, ranks / 8 + 1);
	if (!d->written || dd_scan_written(dev, d)) {
		snprintf(why, whylen, "cannot find which pages the unfinished dump wrote: %s",
			 d->written ? "the scan failed" : "out of memory");
		return -DD_EXIT_ERROR;
	}
	return 0;
}

/*
 * A partial dump: pages the bitmap lists are not on the partition (a write
 * error, a panic in the dump), or the kernel had to leave pages of the dump
 * level out because the partition was too small (it then chooses the pages
 * it writes, and the bitmap lists only those).
 */
bool dd_partial(const struct dd_dump *d)
{
	return d->present < d->h.nr_dump_pages ||
	       (d->h.flags & DISKDUMP_FLAG_TRUNCATED);
}

int dd_load(struct dd_dev *dev, struct dd_dump *d,
	    const struct dd_load_opts *opts, char *why, size_t whylen)
{
	uint64_t nb, rank = 0, pfn;
	uint8_t *block;
	int ret;

	memset(d, 0, sizeof(*d));
	d->opts = *opts;
	ret = load_block0(dev, d, why, whylen);
	if (ret)
		return ret;
	if (d->opts.force) {
		/* -f: a header whose checksum is wrong is still read, every
		 * other check applies (and the reader is fuzzed without the crc)
		 */
		struct diskdump_header copy = d->h;
		uint32_t crc;

		copy.crc = 0;
		crc = dd_crc32(0, &copy, sizeof(copy));
		if (crc != d->h.crc) {
			fprintf(stderr,
				"savecore: %s: header checksum mismatch, reading it anyway (-f)\n",
				dev->path);
			d->h.crc = crc;
		}
	}
	if (dd_check_header(&d->h, dev->blocks, why, whylen))
		return -DD_EXIT_CORRUPT;
	if (d->h.flags & DISKDUMP_FLAG_SAVED) {
		d->content = DD_SAVED;
		snprintf(why, whylen,
			 "no dump: the dump was saved, but the partition was not formatted again");
		return -DD_EXIT_NODUMP;
	}
	if (d->h.bitmap_blocks != (d->h.max_pfn + DISKDUMP_BLOCK_SIZE * 8 - 1) /
				  (DISKDUMP_BLOCK_SIZE * 8)) {
		snprintf(why, whylen, "bitmap size does not match max_pfn");
		return -DD_EXIT_CORRUPT;
	}
	if (d->h.cipher != DISKDUMP_CIPHER_NONE) {
		int ret;

		if (!dev->keyfile) {
			/* saved as it is, to be decoded where the key is */
			d->sealed = true;
			return count_written(dev, d, why, whylen);
		}
		ret = dd_unseal(dev, &d->h, d->opts.force, why, whylen);
		if (ret)
			return ret;
	}

	nb = d->h.bitmap_blocks;
	d->ram_map = dd_alloc_blocks(nb);
	d->dump_map = dd_alloc_blocks(nb);
	d->notes = malloc(d->h.note_size ? d->h.note_size : 1);
	block = dd_alloc_blocks((d->h.note_size + DISKDUMP_BLOCK_SIZE - 1) /
				DISKDUMP_BLOCK_SIZE + 1);
	if (!d->ram_map || !d->dump_map || !d->notes || !block ||
	    dd_read_blocks(dev, d->h.bitmap_block, d->ram_map, nb) ||
	    dd_read_blocks(dev, d->h.bitmap_block + nb, d->dump_map, nb) ||
	    dd_read_blocks(dev, d->h.note_block, block,
			   (d->h.note_size + DISKDUMP_BLOCK_SIZE - 1) /
			   DISKDUMP_BLOCK_SIZE)) {
		free(block);
		snprintf(why, whylen, "cannot read the bitmaps or notes");
		return -DD_EXIT_ERROR;
	}
	memcpy(d->notes, block, d->h.note_size);
	free(block);

	for (pfn = 0; pfn < d->h.max_pfn; pfn++) {
		if (dd_test_bit(d->dump_map, pfn)) {
			if (!dd_test_bit(d->ram_map, pfn)) {
				snprintf(why, whylen, "page %" PRIu64 " dumped but not RAM", pfn);
				return -DD_EXIT_CORRUPT;
			}
			rank++;
		}
	}
	if (rank != d->h.nr_dump_pages) {
		snprintf(why, whylen, "dump bitmap has %" PRIu64 " pages, header says %" PRIu64,
			 rank, (uint64_t)d->h.nr_dump_pages);
		return -DD_EXIT_CORRUPT;
	}

	return count_written(dev, d, why, whylen);
}

/*
 * Whether the raw block @blk, the page block of rank @rank, was written.
 * A block still formatted, every byte of it, was not (a block of format
 * version 1, from an older kernel, counts as formatted too).  Nor was an
 * encrypted dump's block of zeros: the tail of a sealed file is sparse
 * (savecore -K reads one as the partition), and ciphertext is never a
 * page of zeros.
 */
static bool block_written(const struct diskdump_header *h, const char *blk,
			  uint64_t rank)
{
	static const char zero[DISKDUMP_BLOCK_SIZE];

	if (dd_fmt_block_check(blk, h->data_block + rank, h->partition_blocks) != DD_FMT_BAD)
		return false;
	return h->cipher == DISKDUMP_CIPHER_NONE || memcmp(blk, zero, sizeof(zero));
}

/*
 * The kernel stopped while writing: the header was never finalised.  Find
 * the page blocks it did write.  Writes in flight complete in any order
 * (an NVMe queue's do), so a block written may follow one that was not:
 * every block is looked at, a block that cannot be read counting as not
 * written.  Sets a bit of d->written (a bit per rank, zeroed) for each
 * block written, d->present to their count, d->extent to the last one's
 * rank + 1 and d->scanned to the ranks looked at.  Returns 0, or -1 if
 * there is no memory to read with.
 */
int dd_scan_written(struct dd_dev *dev, struct dd_dump *d)
{
	const struct diskdump_header *h = &d->h;
	uint64_t max = h->nr_dump_pages, done = 0;
	uint64_t end = dev->blocks < h->partition_blocks ? dev->blocks : h->partition_blocks;
	uint64_t room = end > h->data_block ? end - h->data_block : 0;
	char *buf = dd_alloc_blocks(COPY_CHUNK);

	if (!buf)
		return -1;
	d->present = 0;
	d->extent = 0;
	if (max > room)
		max = room;
	while (done < max) {
		uint64_t n = max - done < COPY_CHUNK ? max - done : COPY_CHUNK;
		bool whole = !dd_read_raw_blocks(dev, h->data_block + done, buf, n);

		for (uint64_t i = 0; i < n; i++, done++) {
			char *blk = buf + i * DISKDUMP_BLOCK_SIZE;

			/* a chunk that failed is read again block by block */
			if (!whole && dd_read_raw_blocks(dev, h->data_block + done, blk, 1))
				continue;
			if (!block_written(h, blk, done))
				continue;
			d->written[done / 8] |= (uint8_t)(1 << (done % 8));
			d->present++;
			d->extent = done + 1;
		}
	}
	free(buf);
	d->scanned = done;
	return 0;
}

void dd_free(struct dd_dump *d)
{
	free(d->ram_map);
	free(d->dump_map);
	free(d->notes);
	free(d->written);
	free(d->segs);
	free(d->rank_base);
	d->rank_base = NULL;
	d->ram_map = NULL;
	d->dump_map = NULL;
	d->notes = NULL;
	d->written = NULL;
	d->segs = NULL;
}

static int add_seg(struct dd_dump *d, uint64_t vaddr, uint64_t paddr,
		   uint64_t pages, uint64_t first_rank)
{
	struct dd_seg *s;

	if (d->nr_segs == DD_MAX_SEGS)
		return -1;
	if (d->nr_segs == d->cap_segs) {
		size_t cap = d->cap_segs ? d->cap_segs * 2 : 64;

		s = realloc(d->segs, cap * sizeof(*s));
		if (!s)
			return -1;
		d->segs = s;
		d->cap_segs = cap;
	}
	s = &d->segs[d->nr_segs++];
	s->vaddr = vaddr;
	s->paddr = paddr;
	s->pages = pages;
	s->first_rank = first_rank;
	return 0;
}

/*
 * Runs of present pages (dumped and actually written), within
 * [lo_pfn, hi_pfn), each becoming a segment mapped at vbase + paddr - pbase.
 */
static int add_runs(struct dd_dump *d, uint64_t lo_pfn, uint64_t hi_pfn,
		    uint64_t vbase, uint64_t pbase)
{
	uint64_t pfn, rank = 0, run_start = 0, run_rank = 0;
	bool in_run = false;

	if (hi_pfn > d->h.max_pfn)
		hi_pfn = d->h.max_pfn;
	for (pfn = 0; pfn <= hi_pfn; pfn++) {
		bool present = pfn < hi_pfn && dd_test_bit(d->dump_map, pfn) &&
			       dd_rank_present(d, rank) && pfn >= lo_pfn;

		if (present && !in_run) {
			in_run = true;
			run_start = pfn;
			run_rank = rank;
		} else if (!present && in_run) {
			uint64_t pa = run_start * DISKDUMP_BLOCK_SIZE;

			in_run = false;
			if (add_seg(d, vbase + pa - pbase, pa, pfn - run_start, run_rank))
				return -1;
		}
		if (pfn < hi_pfn && dd_test_bit(d->dump_map, pfn))
			rank++;
	}
	return 0;
}

/* ---- page tables, to give gdb the vmalloc'd stacks of the CPUs ---- */

#define START_KERNEL_MAP	0xffffffff80000000ULL
#define PTE_ADDR_MASK		0x000ffffffffff000ULL
#define THREAD_SIZE		(16 * 1024)
#define KERNEL_SPACE_START	0xffff800000000000ULL

/* Look a KEY=value up in the VMCOREINFO note; value as text, or NULL. */
const char *dd_vmcoreinfo(const struct dd_dump *d, const char *key, char *val,
			  size_t vallen)
{
	size_t klen = strlen(key);
	struct dd_note vmci;
	const char *p, *end;

	if (!dd_find_vmcoreinfo(d->notes, d->h.note_size, &vmci))
		return NULL;
	for (p = vmci.desc, end = p + vmci.descsz; p < end; ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len > klen && !memcmp(p, key, klen) && p[klen] == '=') {
			snprintf(val, vallen, "%.*s", (int)(len - klen - 1),
				 p + klen + 1);
			return val;
		}
		p += len + 1;
	}
	return NULL;
}

/* Rank of @pfn among the dumped pages, or -1 if its page is not saved. */
static int64_t pfn_rank(struct dd_dump *d, uint64_t pfn)
{
	uint64_t chunk, rank, p;

	if (pfn >= d->h.max_pfn || !dd_test_bit(d->dump_map, pfn))
		return -1;
	if (!d->rank_base) {
		uint64_t nchunks = d->h.max_pfn / 4096 + 1;

		d->rank_base = calloc(nchunks, sizeof(*d->rank_base));
		if (!d->rank_base)
			return -1;
		for (rank = 0, p = 0; p < d->h.max_pfn; p++) {
			if (p % 4096 == 0)
				d->rank_base[p / 4096] = rank;
			rank += dd_test_bit(d->dump_map, p);
		}
	}
	chunk = pfn / 4096;
	rank = d->rank_base[chunk];
	for (p = chunk * 4096; p < pfn; p++)
		rank += dd_test_bit(d->dump_map, p);
	return dd_rank_present(d, rank) ? (int64_t)rank : -1;
}

static int read_phys_u64(struct dd_dev *dev, struct dd_dump *d, uint64_t pa,
			 uint64_t *val)
{
	int64_t rank = pfn_rank(d, pa / DISKDUMP_BLOCK_SIZE);
	static uint8_t block[DISKDUMP_BLOCK_SIZE];

	if (rank < 0 || pa % 8 ||
	    dd_read_blocks(dev, d->h.data_block + (uint64_t)rank, block, 1))
		return -1;
	memcpy(val, block + pa % DISKDUMP_BLOCK_SIZE, 8);
	return 0;
}

/* Walk the 4-level kernel page tables in the dump; physical address or -1. */
static int64_t dd_translate(struct dd_dev *dev, struct dd_dump *d,
			    uint64_t pgd_pa, uint64_t va)
{
	static const int shift[] = { 39, 30, 21, 12 };
	uint64_t table = pgd_pa, e = 0;

	for (int level = 0; level < 4; level++) {
		if (read_phys_u64(dev, d, table + ((va >> shift[level]) & 511) * 8, &e) ||
		    !(e & 1))
			return -1;
		if (level > 0 && level < 3 && (e & 0x80)) {	/* 1 GiB or 2 MiB page */
			uint64_t size = 1ULL << shift[level];

			return (int64_t)(((e & PTE_ADDR_MASK) & ~(size - 1)) | (va & (size - 1)));
		}
		table = e & PTE_ADDR_MASK;
	}
	return (int64_t)(table | (va & 0xfff));
}

/*
 * gdb reads a core by virtual address, through the PT_LOADs only.  With
 * CONFIG_VMAP_STACK the stacks live in vmalloc space, outside the direct
 * map: add a segment for each page of the stack every CPU was running on.
 */
static int map_cpu_stacks(struct dd_dev *dev, struct dd_dump *d)
{
	char val[64];
	uint64_t pgd_pa, phys_base;
	struct dd_note note;
	size_t off = 0;

	/* Off by default: crash 8.0.2 corrupts its heap on such segments. */
	if (!d->opts.map_stacks)
		return 0;
	if (!dd_vmcoreinfo(d, "SYMBOL(swapper_pg_dir)", val, sizeof(val)))
		return 0;
	pgd_pa = strtoull(val, NULL, 16);
	if (!dd_vmcoreinfo(d, "NUMBER(phys_base)", val, sizeof(val)))
		return 0;
	phys_base = (uint64_t)strtoll(val, NULL, 10);
	if (dd_vmcoreinfo(d, "NUMBER(pgtable_l5_enabled)", val, sizeof(val)) &&
	    strcmp(val, "0"))
		return 0;	/* 5-level paging: not handled, gdb gets no stacks */
	if (pgd_pa < START_KERNEL_MAP)
		return 0;
	pgd_pa = pgd_pa - START_KERNEL_MAP + phys_base;

	while (dd_note_next(d->notes, d->h.note_size, &off, &note)) {
		uint64_t rsp, base;

		if (note.type != NT_PRSTATUS ||
		    note.descsz < PRSTATUS_REG_OFF + X86_64_NR_REGS * 8)
			continue;
		memcpy(&rsp, note.desc + PRSTATUS_REG_OFF + X86_64_REG_SP * 8, 8);
		base = rsp & ~(uint64_t)(THREAD_SIZE - 1);
		for (uint64_t va = base; rsp >= KERNEL_SPACE_START &&
		     va < base + THREAD_SIZE; va += DISKDUMP_BLOCK_SIZE) {
			int64_t pa = dd_translate(dev, d, pgd_pa, va), rank;

			if (pa < 0)
				continue;
			rank = pfn_rank(d, (uint64_t)pa / DISKDUMP_BLOCK_SIZE);
			if (rank >= 0 && add_seg(d, va, (uint64_t)pa & ~0xfffULL, 1,
						 (uint64_t)rank))
				return -1;
		}
	}
	return 0;
}

/* A kernel image that fits in the RAM the header describes. */
static bool kernel_image_ok(const struct diskdump_header *h)
{
	uint64_t ram = h->max_pfn * DISKDUMP_BLOCK_SIZE;

	return h->kernel_size && h->kernel_size <= ram && h->kernel_paddr <= ram - h->kernel_size;
}

int dd_plan_segments(struct dd_dev *dev, struct dd_dump *d)
{
	const struct diskdump_header *h = &d->h;
	uint64_t klo = h->kernel_paddr / DISKDUMP_BLOCK_SIZE;
	uint64_t khi = (h->kernel_paddr + h->kernel_size + DISKDUMP_BLOCK_SIZE - 1) /
		       DISKDUMP_BLOCK_SIZE;

	if (d->sealed)
		return -1;	/* encrypted and no key: no bitmaps to plan from */

	d->nr_segs = 0;
	/*
	 * Order matters to the readers: crash takes phys_base from the first
	 * PT_LOAD at or above the kernel image mapping, makedumpfile the
	 * direct-map base from the last PT_LOAD below it.  So: the CPU
	 * stacks, the kernel image, then the direct map.
	 */
	if (map_cpu_stacks(dev, d))
		return -1;
	if (kernel_image_ok(h) && add_runs(d, klo, khi, h->kernel_vaddr, h->kernel_paddr))
		return -1;
	return add_runs(d, 0, h->max_pfn, h->page_offset, 0);
}

/* Partition blocks copied as they are into a file, front to back. */
struct copy_out {
	int fd;
	uint64_t first;		/* the first block of the run being copied */
	uint64_t off;		/* where it goes in the file */
	uint64_t done, total;	/* blocks, for the progress line */
	bool quiet;		/* no progress line */
	struct dd_behind behind;
};

static int copy_emit(void *arg, struct dd_chunk *c)
{
	struct copy_out *o = arg;
	uint64_t at = o->off + (c->block - o->first) * DISKDUMP_BLOCK_SIZE;
	int ret = dd_write_full(o->fd, c->buf, c->n * DISKDUMP_BLOCK_SIZE, at);

	if (ret)
		return ret;
	dd_behind_advance(&o->behind, at + c->n * DISKDUMP_BLOCK_SIZE);
	o->done += c->n;
	dd_progress(o->quiet, o->done, o->total);
	return 0;
}

/* Copy @n blocks from @block of the partition to @off of the file. */
static int copy_blocks(struct dd_dev *dev, struct copy_out *o, uint64_t block,
		       uint64_t n, uint64_t off)
{
	const struct dd_pipe pipe = { .emit = copy_emit, .arg = o };

	o->first = block;
	o->off = off;
	return dd_pipe_run(dev, block, n, &pipe);
}

uint64_t dd_elf_size(const struct dd_dump *d)
{
	uint64_t off = sizeof(Elf64_Ehdr) + (d->nr_segs + 1) * sizeof(Elf64_Phdr) +
		       d->h.note_size;

	off = (off + DISKDUMP_BLOCK_SIZE - 1) & ~(uint64_t)(DISKDUMP_BLOCK_SIZE - 1);
	for (size_t i = 0; i < d->nr_segs; i++)
		off += d->segs[i].pages * DISKDUMP_BLOCK_SIZE;
	return off;
}

int dd_write_elf(struct dd_dev *dev, const struct dd_dump *d, int fd)
{
	size_t nph = d->nr_segs + 1, hdrlen = sizeof(Elf64_Ehdr) + nph * sizeof(Elf64_Phdr);
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	struct copy_out o = { .fd = fd, .quiet = d->opts.quiet };
	uint64_t off;
	char *hdr;
	int ret = 0;

	if (d->sealed)
		return -DD_EXIT_ERROR;

	hdr = calloc(1, hdrlen + d->h.note_size);
	if (!hdr)
		return -DD_EXIT_ERROR;
	eh = (Elf64_Ehdr *)hdr;
	ph = (Elf64_Phdr *)(hdr + sizeof(*eh));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh->e_type = ET_CORE;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = (Elf64_Half)nph;
	if (dd_partial(d))
		eh->e_flags |= DUMP_ELF_INCOMPLETE;

	/* The notes come right after the headers, before any load data. */
	ph[0].p_type = PT_NOTE;
	ph[0].p_offset = hdrlen;
	ph[0].p_filesz = d->h.note_size;
	ph[0].p_memsz = d->h.note_size;
	memcpy(hdr + hdrlen, d->notes, d->h.note_size);

	off = (hdrlen + d->h.note_size + DISKDUMP_BLOCK_SIZE - 1) &
	      ~(uint64_t)(DISKDUMP_BLOCK_SIZE - 1);
	for (size_t i = 0; i < d->nr_segs; i++) {
		const struct dd_seg *s = &d->segs[i];

		ph[i + 1].p_type = PT_LOAD;
		ph[i + 1].p_flags = PF_R | PF_W | PF_X;
		ph[i + 1].p_offset = off;
		ph[i + 1].p_vaddr = s->vaddr;
		ph[i + 1].p_paddr = s->paddr;
		ph[i + 1].p_filesz = s->pages * DISKDUMP_BLOCK_SIZE;
		ph[i + 1].p_memsz = s->pages * DISKDUMP_BLOCK_SIZE;
		ph[i + 1].p_align = 0;	/* crash(8) reads p_align 0 as a kdump */
		off += s->pages * DISKDUMP_BLOCK_SIZE;
	}
	if (pwrite(fd, hdr, hdrlen + d->h.note_size, 0) != (ssize_t)(hdrlen + d->h.note_size)) {
		fprintf(stderr, "savecore: write: %s\n", strerror(errno));
		ret = errno == ENOSPC ? -DD_EXIT_NOSPACE : -DD_EXIT_ERROR;
	}
	dd_behind_init(&o.behind, fd, 0);
	for (size_t i = 0; i < d->nr_segs; i++)
		o.total += d->segs[i].pages;
	for (size_t i = 0, j; i < d->nr_segs && !ret; i = j) {
		uint64_t pages = d->segs[i].pages;

		/* runs that follow each other on the partition: one copy */
		for (j = i + 1; j < d->nr_segs &&
		     d->segs[j].first_rank == d->segs[i].first_rank + pages; j++)
			pages += d->segs[j].pages;
		ret = copy_blocks(dev, &o, d->h.data_block + d->segs[i].first_rank, pages,
				  ph[i + 1].p_offset);
	}
	free(hdr);
	return ret;
}

/* The panic time, unless the header's is beyond what gmtime_r() takes. */
bool dd_panic_tm(const struct diskdump_header *h, struct tm *tm)
{
	time_t t = (time_t)h->time_sec;

	return h->time_sec <= DD_MAX_TIME && gmtime_r(&t, tm);
}

/* A string of the header: to its NUL or @len bytes, printable ASCII only. */
static void put_str(FILE *f, const char *key, const char *s, size_t len)
{
	fprintf(f, "%s: ", key);
	for (size_t i = 0; i < len && s[i]; i++)
		fputc(s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?', f);
	fputc('\n', f);
}

/* "flags: none", or their names; bits savecore does not know in hex. */
static void print_flags(FILE *f, uint32_t flags)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ DISKDUMP_FLAG_TRUNCATED, "truncated" },
		{ DISKDUMP_FLAG_IO_ERROR, "io-error" },
		{ DISKDUMP_FLAG_IRQS_ON, "irqs-on" },
		{ DISKDUMP_FLAG_SAVED, "saved" },
	};

	fputs("flags:", f);
	if (!flags)
		fputs(" none", f);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (flags & names[i].bit) {
			fprintf(f, " %s", names[i].name);
			flags &= ~names[i].bit;
		}
	}
	if (flags)
		fprintf(f, " 0x%" PRIx32, flags);
	fputc('\n', f);
}

static void print_times(FILE *f, const struct diskdump_header *h)
{
	fprintf(f, "timers_run: %" PRIu64 "\n", (uint64_t)h->timers_run);
	fprintf(f, "tasklets_run: %" PRIu64 "\n", (uint64_t)h->tasklets_run);
	fprintf(f, "unreadable_pages: %" PRIu64 "\n", (uint64_t)h->unreadable_pages);
	fprintf(f, "hwpoison_pages: %" PRIu64 "\n", (uint64_t)h->hwpoison_pages);
	fprintf(f, "check_blocks: %" PRIu64 "\n", (uint64_t)h->check_blocks);
	fprintf(f, "check_ms: %" PRIu64 "\n", (uint64_t)h->check_ns / 1000000);
	fprintf(f, "verify_ms: %" PRIu64 "\n", (uint64_t)h->verify_ns / 1000000);
	fprintf(f, "write_ms: %" PRIu64 "\n", (uint64_t)h->write_ns / 1000000);
}

static void print_cipher(FILE *f, const struct diskdump_header *h)
{
	char id[2 * DISKDUMP_KEY_ID_SIZE + 1];

	if (h->cipher == DISKDUMP_CIPHER_NONE) {
		fprintf(f, "encryption: none\n");
		return;
	}
	dd_key_id_hex(h->key_id, id);
	fprintf(f, "encryption: chacha20-poly1305, RSA-%u\n", h->wrapped_key_size * 8);
	fprintf(f, "key_id: sha256:%s\n", id);
}

void dd_print_summary(FILE *f, const struct dd_dump *d, const char *dev)
{
	const struct diskdump_header *h = &d->h;
	char when[64];
	struct tm tm;

	if (dd_panic_tm(h, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	else
		snprintf(when, sizeof(when), "invalid (%" PRIu64 ")", (uint64_t)h->time_sec);
	put_str(f, "device", dev, strlen(dev));
	fprintf(f, "status: %s\n", dd_status_name(h->status));
	print_flags(f, h->flags);
	fprintf(f, "time: %s\n", when);
	put_str(f, "host", h->nodename, sizeof(h->nodename));
	put_str(f, "release", h->release, sizeof(h->release));
	put_str(f, "version", h->version_str, sizeof(h->version_str));
	put_str(f, "machine", h->machine, sizeof(h->machine));
	put_str(f, "panic", h->panic_msg, sizeof(h->panic_msg));
	fprintf(f, "panic_cpu: %u\n", h->panic_cpu);
	fprintf(f, "cpus: %u\n", h->nr_cpus);
	fprintf(f, "cpu_notes: %u\n", h->nr_cpu_notes);
	fprintf(f, "dump_level: %u\n", h->dump_level);
	fprintf(f, "ram_pages: %" PRIu64 "\n", (uint64_t)h->nr_ram_pages);
	fprintf(f, "dump_pages: %" PRIu64 "\n", (uint64_t)h->nr_dump_pages);
	fprintf(f, "saved_pages: %" PRIu64 "\n", d->present);
	fprintf(f, "partial: %s\n", dd_partial(d) ? "yes" : "no");
	print_times(f, h);
	print_cipher(f, h);
}

/*
 * An encrypted dump without its key: the partition image as it is, up to
 * the last block the dump may have used, sparse to the partition's size,
 * so that savecore -K reads the file as it would the partition.  Of an
 * unfinished dump, every block its scan looked at: the blocks still
 * formatted say which were not written, and the scan takes the sparse
 * tail as not written either.  (One block more, as older savecores
 * copied: the block that ended their scan.)
 */
uint64_t dd_sealed_blocks(const struct dd_dump *d)
{
	uint64_t end = d->h.data_block + d->scanned + 1;

	return end < d->h.partition_blocks ? end : d->h.partition_blocks;
}

int dd_write_sealed(struct dd_dev *dev, const struct dd_dump *d, int fd)
{
	struct copy_out o = {
		.fd = fd, .total = dd_sealed_blocks(d), .quiet = d->opts.quiet,
	};
	int ret;

	dd_behind_init(&o.behind, fd, 0);
	ret = copy_blocks(dev, &o, 0, o.total, 0);
	if (ret)
		return -DD_EXIT_ERROR;
	if (ftruncate(fd, (off_t)(d->h.partition_blocks * DISKDUMP_BLOCK_SIZE)))
		return errno == ENOSPC ? -DD_EXIT_NOSPACE : -DD_EXIT_ERROR;
	return 0;
}
