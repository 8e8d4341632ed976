// SPDX-License-Identifier: GPL-2.0
/*
 * savecore - save a crash dump from a diskdump partition
 *
 *   savecore [options] DEVICE [DIR]
 *
 * Reads the dump that the kernel wrote to DEVICE at panic time and writes it
 * to DIR/HOST-DATE/vmcore as an ELF core file (PT_NOTE with the CPUs'
 * NT_PRSTATUS notes and VMCOREINFO, a PT_LOAD per run of saved RAM and one
 * for the kernel image), plus an info file.  Only once both are written and
 * fsync'd is the partition formatted again for the next crash.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

static struct {
	bool check_only, verbose, keep, force, quiet, map_stacks;
	bool kdump;			/* -F kdump: kdump-compressed output */
	const char *keyfile;		/* -K: private key of encrypted dumps */
	enum dd_compress compress;	/* -Z: zlib (the default), lzo, zstd, none */
	unsigned int keep_dumps;	/* -n: at most this many dumps in DIR */
	uint64_t min_free;		/* bytes */
} opt = { .compress = DD_ZLIB, .map_stacks = true };

static const char *const compress_names[] = {
	[DD_NONE] = "none", [DD_ZLIB] = "zlib", [DD_LZO] = "lzo", [DD_ZSTD] = "zstd",
};

/*
 * A progress line on a terminal (stderr): pages done, MiB, rate and time
 * left.  Silent when stderr is not a terminal, or with -q.
 */
void dd_progress(uint64_t done, uint64_t total)
{
	static struct timespec start;
	static uint64_t last_done;
	struct timespec now;
	double secs, rate;

	if (opt.quiet || !isatty(STDERR_FILENO) || !total)
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

#define info(...) do { if (!opt.quiet) printf(__VA_ARGS__); } while (0)
#define verbose(...) do { if (opt.verbose) printf(__VA_ARGS__); } while (0)

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

int dd_load(struct dd_dev *dev, struct dd_dump *d, char *why, size_t whylen)
{
	uint64_t nb, rank = 0, pfn, written;
	uint8_t *block;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = load_block0(dev, d, why, whylen);
	if (ret)
		return ret;
	if (opt.force) {
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
			d->present = d->h.status == DISKDUMP_STATUS_WRITING ?
				     dd_scan_written(dev, &d->h) : d->h.written_pages;
			return 0;
		}
		ret = dd_unseal(dev, &d->h, opt.force, why, whylen);
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

	written = d->h.written_pages;
	if (d->h.status == DISKDUMP_STATUS_WRITING)
		written = dd_scan_written(dev, &d->h);
	d->present = written;
	return 0;
}

/*
 * The kernel stopped while writing: the header was never finalised.  The
 * page blocks it did write are no longer formatted; the first one that is,
 * every byte of it (or a block of format version 1, from an older kernel),
 * marks where it stopped.
 */
uint64_t dd_scan_written(struct dd_dev *dev, const struct diskdump_header *h)
{
	uint64_t max = h->nr_dump_pages, done = 0;
	uint64_t end = dev->blocks < h->partition_blocks ? dev->blocks : h->partition_blocks;
	uint64_t room = end > h->data_block ? end - h->data_block : 0;
	char *buf = dd_alloc_blocks(COPY_CHUNK);

	if (max > room)
		max = room;
	while (buf && done < max) {
		uint64_t n = max - done < COPY_CHUNK ? max - done : COPY_CHUNK;

		if (dd_read_raw_blocks(dev, h->data_block + done, buf, n))
			break;
		for (uint64_t i = 0; i < n; i++, done++)
			if (dd_fmt_block_check(buf + i * DISKDUMP_BLOCK_SIZE,
					       h->data_block + done,
					       h->partition_blocks) != DD_FMT_BAD)
				goto out;
	}
out:
	free(buf);
	return done;
}

void dd_free(struct dd_dump *d)
{
	free(d->ram_map);
	free(d->dump_map);
	free(d->notes);
	free(d->segs);
	free(d->rank_base);
	d->rank_base = NULL;
	d->ram_map = NULL;
	d->dump_map = NULL;
	d->notes = NULL;
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
			       rank < d->present && pfn >= lo_pfn;

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
	return rank < d->present ? (int64_t)rank : -1;
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
	if (!opt.map_stacks)
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
	dd_progress(o->done, o->total);
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
	struct copy_out o = { .fd = fd };
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

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: savecore [options] DEVICE [DIR]\n"
		"Save the crash dump on the diskdump partition DEVICE into\n"
		"DIR/HOST-YYYYMMDD-HHMMSS/ (default DIR: /var/crash), then format DEVICE again.\n"
		"  -c, --check         only say what DEVICE holds, in a line 'state: STATE'\n"
		"                      on stdout (and the summary of a dump); a partition\n"
		"                      without a dump is read whole, every block compared\n"
		"                      with the format\n"
		"  -k, --keep          do not format DEVICE after saving\n"
		"  -S, --no-map-stacks leave out the PT_LOADs for the CPUs' vmalloc'd\n"
		"                      stacks, which let gdb unwind them (-s: keep them,\n"
		"                      the default)\n"
		"  -m, --min-free MB   keep at least MB megabytes free in DIR\n"
		"  -F, --format FMT    elf (default) or kdump (kdump-compressed, as\n"
		"                      makedumpfile writes it)\n"
		"  -Z, --compress ALG  for kdump: zlib (default), lzo, zstd or none\n"
		"  -n, --keep-dumps N  keep only the newest N dumps in DIR: after saving, and\n"
		"                      before, if DIR lacks the space (but never one of the\n"
		"                      newest N-1)\n"
		"  -K, --key FILE      the RSA private key (PEM) of an encrypted dump;\n"
		"                      without it an encrypted dump is saved as it is\n"
		"  -f, --force         read a dump whose header checksum is wrong, or an\n"
		"                      encrypted dump that was never finished (unverified)\n"
		"  -v, --verbose       say more\n"
		"  -q, --quiet         print only errors (and, with -c, the state line)\n"
		"  -h, --help          this text\n"
		"  -V, --version       print the version\n"
		"exit status, and the state -c prints:\n"
		"  0  a dump is there, or it was saved             state: dump\n"
		"  1  error: I/O, an unusable DIR\n"
		"  2  usage\n"
		"  3  formatted and empty: no dump                 state: empty\n"
		"  4  a dump savecore cannot trust (left as is)    state: damaged\n"
		"  5  not enough space in DIR\n"
		"  6  not formatted for diskdump                   state: unformatted\n"
		"     or a block not what the format says          state: damaged\n"
		"  7  format version 1: run diskdumpfmt DEVICE     state: old-format\n");
}

