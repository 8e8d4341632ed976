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
#define NT_PRSTATUS_TYPE 1

static struct {
	bool check_only, verbose, keep, force, quiet, map_stacks;
	bool kdump;			/* -F kdump: kdump-compressed output */
	const char *keyfile;		/* -K: private key of encrypted dumps */
	enum dd_compress compress;	/* -Z: zlib (the default), lzo, zstd, none */
	unsigned int keep_dumps;	/* -n: at most this many dumps in DIR */
	uint64_t min_free;		/* bytes */
} opt = { .compress = DD_ZLIB };

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

int dd_load(struct dd_dev *dev, struct dd_dump *d, char *why, size_t whylen)
{
	uint64_t nb, rank = 0, pfn, written;
	uint8_t *block;

	memset(d, 0, sizeof(*d));
	block = malloc(DISKDUMP_BLOCK_SIZE);
	if (!block || dd_read_blocks(dev, 0, block, 1)) {
		snprintf(why, whylen, "cannot read the first block");
		free(block);
		return -EX_ERROR;
	}
	switch (dd_classify(block)) {
	case DD_EMPTY:
		snprintf(why, whylen, "no dump: the partition is formatted and empty");
		free(block);
		return -EX_NODUMP;
	case DD_FOREIGN:
		snprintf(why, whylen, "no dump: the partition is not formatted for diskdump");
		free(block);
		return -EX_NODUMP;
	case DD_DUMP:
		break;
	}
	memcpy(&d->h, block, sizeof(d->h));
	free(block);
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
		return -EX_CORRUPT;
	if (d->h.bitmap_blocks != (d->h.max_pfn + DISKDUMP_BLOCK_SIZE * 8 - 1) /
				  (DISKDUMP_BLOCK_SIZE * 8)) {
		snprintf(why, whylen, "bitmap size does not match max_pfn");
		return -EX_CORRUPT;
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
	d->ram_map = malloc(nb * DISKDUMP_BLOCK_SIZE);
	d->dump_map = malloc(nb * DISKDUMP_BLOCK_SIZE);
	d->notes = malloc(d->h.note_size ? d->h.note_size : 1);
	block = malloc(((d->h.note_size + DISKDUMP_BLOCK_SIZE - 1) /
			DISKDUMP_BLOCK_SIZE + 1) * DISKDUMP_BLOCK_SIZE);
	if (!d->ram_map || !d->dump_map || !d->notes || !block ||
	    dd_read_blocks(dev, d->h.bitmap_block, d->ram_map, nb) ||
	    dd_read_blocks(dev, d->h.bitmap_block + nb, d->dump_map, nb) ||
	    dd_read_blocks(dev, d->h.note_block, block,
			   (d->h.note_size + DISKDUMP_BLOCK_SIZE - 1) /
			   DISKDUMP_BLOCK_SIZE)) {
		free(block);
		snprintf(why, whylen, "cannot read the bitmaps or notes");
		return -EX_ERROR;
	}
	memcpy(d->notes, block, d->h.note_size);
	free(block);

	for (pfn = 0; pfn < d->h.max_pfn; pfn++) {
		if (dd_test_bit(d->dump_map, pfn)) {
			if (!dd_test_bit(d->ram_map, pfn)) {
				snprintf(why, whylen, "page %" PRIu64 " dumped but not RAM", pfn);
				return -EX_CORRUPT;
			}
			rank++;
		}
	}
	if (rank != d->h.nr_dump_pages) {
		snprintf(why, whylen, "dump bitmap has %" PRIu64 " pages, header says %" PRIu64,
			 rank, (uint64_t)d->h.nr_dump_pages);
		return -EX_CORRUPT;
	}

	written = d->h.written_pages;
	if (d->h.status == DISKDUMP_STATUS_WRITING)
		written = dd_scan_written(dev, &d->h);
	d->present = written;
	return 0;
}

/*
 * The kernel stopped while writing: the header was never finalised.  The
 * page blocks it did write no longer carry the format signature; the first
 * one that does marks where it stopped.
 */
uint64_t dd_scan_written(struct dd_dev *dev, const struct diskdump_header *h)
{
	uint64_t max = h->nr_dump_pages, done = 0;
	uint64_t room = dev->blocks - h->data_block;
	char *buf = malloc((size_t)COPY_CHUNK * DISKDUMP_BLOCK_SIZE);

	if (max > room)
		max = room;
	while (buf && done < max) {
		uint64_t n = max - done < COPY_CHUNK ? max - done : COPY_CHUNK;

		if (dd_read_raw_blocks(dev, h->data_block + done, buf, n))
			break;
		for (uint64_t i = 0; i < n; i++, done++)
			if (dd_is_fmt_block(buf + i * DISKDUMP_BLOCK_SIZE,
					    h->data_block + done))
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
	size_t off = 0, klen = strlen(key);

	while (off + 12 <= d->h.note_size) {
		const uint32_t *n = (const uint32_t *)(d->notes + off);
		size_t namesz = n[0], descsz = n[1];
		size_t name_off = off + 12, desc_off = name_off + ((namesz + 3) & ~3UL);

		if (namesz > d->h.note_size || descsz > d->h.note_size ||
		    desc_off + descsz > d->h.note_size)
			return NULL;
		if (namesz == 11 && !memcmp(d->notes + name_off, "VMCOREINFO", 11)) {
			const char *p = d->notes + desc_off, *end = p + descsz;

			while (p < end) {
				const char *nl = memchr(p, '\n', (size_t)(end - p));
				size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

				if (len > klen && !memcmp(p, key, klen) && p[klen] == '=') {
					snprintf(val, vallen, "%.*s",
						 (int)(len - klen - 1), p + klen + 1);
					return val;
				}
				p += len + 1;
			}
			return NULL;
		}
		off = desc_off + ((descsz + 3) & ~3UL);
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
	uint64_t pgd_pa, phys_base, off = 0;

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

	while (off + 12 <= d->h.note_size) {
		const uint32_t *n = (const uint32_t *)(d->notes + off);
		size_t desc_off = off + 12 + ((n[0] + 3) & ~3UL);

		if (desc_off + n[1] > d->h.note_size)
			break;
		if (n[2] == NT_PRSTATUS_TYPE && n[1] >= 112 + 27 * 8) {
			uint64_t rsp, base;

			memcpy(&rsp, d->notes + desc_off + 112 + 19 * 8, 8);
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
		off = desc_off + ((n[1] + 3) & ~3UL);
	}
	return 0;
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
	if (h->kernel_size && add_runs(d, klo, khi, h->kernel_vaddr, h->kernel_paddr))
		return -1;
	return add_runs(d, 0, h->max_pfn, h->page_offset, 0);
}

/* Write @len bytes of the partition's page blocks from @rank to @off of @fd. */
static int copy_pages(struct dd_dev *dev, const struct dd_dump *d, int fd,
		      uint64_t rank, uint64_t pages, uint64_t off, char *buf)
{
	while (pages) {
		uint64_t n = pages < COPY_CHUNK ? pages : COPY_CHUNK;
		size_t len = n * DISKDUMP_BLOCK_SIZE;
		int ret;

		if (dd_read_blocks(dev, d->h.data_block + rank, buf, n))
			return -EX_ERROR;
		ret = dd_write_full(fd, buf, len, off);
		if (ret)
			return ret;
		rank += n;
		pages -= n;
		off += len;
	}
	return 0;
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
	uint64_t off;
	char *hdr, *buf;
	int ret = 0;

	if (d->sealed)
		return -EX_ERROR;

	hdr = calloc(1, hdrlen + d->h.note_size);
	buf = malloc((size_t)COPY_CHUNK * DISKDUMP_BLOCK_SIZE);
	if (!hdr || !buf) {
		free(hdr);
		free(buf);
		return -EX_ERROR;
	}
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
	if (d->present < d->h.nr_dump_pages)
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
		ret = errno == ENOSPC ? -EX_NOSPACE : -EX_ERROR;
	}
	for (size_t i = 0, total = 0, done = 0; i < d->nr_segs && !ret; i++) {
		const struct dd_seg *s = &d->segs[i];

		if (!i)
			for (size_t j = 0; j < d->nr_segs; j++)
				total += d->segs[j].pages;
		ret = copy_pages(dev, d, fd, s->first_rank, s->pages,
				 ph[i + 1].p_offset, buf);
		done += s->pages;
		dd_progress(done, total);
	}
	free(hdr);
	free(buf);
	return ret;
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: savecore [options] DEVICE [DIR]\n"
		"Save the crash dump on the diskdump partition DEVICE into\n"
		"DIR/HOST-DATE/ (default DIR: /var/crash), then format DEVICE again.\n"
		"  -c, --check         only tell whether DEVICE holds a dump (exit 0 if so)\n"
		"  -k, --keep          do not format DEVICE after saving\n"
		"  -s, --map-stacks    add PT_LOADs for the CPUs' vmalloc'd stacks, so that\n"
		"                      gdb unwinds them (crash 8.0.2 then fails to open it)\n"
		"  -m, --min-free MB   keep at least MB megabytes free in DIR\n"
		"  -F, --format FMT    elf (default) or kdump (kdump-compressed, as\n"
		"                      makedumpfile writes it)\n"
		"  -Z, --compress ALG  for kdump: zlib (default), lzo, zstd or none\n"
		"  -n, --keep-dumps N  after saving, keep only the newest N dumps in DIR\n"
		"  -K, --key FILE      the RSA private key (PEM) of an encrypted dump;\n"
		"                      without it an encrypted dump is saved as it is\n"
		"  -f, --force         read a dump whose header checksum is wrong, or an\n"
		"                      encrypted dump that was never finished (unverified)\n"
		"  -v, --verbose       say more\n"
		"  -q, --quiet         print only errors\n"
		"  -h, --help          this text\n"
		"  -V, --version       print the version\n"
		"exit status: 0 saved (or, with -c, a dump is there), 1 error, 2 usage,\n"
		"  3 no dump, 4 corrupt dump (left untouched), 5 not enough space\n");
}

static void print_summary(FILE *f, const struct dd_dump *d, const char *dev)
{
	const struct diskdump_header *h = &d->h;
	char when[64];
	time_t t = (time_t)h->time_sec;
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&t, &tm));
	fprintf(f, "device: %s\n", dev);
	fprintf(f, "status: %s\n", dd_status_name(h->status));
	fprintf(f, "flags:%s%s%s%s\n", h->flags & DISKDUMP_FLAG_TRUNCATED ? " truncated" : "",
		h->flags & DISKDUMP_FLAG_IO_ERROR ? " io-error" : "",
		h->flags & DISKDUMP_FLAG_IRQS_ON ? " irqs-on" : "",
		h->flags ? "" : " none");
	fprintf(f, "time: %s\n", when);
	fprintf(f, "host: %.65s\n", h->nodename);
	fprintf(f, "release: %.65s\n", h->release);
	fprintf(f, "version: %.65s\n", h->version_str);
	fprintf(f, "machine: %.65s\n", h->machine);
	fprintf(f, "panic: %.*s\n", DISKDUMP_PANIC_LEN, h->panic_msg);
	fprintf(f, "panic_cpu: %u\n", h->panic_cpu);
	fprintf(f, "cpus: %u\n", h->nr_cpus);
	fprintf(f, "cpu_notes: %u\n", h->nr_cpu_notes);
	fprintf(f, "dump_level: %u\n", h->dump_level);
	fprintf(f, "ram_pages: %" PRIu64 "\n", (uint64_t)h->nr_ram_pages);
	fprintf(f, "dump_pages: %" PRIu64 "\n", (uint64_t)h->nr_dump_pages);
	fprintf(f, "saved_pages: %" PRIu64 "\n", d->present);
	fprintf(f, "partial: %s\n", d->present < h->nr_dump_pages ? "yes" : "no");
	fprintf(f, "timers_run: %" PRIu64 "\n", (uint64_t)h->timers_run);
	fprintf(f, "tasklets_run: %" PRIu64 "\n", (uint64_t)h->tasklets_run);
	fprintf(f, "unreadable_pages: %" PRIu64 "\n", (uint64_t)h->unreadable_pages);
	fprintf(f, "check_ms: %" PRIu64 "\n", (uint64_t)h->check_ns / 1000000);
	fprintf(f, "write_ms: %" PRIu64 "\n", (uint64_t)h->write_ns / 1000000);
	if (h->cipher == DISKDUMP_CIPHER_NONE) {
		fprintf(f, "encryption: none\n");
	} else {
		char id[2 * DISKDUMP_KEY_ID_SIZE + 1];

		dd_key_id_hex(h->key_id, id);
		fprintf(f, "encryption: chacha20-poly1305, RSA-%u\n", h->wrapped_key_size * 8);
		fprintf(f, "key_id: sha256:%s\n", id);
	}
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
	uint64_t end = sealed_blocks(d), done = 0;
	char *buf = malloc((size_t)COPY_CHUNK * DISKDUMP_BLOCK_SIZE);
	int ret = -EX_ERROR;

	if (!buf)
		return ret;
	while (done < end) {
		uint64_t n = end - done < COPY_CHUNK ? end - done : COPY_CHUNK;

		if (dd_read_raw_blocks(dev, done, buf, n))
			goto out;
		if (dd_write_full(fd, buf, n * DISKDUMP_BLOCK_SIZE, done * DISKDUMP_BLOCK_SIZE))
			goto out;
		done += n;
		dd_progress(done, end);
	}
	if (ftruncate(fd, (off_t)(d->h.partition_blocks * DISKDUMP_BLOCK_SIZE)) == 0)
		ret = 0;
	else
		ret = errno == ENOSPC ? -EX_NOSPACE : -EX_ERROR;
out:
	free(buf);
	return ret;
}