#define DD_MAX_TIME 253402300799ULL	/* 9999-12-31 23:59:59 UTC */

/* The panic time, unless the header's is beyond what gmtime_r() takes. */
static bool panic_tm(const struct diskdump_header *h, struct tm *tm)
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

	if (panic_tm(h, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	else
		snprintf(when, sizeof(when), "invalid (%" PRIu64 ")", (uint64_t)h->time_sec);
	fprintf(f, "device: %s\n", dev);
	fprintf(f, "status: %s\n", dd_status_name(h->status));
	fprintf(f, "flags:%s%s%s%s%s\n", h->flags & DISKDUMP_FLAG_TRUNCATED ? " truncated" : "",
		h->flags & DISKDUMP_FLAG_IO_ERROR ? " io-error" : "",
		h->flags & DISKDUMP_FLAG_IRQS_ON ? " irqs-on" : "",
		h->flags & DISKDUMP_FLAG_SAVED ? " saved" : "",
		h->flags ? "" : " none");
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
 * the last block the dump used (and the format block after it, which marks
 * where an unfinished dump stopped), sparse to the partition's size, so
 * that savecore -K reads the file as it would the partition.
 */
static uint64_t sealed_blocks(const struct dd_dump *d)
{
	uint64_t end = d->h.data_block + d->present + 1;

	return end < d->h.partition_blocks ? end : d->h.partition_blocks;
}

static int save_sealed(struct dd_dev *dev, const struct dd_dump *d, int fd)
{
	struct copy_out o = { .fd = fd, .total = sealed_blocks(d) };
	int ret;

	dd_behind_init(&o.behind, fd, 0);
	ret = copy_blocks(dev, &o, 0, o.total, 0);
	if (ret)
		return -DD_EXIT_ERROR;
	if (ftruncate(fd, (off_t)(d->h.partition_blocks * DISKDUMP_BLOCK_SIZE)))
		return errno == ENOSPC ? -DD_EXIT_NOSPACE : -DD_EXIT_ERROR;
	return 0;
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static void host_name(const struct diskdump_header *h, char *out, size_t len)
{
	size_t n = strnlen(h->nodename, sizeof(h->nodename)), i;

	/* "(none)": the kernel's default, nobody set a host name */
	if (!n || (n == 6 && !memcmp(h->nodename, "(none)", 6))) {
		snprintf(out, len, "localhost");
		return;
	}
	for (i = 0; i < n && i + 1 < len; i++)
		out[i] = is_name_char(h->nodename[i]) ? h->nodename[i] : '_';
	out[i] = 0;
	if (out[0] == '.')
		out[0] = '_';
}

void dd_dump_dir_name(const struct diskdump_header *h, char *out, size_t len)
{
	char host[DISKDUMP_UTS_LEN + 1], stamp[32];
	struct tm tm;

	host_name(h, host, sizeof(host));
	if (panic_tm(h, &tm))
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	else
		snprintf(stamp, sizeof(stamp), "00000000-000000");
	snprintf(out, len, "%s-%s", host, stamp);
}

#define STAMP_LEN 16	/* -YYYYMMDD-HHMMSS */

bool dd_is_dump_dir_name(const char *name)
{
	size_t len = strlen(name);
	const char *dot = strrchr(name, '.'), *stamp;

	/* the ".N" make_target_dir() adds when the name is taken */
	if (dot && dot[1] && strlen(dot + 1) <= 2 && all_digits(dot + 1, strlen(dot + 1)))
		len = (size_t)(dot - name);
	if (len <= STAMP_LEN || len - STAMP_LEN > DISKDUMP_UTS_LEN)
		return false;
	stamp = name + len - STAMP_LEN;
	if (stamp[0] != '-' || !all_digits(stamp + 1, 8) || stamp[9] != '-' ||
	    !all_digits(stamp + 10, 6))
		return false;
	for (size_t i = 0; i < len - STAMP_LEN; i++)
		if (!is_name_char(name[i]))
			return false;
	return true;
}

static int make_target_dir(const char *dir, const struct diskdump_header *h,
			   char *out, size_t outlen)
{
	char name[DD_DIR_NAME_MAX];

	dd_dump_dir_name(h, name, sizeof(name));
	for (int i = 0; i < 100; i++) {
		if (i)
			snprintf(out, outlen, "%s/%s.%d", dir, name, i);
		else
			snprintf(out, outlen, "%s/%s", dir, name);
		if (!mkdir(out, 0700))
			return 0;
		if (errno != EEXIST)
			break;
	}
	fprintf(stderr, "savecore: %s: %s\n", out, strerror(errno));
	return -1;
}

static int fsync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = fsync(fd);
	close(fd);
	return ret;
}

/* ---- rotation: only what savecore wrote, never through a symlink ---- */

/* A saved dump: a directory of DIR holding savecore's info. */
struct saved {
	char name[NAME_MAX + 1];
	struct timespec when;	/* of its info */
	uint64_t bytes;		/* what removing it frees */
};

/* Every file savecore writes in a dump directory; info last. */
static const char *const saved_files[] = {
	"vmcore", "vmcore.encrypted", "vmcore.incomplete", "info",
};

static int by_age(const void *a, const void *b)
{
	const struct saved *x = a, *y = b;

	if (x->when.tv_sec != y->when.tv_sec)
		return x->when.tv_sec < y->when.tv_sec ? -1 : 1;
	if (x->when.tv_nsec != y->when.tv_nsec)
		return x->when.tv_nsec < y->when.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A regular file (not a link), opened without blocking on a FIFO. */
static int open_regular(int dfd, const char *name, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, st) || !S_ISREG(st->st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The info file savecore writes starts with the device line. */
static bool info_is_ours(int dfd, struct timespec *when)
{
	static const char want[] = "device: ";
	char head[sizeof(want) - 1];
	struct stat st;
	bool ours;
	int fd = open_regular(dfd, "info", &st);

	if (fd < 0)
		return false;
	ours = pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
	       !memcmp(head, want, sizeof(head));
	*when = st.st_mtim;
	close(fd);
	return ours;
}

static uint64_t saved_bytes(int dfd)
{
	uint64_t bytes = 0;
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(saved_files); i++)
		if (!fstatat(dfd, saved_files[i], &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode))
			bytes += (uint64_t)st.st_blocks * 512;
	return bytes;
}

static bool is_saved_dump(int dirfd, const char *name, struct saved *s)
{
	struct stat st;
	bool ours;
	int dfd;

	if (!dd_is_dump_dir_name(name) ||
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
		return false;
	dfd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return false;
	ours = info_is_ours(dfd, &s->when);
	if (ours) {
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->bytes = saved_bytes(dfd);
	}
	close(dfd);
	return ours;
}

/* The dumps savecore saved in @dirfd, oldest first: how many, or -1. */
static int list_saved(int dirfd, struct saved **out, size_t *n)
{
	struct saved *list = NULL, *l;
	size_t cap = 0;
	struct dirent *e;
	int fd = dup(dirfd);
	DIR *dp = fd >= 0 ? fdopendir(fd) : NULL;

	*n = 0;
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(dp))) {
		if (*n == cap) {
			l = realloc(list, (cap ? 2 * cap : 16) * sizeof(*l));
			if (!l)
				break;
			list = l;
			cap = cap ? 2 * cap : 16;
		}
		if (is_saved_dump(dirfd, e->d_name, &list[*n]))
			(*n)++;
	}
	closedir(dp);
	if (*n)
		qsort(list, *n, sizeof(*list), by_age);
	*out = list;
	return 0;
}

/* Remove savecore's files, then the directory if nothing else is left. */
static void remove_saved(int dirfd, const char *dir, const struct saved *s,
			 const char *why)
{
	struct stat st;
	int dfd = openat(dirfd, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(saved_files); i++)
		if (!fstatat(dfd, saved_files[i], &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode))
			unlinkat(dfd, saved_files[i], 0);
	close(dfd);
	if (unlinkat(dirfd, s->name, AT_REMOVEDIR))
		fprintf(stderr, "savecore: rotating: %s/%s: %s%s\n", dir, s->name, strerror(errno),
			errno == ENOTEMPTY ? " (files savecore did not write stay)" : "");
	else
		info("savecore: removed the old dump %s/%s (%s)\n", dir, s->name, why);
}

size_t dd_rotation_victims(const uint64_t *bytes, size_t n, unsigned int keep,
			   uint64_t avail, uint64_t need)
{
	size_t max = n + 1 > keep ? n + 1 - keep : 0;

	if (avail >= need)
		return 0;
	for (size_t k = 0; k < max; k++) {
		avail += bytes[k];
		if (avail >= need)
			return k + 1;
	}
	return 0;
}

void dd_rotate(const char *dir, unsigned int keep, const char *just_saved)
{
	struct saved *list = NULL;
	char why[64];
	size_t n, old = 0;
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dirfd < 0 || list_saved(dirfd, &list, &n)) {
		if (dirfd >= 0)
			close(dirfd);
		return;
	}
	/*
	 * The dump just saved is the newest whatever the info files' times
	 * say (a clock that was behind at boot): it is never a candidate.
	 */
	for (size_t i = 0; i < n; i++)
		if (!just_saved || strcmp(list[i].name, just_saved))
			list[old++] = list[i];
	if (old < n && keep)
		keep--;
	snprintf(why, sizeof(why), "keeping %u", keep + (old < n));
	for (size_t i = 0; old > keep && i < old - keep; i++)
		remove_saved(dirfd, dir, &list[i], why);
	free(list);
	close(dirfd);
}

/* Before saving: remove the oldest dumps, as -n allows, to make room. */
static void rotate_for_space(const char *dir, unsigned int keep, uint64_t avail,
			     uint64_t need)
{
	struct saved *list = NULL;
	uint64_t *bytes;
	size_t n, k = 0;
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dirfd < 0 || list_saved(dirfd, &list, &n)) {
		if (dirfd >= 0)
			close(dirfd);
		return;
	}
	bytes = calloc(n + 1, sizeof(*bytes));
	for (size_t i = 0; bytes && i < n; i++)
		bytes[i] = list[i].bytes;
	if (bytes)
		k = dd_rotation_victims(bytes, n, keep, avail, need);
	for (size_t i = 0; i < k; i++)
		remove_saved(dirfd, dir, &list[i], "to make room for the new one");
	free(bytes);
	free(list);
	close(dirfd);
}

/* ---- saving ---- */

/* The bytes the vmcore will take, at most; 0 if it cannot be written. */
static uint64_t vmcore_bytes(struct dd_dev *dev, struct dd_dump *d)
{
	if (d->sealed)
		return sealed_blocks(d) * DISKDUMP_BLOCK_SIZE;
	if (opt.kdump)
		/* at worst every page raw, plus headers, bitmaps, descriptors */
		return (4 + d->h.note_size / DISKDUMP_BLOCK_SIZE +
			2 * ((d->h.max_pfn / 8) / DISKDUMP_BLOCK_SIZE + 1)) * DISKDUMP_BLOCK_SIZE +
		       d->present * (DISKDUMP_BLOCK_SIZE + 24);
	if (dd_plan_segments(dev, d)) {
		fprintf(stderr, "savecore: %s: the dump is too fragmented to save\n", dev->path);
		return 0;
	}
	return dd_elf_size(d);
}

static uint64_t free_bytes(const char *dir)
{
	struct statvfs vfs;

	if (statvfs(dir, &vfs))
		return UINT64_MAX;	/* unknown: let the writes tell */
	return (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

/* DIR exists and has room for @need bytes and -m, rotating if -n allows. */
static int make_room(const char *dir, uint64_t need)
{
	uint64_t want = need + opt.min_free, avail;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "savecore: %s: %s\n", dir, strerror(errno));
		return DD_EXIT_ERROR;
	}
	avail = free_bytes(dir);
	if (avail < want && opt.keep_dumps) {
		rotate_for_space(dir, opt.keep_dumps, avail, want);
		avail = free_bytes(dir);
	}
	if (avail >= want)
		return 0;
	fprintf(stderr, "savecore: %s: %" PRIu64 " MB needed, %" PRIu64 " MB free",
		dir, need >> 20, avail >> 20);
	fprintf(stderr, " (keeping %" PRIu64 " MB)\n", opt.min_free >> 20);
	return DD_EXIT_NOSPACE;
}