static int make_target_dir(const char *dir, const struct diskdump_header *h,
			   char *out, size_t outlen)
{
	char stamp[32], host[DISKDUMP_UTS_LEN + 1];
	time_t t = (time_t)h->time_sec;
	struct tm tm;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", gmtime_r(&t, &tm));
	snprintf(host, sizeof(host), "%.65s", h->nodename);
	for (char *p = host; *p; p++)
		if (*p == '/' || *p == ' ')
			*p = '_';
	if (!host[0])
		snprintf(host, sizeof(host), "unknown");
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "savecore: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < 100; i++) {
		if (i)
			snprintf(out, outlen, "%s/%s-%s.%d", dir, host, stamp, i);
		else
			snprintf(out, outlen, "%s/%s-%s", dir, host, stamp);
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

/* A saved dump: a directory of DIR holding info and vmcore. */
struct saved {
	char name[NAME_MAX + 1];
	struct timespec when;
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

/* Keep the newest @keep dumps in @dir (by the time their info was written). */
static void rotate_dumps(const char *dir, unsigned int keep)
{
	struct saved *list = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	char path[PATH_MAX];
	struct stat st;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/info", dir, e->d_name);
		if (stat(path, &st))
			continue;	/* not one of ours, or half written */
		if (n == cap) {
			struct saved *l = realloc(list, (cap = cap ? 2 * cap : 16) * sizeof(*l));

			if (!l)
				break;
			list = l;
		}
		snprintf(list[n].name, sizeof(list[n].name), "%s", e->d_name);
		list[n++].when = st.st_mtim;
	}
	closedir(dp);
	if (n > keep)
		qsort(list, n, sizeof(*list), by_age);
	for (size_t i = 0; n > keep && i < n - keep; i++) {
		static const char *const files[] = { "vmcore", "vmcore.encrypted", "info" };

		for (size_t f = 0; f < 3; f++) {
			snprintf(path, sizeof(path), "%s/%s/%s", dir, list[i].name, files[f]);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/%s", dir, list[i].name);
		if (rmdir(path))
			fprintf(stderr, "savecore: rotating: %s: %s\n", path, strerror(errno));
		else
			info("savecore: removed the old dump %s (keeping %u)\n", path, keep);
	}
	free(list);
}

static int save_dump(struct dd_dev *dev, struct dd_dump *d, const char *dir)
{
	char target[PATH_MAX], tmp[PATH_MAX + 32], final[PATH_MAX + 32];
	struct statvfs vfs;
	uint64_t need;
	FILE *f;
	int fd, ret;

	if (d->sealed) {
		need = sealed_blocks(d) * DISKDUMP_BLOCK_SIZE;
	} else if (opt.kdump) {
		/* at worst every page raw, plus headers, bitmaps, descriptors */
		need = (4 + d->h.note_size / DISKDUMP_BLOCK_SIZE +
			2 * ((d->h.max_pfn / 8) / DISKDUMP_BLOCK_SIZE + 1)) * DISKDUMP_BLOCK_SIZE +
		       d->present * (DISKDUMP_BLOCK_SIZE + 24);
	} else {
		if (dd_plan_segments(dev, d)) {
			fprintf(stderr, "savecore: %s: the dump is too fragmented to save\n",
				dev->path);
			return EX_CORRUPT;
		}
		need = dd_elf_size(d);
	}
	if (make_target_dir(dir, &d->h, target, sizeof(target)))
		return EX_ERROR;
	if (!statvfs(target, &vfs) &&
	    (uint64_t)vfs.f_bavail * vfs.f_frsize < need + opt.min_free) {
		fprintf(stderr,
			"savecore: %s: %" PRIu64 " MB needed, %" PRIu64
			" MB free (keeping %" PRIu64 " MB)\n",
			target, need >> 20, ((uint64_t)vfs.f_bavail * vfs.f_frsize) >> 20,
			opt.min_free >> 20);
		rmdir(target);
		return EX_NOSPACE;
	}
	snprintf(tmp, sizeof(tmp), "%s/vmcore.incomplete", target);
	snprintf(final, sizeof(final), "%s/%s", target, d->sealed ? "vmcore.encrypted" : "vmcore");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "savecore: %s: %s\n", tmp, strerror(errno));
		return EX_ERROR;
	}
	if (d->sealed) {
		verbose("writing %s: the encrypted partition image, %" PRIu64 " bytes\n", final,
			need);
		ret = -save_sealed(dev, d, fd);
	} else if (opt.kdump) {
		verbose("writing %s: kdump-compressed (%s), at most %" PRIu64 " bytes\n", final,
			compress_names[opt.compress], need);
		ret = -dd_write_kdump(dev, d, fd, opt.compress, &need);
	} else {
		verbose("writing %s: ELF, %zu segments, %" PRIu64 " bytes\n", final,
			d->nr_segs, need);
		ret = -dd_write_elf(dev, d, fd);
	}
	if (!ret && fsync(fd) < 0)
		ret = errno == ENOSPC ? EX_NOSPACE : EX_ERROR;
	close(fd);
	if (ret) {
		/* Never leave a half file that looks like a dump. */
		unlink(tmp);
		rmdir(target);
		return ret;
	}
	if (rename(tmp, final) < 0) {
		fprintf(stderr, "savecore: rename %s: %s\n", tmp, strerror(errno));
		return EX_ERROR;
	}
	snprintf(tmp, sizeof(tmp), "%s/info", target);
	f = fopen(tmp, "wxe");
	if (!f) {
		fprintf(stderr, "savecore: %s: %s\n", tmp, strerror(errno));
		return EX_ERROR;
	}
	fchmod(fileno(f), 0600);
	print_summary(f, d, dev->path);
	if (d->sealed)
		fprintf(f, "format: encrypted partition image\n");
	else if (opt.kdump)
		fprintf(f, "format: kdump-compressed %s\n", compress_names[opt.compress]);
	else
		fprintf(f, "format: elf\n");
	fprintf(f, "vmcore_bytes: %" PRIu64 "\n", need);
	if (fflush(f) || fsync(fileno(f)) || fclose(f)) {
		fprintf(stderr, "savecore: %s: %s\n", tmp, strerror(errno));
		return EX_ERROR;
	}
	if (fsync_path(target) || fsync_path(dir)) {
		fprintf(stderr, "savecore: fsync %s: %s\n", target, strerror(errno));
		return EX_ERROR;
	}
	info("savecore: saved %s%s dump (%" PRIu64 " of %" PRIu64 " pages) to %s\n",
	     d->present < d->h.nr_dump_pages ? "a PARTIAL" : "a complete",
	     d->sealed ? " encrypted" : "", d->present, (uint64_t)d->h.nr_dump_pages, final);
	if (d->sealed)
		info("savecore: decode it where the private key is: %s\n",
		     "savecore -k -K KEY.pem FILE DIR");
	if (opt.keep_dumps)
		rotate_dumps(dir, opt.keep_dumps);
	return EX_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "keep", no_argument, NULL, 'k' },
		{ "map-stacks", no_argument, NULL, 's' },
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
	const char *dir = "/var/crash";
	char why[256], *end;
	struct dd_dump d;
	struct dd_dev dev;
	int c, ret;

	while ((c = getopt_long(argc, argv, "cksfm:F:Z:n:K:vqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			opt.check_only = true;
			break;
		case 'k':
			opt.keep = true;
			break;
		case 's':
			opt.map_stacks = true;
			break;
		case 'f':
			opt.force = true;
			break;
		case 'K':
			opt.keyfile = optarg;
			break;
		case 'm':
			errno = 0;
			opt.min_free = strtoull(optarg, &end, 10);
			if (errno || *end || opt.min_free > (1ULL << 40)) {
				fprintf(stderr, "savecore: bad --min-free '%s'\n", optarg);
				return EX_USAGE;
			}
			opt.min_free <<= 20;
			break;
		case 'F':
			if (!strcmp(optarg, "elf") || !strcmp(optarg, "kdump")) {
				opt.kdump = !strcmp(optarg, "kdump");
				break;
			}
			fprintf(stderr, "savecore: --format is elf or kdump, not '%s'\n", optarg);
			return EX_USAGE;
		case 'Z':
			for (c = DD_ZSTD; c >= DD_NONE; c--)
				if (!strcmp(optarg, compress_names[c]))
					break;
			if (c < DD_NONE) {
				fprintf(stderr,
					"savecore: --compress is zlib, lzo, zstd or none, not '%s'\n",
					optarg);
				return EX_USAGE;
			}
			opt.compress = (enum dd_compress)c;
			break;
		case 'n':
			errno = 0;
			opt.keep_dumps = (unsigned int)strtoul(optarg, &end, 10);
			if (errno || *end || !opt.keep_dumps || opt.keep_dumps > 10000) {
				fprintf(stderr, "savecore: bad --keep-dumps '%s'\n", optarg);
				return EX_USAGE;
			}
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'h':
			print_usage(stdout);
			return EX_OK;
		case 'V':
			printf("savecore %s\n", DD_VERSION);
			return EX_OK;
		default:
			print_usage(stderr);
			return EX_USAGE;
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		print_usage(stderr);
		return EX_USAGE;
	}
	if (argc - optind == 2)
		dir = argv[optind + 1];
	if (dd_open(&dev, argv[optind], !opt.check_only && !opt.keep))
		return EX_ERROR;
	dev.keyfile = opt.keyfile;

	ret = -dd_load(&dev, &d, why, sizeof(why));
	if (ret) {
		if (ret == EX_NODUMP)
			info("savecore: %s: %s\n", dev.path, why);
		else
			fprintf(stderr, "savecore: %s: %s%s\n", dev.path, why,
				ret == EX_CORRUPT ? "; the partition is left as it is" : "");
		dd_free(&d);
		dd_close(&dev);
		return ret;
	}
	if (opt.verbose || opt.check_only)
		print_summary(stdout, &d, dev.path);
	if (opt.check_only) {
		dd_free(&d);
		dd_close(&dev);
		return EX_OK;
	}
	ret = save_dump(&dev, &d, dir);
	if (!ret && !opt.keep) {
		/* Only the blocks the dump used lost their signature. */
		uint64_t end_blk = d.h.data_block + d.h.nr_dump_pages;

		if (end_blk > dev.blocks)
			end_blk = dev.blocks;
		if (dd_format_range(&dev, 0, end_blk)) {
			fprintf(stderr,
				"savecore: the dump is saved, but %s could not be formatted again\n",
				dev.path);
			ret = EX_ERROR;
		} else {
			info("savecore: %s formatted for the next dump\n", dev.path);
		}
	}
	dd_free(&d);
	dd_close(&dev);
	return ret;
}