static int write_vmcore(struct dd_dev *dev, struct dd_dump *d, int fd,
			const char *final, uint64_t *need)
{
	if (d->sealed) {
		verbose("writing %s: the encrypted partition image, %" PRIu64 " bytes\n", final,
			*need);
		return -save_sealed(dev, d, fd);
	}
	if (opt.kdump) {
		verbose("writing %s: kdump-compressed (%s), at most %" PRIu64 " bytes\n", final,
			compress_names[opt.compress], *need);
		return -dd_write_kdump(dev, d, fd, opt.compress, need);
	}
	verbose("writing %s: ELF, %zu segments, %" PRIu64 " bytes\n", final, d->nr_segs, *need);
	return -dd_write_elf(dev, d, fd);
}

static int write_info(const char *target, const struct dd_dump *d, const char *dev,
		      uint64_t bytes)
{
	char path[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/info", target);
	f = fopen(path, "wxe");
	if (!f) {
		fprintf(stderr, "savecore: %s: %s\n", path, strerror(errno));
		return DD_EXIT_ERROR;
	}
	fchmod(fileno(f), 0600);
	dd_print_summary(f, d, dev);
	if (d->sealed)
		fprintf(f, "format: encrypted partition image\n");
	else if (opt.kdump)
		fprintf(f, "format: kdump-compressed %s\n", compress_names[opt.compress]);
	else
		fprintf(f, "format: elf\n");
	fprintf(f, "vmcore_bytes: %" PRIu64 "\n", bytes);
	if (fflush(f) || fsync(fileno(f)) || fclose(f)) {
		fprintf(stderr, "savecore: %s: %s\n", path, strerror(errno));
		return DD_EXIT_ERROR;
	}
	return 0;
}

/*
 * A save stopped half-way, by systemd when the unit's TimeoutStartSec= runs
 * out or by ^C, leaves no half file and no empty directory behind: the dump
 * is still on the partition, and the next save starts afresh.  The stop
 * signals are held from the directory's creation to the end of the save;
 * only while the vmcore is written (which may take long) do they stop it,
 * through stop_save().  A signal the caller ignores (nohup) stays ignored.
 */
static const int stop_sigs[] = { SIGTERM, SIGINT, SIGHUP };
static struct sigaction stop_old[3];
static char stop_file[PATH_MAX + 32], stop_dir[PATH_MAX];

static void stop_save(int sig)
{
	unlink(stop_file);
	rmdir(stop_dir);
	signal(sig, SIG_DFL);
	raise(sig);		/* delivered when this handler returns */
}

static void stop_sigset(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaddset(set, stop_sigs[i]);
}

/* Let a stop signal remove @file and @dir, then end the process. */
static void catch_stop(const char *file, const char *dir)
{
	struct sigaction sa = { .sa_handler = stop_save };
	size_t i;

	snprintf(stop_file, sizeof(stop_file), "%s", file);
	snprintf(stop_dir, sizeof(stop_dir), "%s", dir);
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++) {
		sigaction(stop_sigs[i], NULL, &stop_old[i]);
		if (stop_old[i].sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &sa, NULL);
	}
}

static void uncatch_stop(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaction(stop_sigs[i], &stop_old[i], NULL);
}

/* write_vmcore() and its fsync, stoppable: @held is the caller's mask. */
static int write_stoppable(struct dd_dev *dev, struct dd_dump *d, int fd,
			   const char *final, uint64_t *need,
			   const sigset_t *held)
{
	sigset_t stop;
	int ret;

	stop_sigset(&stop);
	sigprocmask(SIG_SETMASK, held, NULL);
	ret = write_vmcore(dev, d, fd, final, need);
	if (!ret && fsync(fd) < 0)
		ret = errno == ENOSPC ? DD_EXIT_NOSPACE : DD_EXIT_ERROR;
	sigprocmask(SIG_BLOCK, &stop, NULL);
	return ret;
}

static int save_dump(struct dd_dev *dev, struct dd_dump *d, const char *dir,
		     const sigset_t *held)
{
	char target[PATH_MAX], tmp[PATH_MAX + 32], final[PATH_MAX + 32];
	uint64_t need = vmcore_bytes(dev, d);
	int fd, ret;

	if (!need)
		return DD_EXIT_CORRUPT;
	ret = make_room(dir, need);
	if (ret)
		return ret;
	if (make_target_dir(dir, &d->h, target, sizeof(target)))
		return DD_EXIT_ERROR;
	snprintf(tmp, sizeof(tmp), "%s/vmcore.incomplete", target);
	snprintf(final, sizeof(final), "%s/%s", target, d->sealed ? "vmcore.encrypted" : "vmcore");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "savecore: %s: %s\n", tmp, strerror(errno));
		rmdir(target);
		return DD_EXIT_ERROR;
	}
	catch_stop(tmp, target);
	ret = write_stoppable(dev, d, fd, final, &need, held);
	uncatch_stop();
	close(fd);
	if (ret) {
		/* Never leave a half file that looks like a dump. */
		unlink(tmp);
		rmdir(target);
		return ret;
	}
	if (rename(tmp, final) < 0) {
		fprintf(stderr, "savecore: rename %s: %s\n", tmp, strerror(errno));
		return DD_EXIT_ERROR;
	}
	ret = write_info(target, d, dev->path, need);
	if (ret)
		return ret;
	if (fsync_path(target) || fsync_path(dir)) {
		fprintf(stderr, "savecore: fsync %s: %s\n", target, strerror(errno));
		return DD_EXIT_ERROR;
	}
	info("savecore: saved %s%s dump (%" PRIu64 " of %" PRIu64 " pages) to %s\n",
	     dd_partial(d) ? "a PARTIAL" : "a complete",
	     d->sealed ? " encrypted" : "", d->present, (uint64_t)d->h.nr_dump_pages, final);
	if (d->sealed)
		info("savecore: decode it where the private key is: %s\n",
		     "savecore -k -K KEY.pem FILE DIR");
	if (opt.keep_dumps)
		dd_rotate(dir, opt.keep_dumps, strrchr(target, '/') + 1);
	return DD_EXIT_OK;
}

/* Is block @b formatted (version 2)?  Past the end counts as yes. */
static bool block_formatted(struct dd_dev *dev, uint64_t b)
{
	uint8_t *block;
	bool ok;

	if (b >= dev->blocks)
		return true;
	block = dd_alloc_blocks(1);
	ok = block && !dd_read_raw_blocks(dev, b, block, 1) &&
	     dd_fmt_block_check(block, b, dev->blocks) == DD_FMT_OK;
	free(block);
	return ok;
}

/*
 * After the save: only the blocks the dump used lost their format, unless
 * the rest is of another format version or partition size (an older
 * kernel's dump): then all of it.
 */
static int format_again(struct dd_dev *dev, const struct dd_dump *d)
{
	uint64_t end = d->h.data_block + d->h.nr_dump_pages;

	if (end > dev->blocks)
		end = dev->blocks;
	if (!block_formatted(dev, end) || !block_formatted(dev, dev->blocks - 1))
		end = dev->blocks;
	return dd_format_range(dev, 0, end);
}

/*
 * Hold a block device exclusively while formatting it: one that something
 * else holds (a mount, swap, LVM, md, or the kernel's diskdump that armed
 * it) is not written to.  The claim lasts until savecore exits.
 */
static int claim_device(struct dd_dev *dev)
{
	struct stat st;

	if (fstat(dev->fd, &st) || !S_ISBLK(st.st_mode))
		return 0;
	if (open(dev->path, O_RDONLY | O_EXCL | O_CLOEXEC) >= 0)
		return 0;
	fprintf(stderr, "savecore: %s is in use (%s): not formatting it\n", dev->path,
		strerror(errno));
	return -1;
}

/*
 * Before formatting: say in block 0 that the dump is saved, so that a
 * format cut short (it writes block 0 last) is finished by the next
 * savecore instead of leaving a dump header over formatted blocks.
 */
static int mark_saved(struct dd_dev *dev, const struct dd_dump *d)
{
	struct diskdump_header *h;
	uint8_t *block = dd_alloc_blocks(1);
	int ret = -1;

	if (!block || dd_read_raw_blocks(dev, 0, block, 1))
		goto out;
	h = (struct diskdump_header *)block;
	*h = d->h;
	h->flags |= DISKDUMP_FLAG_SAVED;
	h->crc = 0;
	h->crc = dd_crc32(0, h, sizeof(*h));
	if (!dd_write_blocks(dev, 0, block, 1) && !dd_sync(dev))
		ret = 0;
out:
	free(block);
	return ret;
}

static int save_device(struct dd_dev *dev, struct dd_dump *d, const char *dir)
{
	sigset_t stop, held;
	bool marked = false;
	int ret;

	if (opt.verbose)
		dd_print_summary(stdout, d, dev->path);
	/* stop signals wait from the new directory to the saved mark */
	stop_sigset(&stop);
	sigprocmask(SIG_BLOCK, &stop, &held);
	ret = save_dump(dev, d, dir, &held);
	if (!ret && !opt.keep)
		marked = !claim_device(dev) && !mark_saved(dev, d);
	sigprocmask(SIG_SETMASK, &held, NULL);
	if (ret || opt.keep)
		return ret;
	if (!marked || format_again(dev, d)) {
		fprintf(stderr, "savecore: the dump is saved, but %s %s\n", dev->path,
			"could not be formatted again");
		return DD_EXIT_ERROR;
	}
	info("savecore: %s formatted for the next dump\n", dev->path);
	return DD_EXIT_OK;
}

/* ---- -c: what the partition holds ---- */

static const char *state_name(int code, enum dd_content content)
{
	switch (code) {
	case DD_EXIT_OK:
		return "dump";
	case DD_EXIT_NODUMP:
		return content == DD_SAVED ? "saved" : "empty";
	case DD_EXIT_OLDFORMAT:
		return "old-format";
	case DD_EXIT_CORRUPT:
		return "damaged";
	case DD_EXIT_UNFORMATTED:
		if (content == DD_SAVED)
			return "saved";
		return content == DD_FOREIGN ? "unformatted" : "damaged";
	default:
		return NULL;
	}
}

/* Block 0 says formatted and empty: so must every other block. */
static int verify_empty(struct dd_dev *dev, struct dd_dump *d, char *why, size_t whylen)
{
	struct dd_fmt_scan scan;

	if (dd_verify_format(dev, 0, dev->blocks, &scan)) {
		snprintf(why, whylen, "cannot read the partition");
		return DD_EXIT_ERROR;
	}
	if (!scan.nr_bad)
		return DD_EXIT_NODUMP;
	d->content = DD_DAMAGED;
	snprintf(why, whylen,
		 "block %" PRIu64 " is not what the diskdump format says (%" PRIu64 " of %" PRIu64
		 " blocks are not); run diskdumpfmt %s to format it again",
		 scan.first_bad, scan.nr_bad, dev->blocks, dev->path);
	return DD_EXIT_UNFORMATTED;
}

/* What libblkid finds on a partition that is not formatted. */
static void name_signatures(const char *path)
{
	struct dd_signature sigs[4];
	int n = dd_signatures(path, sigs, 4);

	for (int i = 0; i < n && i < 4; i++)
		fprintf(stderr, "savecore: %s holds %s (%s)\n", path, sigs[i].type,
			sigs[i].usage[0] ? sigs[i].usage : "unknown use");
}

static void report(const struct dd_dev *dev, const struct dd_dump *d, int code,
		   const char *why)
{
	if (code == DD_EXIT_OK)
		return;
	if (code == DD_EXIT_NODUMP) {
		info("savecore: %s: %s\n", dev->path, why);
		return;
	}
	fprintf(stderr, "savecore: %s: %s%s\n", dev->path, why,
		code == DD_EXIT_CORRUPT ? "; the partition is left as it is" : "");
	if (d->content == DD_FOREIGN)
		name_signatures(dev->path);
}

static int check_device(struct dd_dev *dev, struct dd_dump *d, int code,
			char *why, size_t whylen)
{
	const char *state;

	if (code == DD_EXIT_NODUMP && d->content == DD_SAVED)
		code = DD_EXIT_UNFORMATTED;	/* savecore DEVICE formats it */
	else if (code == DD_EXIT_NODUMP)
		code = verify_empty(dev, d, why, whylen);
	report(dev, d, code, why);
	state = state_name(code, d->content);
	if (state)
		printf("state: %s\n", state);
	if (code == DD_EXIT_OK)
		dd_print_summary(stdout, d, dev->path);
	return code;
}

/* A dump saved before whose partition was not formatted again: do it. */
static int finish_format(struct dd_dev *dev, const struct dd_dump *d)
{
	info("savecore: %s: the dump was saved before; formatting the partition again\n",
	     dev->path);
	if (claim_device(dev) || format_again(dev, d)) {
		fprintf(stderr, "savecore: %s could not be formatted again\n", dev->path);
		return DD_EXIT_ERROR;
	}
	info("savecore: %s formatted for the next dump\n", dev->path);
	return DD_EXIT_NODUMP;
}

static bool is_regular(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode);
}

static int run(const char *path, const char *dir)
{
	unsigned int flags = opt.check_only || opt.keep ? 0 : DD_OPEN_WRITE;
	char why[512];
	struct dd_dump d;
	struct dd_dev dev;
	int ret;

	if (dd_open(&dev, path, flags))
		return DD_EXIT_ERROR;
	if (opt.keyfile && !opt.keep && is_regular(dev.fd)) {
		/* a saved vmcore.encrypted is an archive, not a partition */
		opt.keep = true;
	}
	dev.keyfile = opt.keyfile;
	ret = -dd_load(&dev, &d, why, sizeof(why));
	if (opt.check_only)
		ret = check_device(&dev, &d, ret, why, sizeof(why));
	else if (d.content == DD_SAVED && !opt.keep)
		ret = finish_format(&dev, &d);
	else if (ret)
		report(&dev, &d, ret, why);
	else
		ret = save_device(&dev, &d, dir);
	dd_free(&d);
	dd_close(&dev);
	return ret;
}

static int parse_size(const char *arg, const char *what, uint64_t max, uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(arg, &end, 10);
	if (errno || *end || end == arg || *val > max) {
		fprintf(stderr, "savecore: bad --%s '%s'\n", what, arg);
		return -1;
	}
	return 0;
}

static int parse_compress(const char *arg)
{
	for (int c = DD_ZSTD; c >= DD_NONE; c--) {
		if (!strcmp(arg, compress_names[c])) {
			opt.compress = (enum dd_compress)c;
			return 0;
		}
	}
	fprintf(stderr, "savecore: --compress is zlib, lzo, zstd or none, not '%s'\n", arg);
	return -1;
}

static int parse_format(const char *arg)
{
	if (strcmp(arg, "elf") && strcmp(arg, "kdump")) {
		fprintf(stderr, "savecore: --format is elf or kdump, not '%s'\n", arg);
		return -1;
	}
	opt.kdump = !strcmp(arg, "kdump");
	return 0;
}

/* One option: 0, or the exit status to stop with. */
static int parse_option(int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'c':
		opt.check_only = true;
		return 0;
	case 'k':
		opt.keep = true;
		return 0;
	case 's':
		opt.map_stacks = true;
		return 0;
	case 'S':
		opt.map_stacks = false;
		return 0;
	case 'f':
		opt.force = true;
		return 0;
	case 'K':
		opt.keyfile = arg;
		return 0;
	case 'm':
		if (parse_size(arg, "min-free", 1ULL << 40, &v))
			return DD_EXIT_USAGE;
		opt.min_free = v << 20;
		return 0;
	case 'F':
		return parse_format(arg) ? DD_EXIT_USAGE : 0;
	case 'Z':
		return parse_compress(arg) ? DD_EXIT_USAGE : 0;
	case 'n':
		if (parse_size(arg, "keep-dumps", 10000, &v) || !v)
			return DD_EXIT_USAGE;
		opt.keep_dumps = (unsigned int)v;
		return 0;
	case 'v':
		opt.verbose = true;
		return 0;
	case 'q':
		opt.quiet = true;
		return 0;
	default:
		print_usage(stderr);
		return DD_EXIT_USAGE;
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "keep", no_argument, NULL, 'k' },
		{ "map-stacks", no_argument, NULL, 's' },
		{ "no-map-stacks", no_argument, NULL, 'S' },
		{ "min-free", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'F' },
		{ "compress", required_argument, NULL, 'Z' },
		{ "keep-dumps", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "key", required_argument, NULL, 'K' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	while ((c = getopt_long(argc, argv, "cksSfm:F:Z:n:K:vqhV", opts, NULL)) != -1) {
		if (c == 'h') {
			print_usage(stdout);
			return DD_EXIT_OK;
		}
		if (c == 'V') {
			printf("savecore %s\n", DD_VERSION);
			return DD_EXIT_OK;
		}
		ret = parse_option(c, optarg);
		if (ret)
			return ret;
	}
	if (argc - optind < 1 || argc - optind > 2) {
		print_usage(stderr);
		return DD_EXIT_USAGE;
	}
	return run(argv[optind], argc - optind == 2 ? argv[optind + 1] : "/var/crash");
}
