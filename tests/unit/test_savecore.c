// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the dump partition format, savecore and diskdumpfmt.
 *
 * Dump images are built here the way the kernel lays them out (see
 * include/uapi/linux/diskdump.h), then read back through savecore's code
 * and checked in the ELF file it writes.  Built with ASan and UBSan.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <lzo/lzo1x.h>
#include <zlib.h>
#include <zstd.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "../../tools/diskdump/ddcore.h"
#include "../../tools/diskdump/savecore.h"

int savecore_main(int argc, char **argv);

static int passed, failed;
static const char *current;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "  %s: %s:%d: CHECK(%s) failed\n", current, __FILE__, __LINE__, #cond); \
		return 1; \
	} } while (0)

#define RUN(fn) do { current = #fn; if (fn()) { failed++; printf("not ok - %s\n", #fn); } \
		     else { passed++; printf("ok - %s\n", #fn); } } while (0)

#define BS DISKDUMP_BLOCK_SIZE
#define PAT 0xd15cd0de00000000ULL

static char tmpdir[] = "/tmp/ddunitXXXXXX";

/* ---- a synthetic dump, laid out as drivers/block/diskdump.c writes it ---- */

struct img {
	char path[256];
	uint64_t blocks, max_pfn, ram_lo, ram_hi;	/* RAM: [ram_lo, ram_hi) */
	uint64_t written;				/* pages actually written */
	uint32_t status;
	struct diskdump_header h;
};

static void put(int fd, uint64_t block, const void *buf, size_t len)
{
	if (pwrite(fd, buf, len, (off_t)(block * BS)) != (ssize_t)len)
		abort();
}

static size_t fake_notes(char *buf)
{
	/* One CORE/NT_PRSTATUS note and a VMCOREINFO note. */
	Elf64_Nhdr *n = (Elf64_Nhdr *)buf;
	size_t off;
	const char *vmci = "OSRELEASE=6.12.0\nPAGESIZE=4096\n";

	n->n_namesz = 5;
	n->n_descsz = 336;
	n->n_type = NT_PRSTATUS;
	memcpy(buf + 12, "CORE", 5);
	memset(buf + 20, 0, 336);
	buf[20 + 32] = 42;	/* pr_pid */
	off = 12 + 8 + 336;
	n = (Elf64_Nhdr *)(buf + off);
	n->n_namesz = 11;
	n->n_descsz = (Elf64_Word)strlen(vmci);
	n->n_type = 0;
	memcpy(buf + off + 12, "VMCOREINFO", 11);
	memcpy(buf + off + 24, vmci, strlen(vmci));
	return off + 24 + ((strlen(vmci) + 3) & ~3UL);
}

static void fill_page(uint64_t *page, uint64_t pfn)
{
	for (int w = 0; w < BS / 8; w++)
		page[w] = PAT ^ (pfn * BS + (uint64_t)w * 8);
}

/* Format, then write a dump of RAM [ram_lo, ram_hi) into the image. */
static void make_dump(struct img *im)
{
	char block[BS] = { 0 }, notes[BS] = { 0 };
	struct diskdump_header *h = &im->h;
	uint64_t pfn, rank = 0;
	size_t nsz = fake_notes(notes);
	int fd;

	fd = open(im->path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)(im->blocks * BS)))
		abort();
	for (uint64_t b = 0; b < im->blocks; b++) {
		dd_fill_fmt_block(block, b, im->blocks);
		put(fd, b, block, BS);
	}
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, DISKDUMP_HDR_MAGIC, 8);
	h->endian = DISKDUMP_ENDIAN_MARK;
	h->version = DISKDUMP_HDR_VERSION;
	h->header_size = sizeof(*h);
	h->block_size = BS;
	h->status = im->status;
	h->nr_cpus = 1;
	h->nr_cpu_notes = 1;
	h->partition_blocks = im->blocks;
	h->max_pfn = im->max_pfn;
	h->note_block = 1;
	h->note_size = nsz;
	h->bitmap_block = 2;
	h->bitmap_blocks = (im->max_pfn + BS * 8 - 1) / (BS * 8);
	h->data_block = h->bitmap_block + 2 * h->bitmap_blocks;
	h->nr_ram_pages = im->ram_hi - im->ram_lo;
	h->nr_dump_pages = h->nr_ram_pages;
	h->written_pages = im->status == DISKDUMP_STATUS_WRITING ? 0 : im->written;
	if (im->written < h->nr_dump_pages && im->status != DISKDUMP_STATUS_WRITING)
		h->flags = DISKDUMP_FLAG_TRUNCATED;
	h->page_offset = 0xffff888000000000ULL;
	h->kernel_vaddr = 0xffffffff81000000ULL;
	h->kernel_paddr = im->ram_lo * BS;
	h->kernel_size = 2 * BS;
	strcpy(h->nodename, "unit");
	strcpy(h->release, "6.12.0");
	strcpy(h->panic_msg, "unit test panic");
	h->crc = 0;
	h->crc = dd_crc32(0, h, sizeof(*h));
	memset(block, 0, BS);
	memcpy(block, h, sizeof(*h));
	put(fd, 0, block, BS);
	put(fd, 1, notes, BS);
	for (uint64_t b = 0; b < h->bitmap_blocks; b++) {
		memset(block, 0, BS);
		for (pfn = b * BS * 8; pfn < (b + 1) * BS * 8 && pfn < im->max_pfn; pfn++)
			if (pfn >= im->ram_lo && pfn < im->ram_hi)
				block[(pfn - b * BS * 8) / 8] |= (char)(1 << (pfn % 8));
		put(fd, h->bitmap_block + b, block, BS);
		put(fd, h->bitmap_block + h->bitmap_blocks + b, block, BS);
	}
	for (pfn = im->ram_lo; pfn < im->ram_hi && rank < im->written; pfn++, rank++) {
		fill_page((uint64_t *)block, pfn);
		put(fd, h->data_block + rank, block, BS);
	}
	close(fd);
}

static void img_init(struct img *im, const char *name, uint64_t blocks)
{
	memset(im, 0, sizeof(*im));
	snprintf(im->path, sizeof(im->path), "%s/%s", tmpdir, name);
	im->blocks = blocks;
	im->max_pfn = 300;
	im->ram_lo = 16;
	im->ram_hi = 200;
	im->written = im->ram_hi - im->ram_lo;
	im->status = DISKDUMP_STATUS_COMPLETE;
}

/* Patch a header field and fix the crc (or not). */
static void rewrite_header(struct img *im, int fix_crc)
{
	int fd = open(im->path, O_RDWR);

	if (fix_crc) {
		im->h.crc = 0;
		im->h.crc = dd_crc32(0, &im->h, sizeof(im->h));
	}
	put(fd, 0, &im->h, sizeof(im->h));
	close(fd);
}

static int load(struct img *im, struct dd_dump *d, char *why)
{
	struct dd_dev dev;
	int ret;

	if (dd_open(&dev, im->path, false))
		return -100;
	ret = dd_load(&dev, d, why, 256);
	dd_close(&dev);
	return ret;
}

/* Save through savecore's own code into @out; returns the ELF bytes. */
/*
 * Load @im with savecore's reader, write it (ELF when @how is
 * negative, else kdump-compressed with @how) into IMAGE.SUFFIX, check the
 * size the writer reports, and return the file's bytes.
 */
static char *save_as(struct img *im, int how, size_t *len)
{
	struct dd_dump d;
	struct dd_dev dev;
	char why[256], out[300];
	uint64_t want = 0;
	struct stat st;
	char *buf;
	int fd, ret;

	if (dd_open(&dev, im->path, false) || dd_load(&dev, &d, why, sizeof(why)) ||
	    (how < 0 && dd_plan_segments(&dev, &d)))
		return NULL;
	snprintf(out, sizeof(out), "%s.%s", im->path, how < 0 ? "elf" : "kdump");
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return NULL;
	if (how < 0) {
		ret = dd_write_elf(&dev, &d, fd);
		want = dd_elf_size(&d);
	} else {
		ret = dd_write_kdump(&dev, &d, fd, (enum dd_compress)how, &want);
	}
	fstat(fd, &st);
	if (ret || (uint64_t)st.st_size != want)
		return NULL;
	buf = malloc((size_t)st.st_size);
	if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		return NULL;
	*len = (size_t)st.st_size;
	close(fd);
	dd_close(&dev);
	dd_free(&d);
	return buf;
}

static char *save_elf(struct img *im, size_t *len)
{
	return save_as(im, -1, len);
}

static const uint64_t *elf_phys(const char *elf, uint64_t pa, int *kernel_seen)
{
	const Elf64_Ehdr *eh = (const void *)elf;
	const Elf64_Phdr *ph = (const void *)(elf + eh->e_phoff);
	const uint64_t *found = NULL;

	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || pa < ph[i].p_paddr ||
		    pa >= ph[i].p_paddr + ph[i].p_filesz)
			continue;
		if (ph[i].p_vaddr >= 0xffffffff80000000ULL)
			*kernel_seen = 1;
		else
			found = (const void *)(elf + ph[i].p_offset + (pa - ph[i].p_paddr));
	}
	return found;
}

/* ---- tests ---- */

static int test_crc32_vector(void)
{
	CHECK(dd_crc32(0, "123456789", 9) == 0xcbf43926u);
	CHECK(dd_crc32(0, "", 0) == 0);
	return 0;
}

static int test_fmt_block_roundtrip(void)
{
	char b[BS];

	dd_fill_fmt_block(b, 7, 100);
	CHECK(dd_is_fmt_block(b, 7));
	CHECK(!dd_is_fmt_block(b, 8));
	b[0] ^= 1;
	CHECK(!dd_is_fmt_block(b, 7));
	return 0;
}

static int test_foreign_signatures(void)
{
	static unsigned char buf[128 * 1024];

	memset(buf, 0, sizeof(buf));
	CHECK(dd_foreign_signature(buf, sizeof(buf)) == NULL);
	buf[1080] = 0x53;
	buf[1081] = 0xef;
	CHECK(strstr(dd_foreign_signature(buf, sizeof(buf)), "ext"));
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 4086, "SWAPSPACE2", 10);
	CHECK(strstr(dd_foreign_signature(buf, sizeof(buf)), "swap"));
	memset(buf, 0, sizeof(buf));
	memcpy(buf, DISKDUMP_HDR_MAGIC, 8);
	CHECK(strstr(dd_foreign_signature(buf, sizeof(buf)), "savecore"));
	return 0;
}

static int test_complete_dump_to_elf(void)
{
	struct img im;
	size_t len;
	char *elf;
	int kernel = 0;

	img_init(&im, "complete", 600);
	make_dump(&im);
	elf = save_elf(&im, &len);
	CHECK(elf);
	CHECK(!memcmp(elf, ELFMAG, SELFMAG));
	CHECK(((Elf64_Ehdr *)elf)->e_type == ET_CORE);
	CHECK(((Elf64_Ehdr *)elf)->e_flags == 0);
	CHECK(((Elf64_Phdr *)(elf + 64))->p_type == PT_NOTE);
	for (uint64_t pfn = im.ram_lo; pfn < im.ram_hi; pfn++) {
		const uint64_t *p = elf_phys(elf, pfn * BS, &kernel);

		CHECK(p);
		CHECK(p[0] == (PAT ^ (pfn * BS)));
		CHECK(p[511] == (PAT ^ (pfn * BS + 511 * 8)));
	}
	CHECK(kernel);		/* the kernel image segment exists */
	CHECK(!elf_phys(elf, 0, &kernel));	/* no RAM there: no segment */
	CHECK(!elf_phys(elf, im.ram_hi * BS, &kernel));
	free(elf);
	return 0;
}

/* ---- kdump-compressed output, read back the way crash(8) reads it ---- */

static char *save_kdump(struct img *im, enum dd_compress how, size_t *len)
{
	return save_as(im, (int)how, len);
}

/*
 * The page of @pfn in a kdump file: 1 and the page in @page, 0 if the file
 * says the page is absent, -1 if the file is inconsistent.
 */
static int kdump_page(const char *f, size_t len, uint64_t pfn, unsigned char *page)
{
	uint32_t sub_blocks, bitmap_blocks, size, flags;
	uint64_t half, rank = 0, max_pfn;
	const unsigned char *ram, *dumpable, *pd;
	int64_t off;
	uLongf out = BS;
	lzo_uint lout = BS;

	memcpy(&sub_blocks, f + 432, 4);
	memcpy(&bitmap_blocks, f + 436, 4);
	memcpy(&max_pfn, f + BS + 96, 8);
	half = (uint64_t)bitmap_blocks / 2 * BS;
	if ((1 + sub_blocks + bitmap_blocks) * (uint64_t)BS > len || pfn >= max_pfn)
		return -1;
	ram = (const unsigned char *)f + (1 + sub_blocks) * (uint64_t)BS;
	dumpable = ram + half;
	if (!(dumpable[pfn / 8] & (1 << (pfn % 8))))
		return 0;
	if (!(ram[pfn / 8] & (1 << (pfn % 8))))
		return -1;
	for (uint64_t p = 0; p < pfn; p++)
		rank += (dumpable[p / 8] >> (p % 8)) & 1;
	pd = (const unsigned char *)f + (1 + sub_blocks + bitmap_blocks) * (uint64_t)BS + 24 * rank;
	memcpy(&off, pd, 8);
	memcpy(&size, pd + 8, 4);
	memcpy(&flags, pd + 12, 4);
	if (off <= 0 || (uint64_t)off + size > len || size > BS)
		return -1;
	if (flags == 0x1)
		return uncompress(page, &out, (const Bytef *)f + off, size) == Z_OK && out == BS ? 1 : -1;
	if (flags == 0x2)
		return lzo1x_decompress_safe((const unsigned char *)f + off, size, page, &lout,
					     NULL) == LZO_E_OK && lout == BS ? 1 : -1;
	if (flags == 0x20)
		return ZSTD_decompress(page, BS, f + off, size) == BS ? 1 : -1;
	if (flags || size != BS)
		return -1;
	memcpy(page, f + off, BS);
	return 1;
}

static int check_kdump(enum dd_compress how, uint64_t written)
{
	unsigned char page[BS];
	uint64_t want[BS / 8];
	struct img im;
	size_t len;
	uint32_t status;
	int32_t version;
	char *f;

	static const char *const names[] = { "kdraw", "kdzlib", "kdlzo", "kdzstd" };
	static const uint32_t flag[] = { 0, 0x1, 0x2, 0x20 };

	img_init(&im, names[how], 600);
	if (written < im.written) {
		im.written = written;
		im.status = DISKDUMP_STATUS_INCOMPLETE;
	}
	make_dump(&im);
	f = save_kdump(&im, how, &len);
	CHECK(f);
	CHECK(!memcmp(f, "KDUMP   ", 8));
	memcpy(&version, f + 8, 4);
	memcpy(&status, f + 424, 4);
	CHECK(version == 6);
	CHECK(!!(status & 0x8) == (written < im.ram_hi - im.ram_lo));	/* incomplete */
	CHECK((status & 0x27) == flag[how]);
	CHECK(!strcmp(f + 12 + 2 * 65, "6.12.0"));			/* utsname.release */
	for (uint64_t pfn = 0; pfn < im.max_pfn; pfn++) {
		int r = kdump_page(f, len, pfn, page);
		bool there = pfn >= im.ram_lo && pfn < im.ram_lo + im.written;

		CHECK(r == (there ? 1 : 0));
		if (there) {
			fill_page(want, pfn);
			CHECK(!memcmp(page, want, BS));
		}
	}
	if (how != DD_NONE)	/* the pattern compresses: smaller than the pages */
		CHECK(len < (im.written + 8) * BS);
	free(f);
	return 0;
}

static int test_kdump_zlib(void)
{
	return check_kdump(DD_ZLIB, 1000);
}

static int test_kdump_lzo(void)
{
	return check_kdump(DD_LZO, 1000);
}

static int test_kdump_zstd(void)
{
	return check_kdump(DD_ZSTD, 1000);
}

static int test_kdump_uncompressed(void)
{
	return check_kdump(DD_NONE, 1000);
}

static int test_kdump_partial(void)
{
	return check_kdump(DD_ZLIB, 50);
}

static int run(char *const argv[]);

/* savecore -n 2: after the third save only the newest two dumps are left. */
static int test_savecore_rotation(void)
{
	char dev[300], dir[300], cmd[700];
	struct img im;
	int n = 0;

	img_init(&im, "rot", 600);
	snprintf(dev, sizeof(dev), "%s", im.path);
	snprintf(dir, sizeof(dir), "%s/rotdir", tmpdir);
	for (int i = 0; i < 3; i++) {
		char *argv[] = { "./savecore", "-q", "-n", "2", dev, dir, NULL };

		im.h.time_sec = 0;
		make_dump(&im);
		/* a different panic time each round, hence a new directory */
		im.h.time_sec = 1000 + (uint64_t)i;
		rewrite_header(&im, 1);
		CHECK(run(argv) == 0);
	}
	snprintf(cmd, sizeof(cmd), "ls %s | wc -l", dir);
	{
		FILE *p = popen(cmd, "r");

		CHECK(p && fscanf(p, "%d", &n) == 1);
		pclose(p);
	}
	CHECK(n == 2);
	snprintf(cmd, sizeof(cmd), "ls %s | grep -q 19700101-001640", dir);	/* 1000 s: gone */
	CHECK(system(cmd) != 0);
	snprintf(cmd, sizeof(cmd), "ls %s | grep -q 19700101-001642", dir);	/* 1002 s: kept */
	CHECK(system(cmd) == 0);
	return 0;
}

/* A wrong header checksum: refused (exit 4, left alone), saved with -f. */
static int test_force_reads_bad_checksum(void)
{
	char dir[300];
	struct img im;

	img_init(&im, "force", 600);
	make_dump(&im);
	im.h.crc ^= 1;
	rewrite_header(&im, 0);
	snprintf(dir, sizeof(dir), "%s/forcedir", tmpdir);
	{
		char *argv[] = { "./savecore", "-q", im.path, dir, NULL };

		CHECK(run(argv) == 4);
	}
	{
		char *argv[] = { "./savecore", "-q", "-f", im.path, dir, NULL };

		CHECK(run(argv) == 0);
	}
	return 0;
}

/* The progress line: on a terminal (script(1) gives one), not otherwise. */
static int test_progress_only_on_a_tty(void)
{
	char cmd[1200];
	struct img im;

	img_init(&im, "prog", 600);
	make_dump(&im);
	snprintf(cmd, sizeof(cmd),
		 "script -qec './savecore -k %s %s/progtty' /dev/null 2>&1 | grep -q 'MiB/s  ETA'",
		 im.path, tmpdir);
	CHECK(system(cmd) == 0);
	snprintf(cmd, sizeof(cmd),
		 "./savecore -k %s %s/prognotty 2>&1 | grep -q 'MiB/s'", im.path, tmpdir);
	CHECK(system(cmd) != 0);
	return 0;
}

static int test_vmcoreinfo_lookup(void)
{
	struct img im;
	struct dd_dump d;
	char why[256], val[64];

	img_init(&im, "vmci", 600);
	make_dump(&im);
	CHECK(load(&im, &d, why) == 0);
	CHECK(dd_vmcoreinfo(&d, "OSRELEASE", val, sizeof(val)));
	CHECK(!strcmp(val, "6.12.0"));
	CHECK(dd_vmcoreinfo(&d, "PAGESIZE", val, sizeof(val)) && !strcmp(val, "4096"));
	CHECK(!dd_vmcoreinfo(&d, "PAGE", val, sizeof(val)));
	CHECK(!dd_vmcoreinfo(&d, "SYMBOL(swapper_pg_dir)", val, sizeof(val)));
	dd_free(&d);
	return 0;
}

static int test_truncated_dump_is_partial(void)
{
	struct img im;
	struct dd_dump d;
	char why[256];
	size_t len;
	char *elf;
	int k = 0;

	img_init(&im, "trunc", 600);
	im.written = 50;
	im.status = DISKDUMP_STATUS_INCOMPLETE;
	make_dump(&im);
	CHECK(load(&im, &d, why) == 0);
	CHECK(d.present == 50);
	dd_free(&d);
	elf = save_elf(&im, &len);
	CHECK(elf);
	CHECK(((Elf64_Ehdr *)elf)->e_flags & 1);	/* DUMP_ELF_INCOMPLETE */
	CHECK(elf_phys(elf, (im.ram_lo + 49) * BS, &k));
	CHECK(!elf_phys(elf, (im.ram_lo + 50) * BS, &k));
	free(elf);
	return 0;
}

static int test_interrupted_dump_is_scanned(void)
{
	struct img im;
	struct dd_dump d;
	char why[256];

	img_init(&im, "writing", 600);
	im.written = 77;
	im.status = DISKDUMP_STATUS_WRITING;
	make_dump(&im);
	CHECK(load(&im, &d, why) == 0);
	CHECK(d.present == 77);
	dd_free(&d);
	return 0;
}

static int test_empty_and_foreign(void)
{
	struct img im;
	struct dd_dump d;
	char why[256], zero[BS] = { 0 };
	int fd;

	img_init(&im, "empty", 64);
	make_dump(&im);
	fd = open(im.path, O_RDWR);
	dd_fill_fmt_block(zero, 0, 64);
	put(fd, 0, zero, BS);
	close(fd);
	CHECK(load(&im, &d, why) == -EX_NODUMP);
	fd = open(im.path, O_RDWR);
	memset(zero, 0, BS);
	put(fd, 0, zero, BS);
	close(fd);
	CHECK(load(&im, &d, why) == -EX_NODUMP);
	CHECK(strstr(why, "not formatted"));
	return 0;
}

static int test_corrupt_headers_are_refused(void)
{
	struct img im;
	struct dd_dump d;
	char why[256];
	struct diskdump_header good;

	img_init(&im, "corrupt", 600);
	make_dump(&im);
	good = im.h;

	im.h.max_pfn = 301;	/* crc no longer matches */
	rewrite_header(&im, 0);
	CHECK(load(&im, &d, why) == -EX_CORRUPT);
	CHECK(strstr(why, "checksum"));

	struct { __u64 *field; uint64_t value; const char *what; } cases[] = {
		{ &im.h.max_pfn, 1ULL << 50, "implausible" },
		{ &im.h.bitmap_blocks, 1ULL << 40, "bitmap" },
		{ &im.h.note_size, 1ULL << 62, "note" },
		{ &im.h.written_pages, 1ULL << 62, "written" },
		{ &im.h.partition_blocks, 1ULL << 62, "blocks" },
		{ &im.h.data_block, 3, "bitmap placement" },
		{ &im.h.nr_dump_pages, 100, "pages" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		im.h = good;
		*cases[i].field = cases[i].value;
		rewrite_header(&im, 1);
		CHECK(load(&im, &d, why) < 0);
		if (!strstr(why, cases[i].what)) {
			fprintf(stderr, "  case %zu: '%s' lacks '%s'\n", i, why, cases[i].what);
			return 1;
		}
		dd_free(&d);
	}
	return 0;
}

static int run(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int test_savecore_binary_cycle(void)
{
	struct img im;
	char out[300], vmcore[400], cmd[700];
	char *check[] = { "./savecore", "-c", im.path, NULL };
	char *save[] = { "./savecore", "-q", im.path, out, NULL };
	struct stat st;

	img_init(&im, "cycle", 600);
	make_dump(&im);
	snprintf(out, sizeof(out), "%s/crash", tmpdir);
	CHECK(run(check) == EX_OK);
	CHECK(run(save) == EX_OK);
	snprintf(cmd, sizeof(cmd), "ls %s/unit-*/vmcore >/dev/null", out);
	CHECK(system(cmd) == 0);
	snprintf(vmcore, sizeof(vmcore), "%s/crash", tmpdir);
	CHECK(stat(vmcore, &st) == 0 && (st.st_mode & 0777) == 0700);
	/* formatted again: no dump any more */
	CHECK(run(check) == EX_NODUMP);
	CHECK(run(save) == EX_NODUMP);
	return 0;
}

static int test_savecore_keeps_corrupt_dump(void)
{
	struct img im;
	char out[300];
	char *save[] = { "./savecore", "-q", im.path, out, NULL };
	char *check[] = { "./savecore", "-c", im.path, NULL };

	img_init(&im, "keep", 600);
	make_dump(&im);
	im.h.crc ^= 1;
	rewrite_header(&im, 0);
	snprintf(out, sizeof(out), "%s/crash2", tmpdir);
	CHECK(run(save) == EX_CORRUPT);
	CHECK(run(check) == EX_CORRUPT);	/* still there, untouched */
	return 0;
}

static int test_savecore_no_space(void)
{
	struct img im;
	char *save[] = { "./savecore", "-q", "-m", "1048576", im.path, tmpdir, NULL };
	char *check[] = { "./savecore", "-c", im.path, NULL };

	img_init(&im, "nospace", 600);
	make_dump(&im);
	/* -m 1048576: keep 1 TiB free, which no test machine has */
	CHECK(run(save) == EX_NOSPACE);
	CHECK(run(check) == EX_OK);		/* the dump is not lost */
	return 0;
}

static int test_diskdumpfmt(void)
{
	char path[300];
	char *fmt[] = { "./diskdumpfmt", "-q", path, NULL };
	char *force[] = { "./diskdumpfmt", "-q", "-f", path, NULL };
	char b[BS], sb[2048] = { 0 };
	int fd;

	snprintf(path, sizeof(path), "%s/fmt.img", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 40 * BS) == 0);
	sb[1080] = 0x53;
	sb[1081] = (char)0xef;
	CHECK(pwrite(fd, sb, sizeof(sb), 0) == sizeof(sb));
	CHECK(run(fmt) == EX_ERROR);		/* an ext4 signature: refused */
	CHECK(pread(fd, b, BS, 0) == BS && b[1080] == 0x53);
	CHECK(fchmod(fd, 0646) == 0);
	CHECK(run(force) == EX_OK);
	for (uint64_t i = 0; i < 40; i++) {
		CHECK(pread(fd, b, BS, (off_t)(i * BS)) == BS);
		CHECK(dd_is_fmt_block(b, i));
	}
	{
		struct stat st;

		/* formatted: no longer readable or writable by others */
		CHECK(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0640);
	}
	close(fd);
	return 0;
}

/* ---- encrypted dumps: sealed here the way diskdump.c seals them ---- */

static EVP_PKEY *test_key(const char *name, char *pem, size_t pemlen)
{
	EVP_PKEY *pk = EVP_RSA_gen(2048);
	FILE *f;

	snprintf(pem, pemlen, "%s/%s.pem", tmpdir, name);
	f = fopen(pem, "w");
	if (!pk || !f || !PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL))
		abort();
	fclose(f);
	return pk;
}

/* ChaCha20 keystream XOR, IV { 0, block, nonce }, written out for the test. */
static void test_xor(const uint8_t *key, const uint8_t *nonce, uint64_t block,
		     uint8_t *buf, int len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t iv[16] = { 0 };
	int out;

	for (int i = 0; i < 4; i++)
		iv[4 + i] = (uint8_t)(block >> (8 * i));
	memcpy(iv + 8, nonce, 8);
	if (!EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key, iv) ||
	    !EVP_EncryptUpdate(c, buf, &out, buf, len))
		abort();
	EVP_CIPHER_CTX_free(c);
}

/*
 * Encrypt blocks 1 .. data_block + written_pages - 1 of @im for @pk, wrap
 * the key, and MAC it all (Poly1305 keyed by block 0's keystream).
 */
static void seal_dump(struct img *im, EVP_PKEY *pk)
{
	struct diskdump_header *h = &im->h;
	uint64_t end = h->data_block + h->written_pages;
	uint8_t key[32], otk[32] = { 0 }, block[BS];
	unsigned char *der = NULL;
	unsigned int idlen;
	size_t wl = sizeof(h->wrapped_key), ml;
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new(pk, NULL);
	EVP_MAC *alg = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	EVP_MAC_CTX *mc = EVP_MAC_CTX_new(alg);
	struct diskdump_header copy;
	int fd = open(im->path, O_RDWR), dl;

	if (fd < 0 || RAND_bytes(key, 32) != 1 || RAND_bytes(h->nonce, 8) != 1)
		abort();
	h->cipher = DISKDUMP_CIPHER_CHACHA20_POLY1305;
	if (EVP_PKEY_encrypt_init(pc) <= 0 || EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PADDING) <= 0 ||
	    EVP_PKEY_encrypt(pc, h->wrapped_key, &wl, key, 32) <= 0)
		abort();
	h->wrapped_key_size = (uint32_t)wl;
	dl = i2d_PublicKey(pk, &der);
	if (dl <= 0 || !EVP_Digest(der, (size_t)dl, h->key_id, &idlen, EVP_sha256(), NULL))
		abort();
	test_xor(key, h->nonce, 0, otk, 32);
	if (!EVP_MAC_init(mc, otk, 32, NULL))
		abort();
	for (uint64_t b = 1; b < end; b++) {
		if (pread(fd, block, BS, (off_t)(b * BS)) != BS)
			abort();
		test_xor(key, h->nonce, b, block, BS);
		put(fd, b, block, BS);
		EVP_MAC_update(mc, block, BS);
	}
	memset(h->mac, 0, sizeof(h->mac));
	h->crc = 0;
	copy = *h;
	EVP_MAC_update(mc, (const uint8_t *)&copy, sizeof(copy));
	if (h->status != DISKDUMP_STATUS_WRITING &&
	    (!EVP_MAC_final(mc, h->mac, &ml, 16) || ml != 16))
		abort();
	close(fd);
	rewrite_header(im, 1);
	OPENSSL_free(der);
	EVP_MAC_CTX_free(mc);
	EVP_MAC_free(alg);
	EVP_PKEY_CTX_free(pc);
}

static int load_with_key(struct img *im, const char *pem, struct dd_dump *d, char *why)
{
	struct dd_dev dev;
	int ret;

	if (dd_open(&dev, im->path, false))
		return -100;
	dev.keyfile = pem;
	ret = dd_load(&dev, d, why, 256);
	dd_close(&dev);
	return ret;
}

/* Every page of the ELF file is the pattern of its PFN. */
static int elf_has_pattern(const char *elf, const struct img *im)
{
	int kernel = 0;

	for (uint64_t pfn = im->ram_lo; pfn < im->ram_hi; pfn++) {
		const uint64_t *p = elf_phys(elf, pfn * BS, &kernel);

		if (!p || p[0] != (PAT ^ (pfn * BS)) || p[511] != (PAT ^ (pfn * BS + 511 * 8)))
			return 0;
	}
	return 1;
}

static int test_encrypted_dump_decodes_with_the_key(void)
{
	struct img im;
	struct dd_dump d;
	char pem[300], why[256];
	struct dd_dev dev;
	EVP_PKEY *pk = test_key("k1", pem, sizeof(pem));
	uint8_t raw[BS];
	size_t len;
	char *elf;

	img_init(&im, "enc", 600);
	make_dump(&im);
	seal_dump(&im, pk);
	/* the pages on the partition are not in clear */
	CHECK(!dd_open(&dev, im.path, false));
	CHECK(!dd_read_raw_blocks(&dev, im.h.data_block, raw, 1));
	CHECK(((uint64_t *)raw)[0] != (PAT ^ (im.ram_lo * BS)));
	dd_close(&dev);
	/* without the key: only the header, marked sealed */
	CHECK(load(&im, &d, why) == 0);
	CHECK(d.sealed && d.present == im.written && !d.ram_map);
	dd_free(&d);
	/* with it: the MAC checks, and every page decodes */
	CHECK(load_with_key(&im, pem, &d, why) == 0);
	CHECK(!d.sealed && d.present == im.written);
	dd_free(&d);
	CHECK(!dd_open(&dev, im.path, false));
	dev.keyfile = pem;
	CHECK(dd_load(&dev, &d, why, sizeof(why)) == 0 && dd_plan_segments(&dev, &d) == 0);
	{
		int fd = open(tmpdir, O_TMPFILE | O_RDWR, 0600);
		struct stat st;

		CHECK(fd >= 0 && dd_write_elf(&dev, &d, fd) == 0 && fstat(fd, &st) == 0);
		len = (size_t)st.st_size;
		elf = malloc(len);
		CHECK(elf && pread(fd, elf, len, 0) == (ssize_t)len);
		close(fd);
	}
	CHECK(elf_has_pattern(elf, &im));
	free(elf);
	dd_free(&d);
	dd_close(&dev);
	EVP_PKEY_free(pk);
	return 0;
}

static int test_encrypted_dump_wrong_key_or_tampered(void)
{
	struct img im;
	struct dd_dump d;
	char pem[300], other[300], why[256];
	EVP_PKEY *pk = test_key("k2", pem, sizeof(pem));
	EVP_PKEY *pk2 = test_key("k3", other, sizeof(other));
	uint8_t b[BS];
	int fd;

	img_init(&im, "enc2", 600);
	make_dump(&im);
	seal_dump(&im, pk);
	CHECK(load_with_key(&im, other, &d, why) == -EX_ERROR);
	CHECK(strstr(why, "wrong key"));
	dd_free(&d);
	/* one bit of one page flipped: refused, nothing decoded */
	fd = open(im.path, O_RDWR);
	CHECK(pread(fd, b, BS, (off_t)((im.h.data_block + 50) * BS)) == BS);
	b[100] ^= 4;
	put(fd, im.h.data_block + 50, b, BS);
	CHECK(load_with_key(&im, pem, &d, why) == -EX_CORRUPT);
	CHECK(strstr(why, "integrity check failed"));
	dd_free(&d);
	b[100] ^= 4;
	put(fd, im.h.data_block + 50, b, BS);
	close(fd);
	CHECK(load_with_key(&im, pem, &d, why) == 0);
	dd_free(&d);
	/* the header is covered too: a changed panic message, crc fixed up */
	im.h.panic_msg[0] ^= 1;
	rewrite_header(&im, 1);
	CHECK(load_with_key(&im, pem, &d, why) == -EX_CORRUPT);
	dd_free(&d);
	/* a damaged wrapped key */
	im.h.panic_msg[0] ^= 1;
	im.h.wrapped_key[10] ^= 1;
	rewrite_header(&im, 1);
	CHECK(load_with_key(&im, pem, &d, why) == -EX_CORRUPT);
	dd_free(&d);
	/* a key file that is not a key */
	CHECK(load_with_key(&im, im.path, &d, why) == -EX_ERROR);
	CHECK(strstr(why, "not a PEM private key"));
	dd_free(&d);
	EVP_PKEY_free(pk);
	EVP_PKEY_free(pk2);
	return 0;
}

/*
 * savecore without the key saves the partition image as it is and formats
 * the partition; savecore -K decodes that file elsewhere.  An unfinished
 * encrypted dump has no MAC: refused without -f.
 */
static int test_encrypted_dump_savecore_cycle(void)
{
	struct img im;
	char pem[300], out[300], out2[300], enc[400], cmd[1400];
	char *save[] = { "./savecore", "-q", im.path, out, NULL };
	char *check[] = { "./savecore", "-c", im.path, NULL };
	char *decode[] = { "./savecore", "-q", "-k", "-K", pem, enc, out2, NULL };
	char *decode_f[] = { "./savecore", "-q", "-k", "-f", "-K", pem, enc, out2, NULL };
	EVP_PKEY *pk = test_key("k4", pem, sizeof(pem));
	FILE *p;

	img_init(&im, "enc3", 600);
	make_dump(&im);
	seal_dump(&im, pk);
	snprintf(out, sizeof(out), "%s/enccrash", tmpdir);
	snprintf(out2, sizeof(out2), "%s/decoded", tmpdir);
	CHECK(run(save) == EX_OK);
	CHECK(run(check) == EX_NODUMP);		/* formatted again */
	snprintf(cmd, sizeof(cmd), "ls %s/unit-*/vmcore.encrypted", out);
	p = popen(cmd, "r");
	CHECK(p && fgets(enc, sizeof(enc), p));
	pclose(p);
	enc[strcspn(enc, "\n")] = 0;
	snprintf(cmd, sizeof(cmd),
		 "grep -qx 'format: encrypted partition image' %s/unit-*/info && grep -q '^key_id: sha256:' %s/unit-*/info && test ! -e %s/unit-*/vmcore",
		 out, out, out);
	CHECK(system(cmd) == 0);
	CHECK(run(decode) == EX_OK);
	snprintf(cmd, sizeof(cmd),
		 "grep -qx 'format: elf' %s/unit-*/info && grep -qx 'encryption: chacha20-poly1305, RSA-2048' %s/unit-*/info",
		 out2, out2);
	CHECK(system(cmd) == 0);
	{
		struct img dec = im;
		struct stat st;
		char *elf;
		int fd;

		snprintf(cmd, sizeof(cmd), "ls %s/unit-*/vmcore", out2);
		p = popen(cmd, "r");
		CHECK(p && fgets(dec.path, sizeof(dec.path), p));
		pclose(p);
		dec.path[strcspn(dec.path, "\n")] = 0;
		fd = open(dec.path, O_RDONLY);
		CHECK(fd >= 0 && fstat(fd, &st) == 0);
		elf = malloc((size_t)st.st_size);
		CHECK(elf && pread(fd, elf, (size_t)st.st_size, 0) == st.st_size);
		close(fd);
		CHECK(elf_has_pattern(elf, &im));
		free(elf);
	}
	/* unfinished: the kernel stopped before the final header */
	im.status = DISKDUMP_STATUS_WRITING;
	im.written = 100;
	make_dump(&im);
	im.h.written_pages = 100;	/* seal what was written... */
	seal_dump(&im, pk);
	im.h.written_pages = 0;		/* ...as a WRITING header says none */
	rewrite_header(&im, 1);
	snprintf(enc, sizeof(enc), "%s", im.path);
	snprintf(out2, sizeof(out2), "%s/decoded2", tmpdir);
	CHECK(run(decode) == EX_CORRUPT);
	CHECK(run(decode_f) == EX_OK);
	snprintf(cmd, sizeof(cmd), "grep -qx 'saved_pages: 100' %s/unit-*/info", out2);
	CHECK(system(cmd) == 0);
	EVP_PKEY_free(pk);
	return 0;
}

/* test_savecore --seed FILE: write a small valid dump (the fuzzer's seed). */
static int write_seed(const char *path)
{
	struct img im;

	img_init(&im, "seed", 16);
	snprintf(im.path, sizeof(im.path), "%s", path);
	im.max_pfn = 12;
	im.ram_lo = 2;
	im.ram_hi = 10;
	im.written = 8;
	make_dump(&im);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--seed"))
		return write_seed(argv[2]);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_crc32_vector);
	RUN(test_fmt_block_roundtrip);
	RUN(test_foreign_signatures);
	RUN(test_complete_dump_to_elf);
	RUN(test_vmcoreinfo_lookup);
	RUN(test_truncated_dump_is_partial);
	RUN(test_interrupted_dump_is_scanned);
	RUN(test_empty_and_foreign);
	RUN(test_corrupt_headers_are_refused);
	RUN(test_savecore_binary_cycle);
	RUN(test_savecore_keeps_corrupt_dump);
	RUN(test_savecore_no_space);
	RUN(test_diskdumpfmt);
	RUN(test_kdump_zlib);
	RUN(test_kdump_lzo);
	RUN(test_kdump_zstd);
	RUN(test_kdump_uncompressed);
	RUN(test_kdump_partial);
	RUN(test_savecore_rotation);
	RUN(test_progress_only_on_a_tty);
	RUN(test_force_reads_bad_checksum);
	RUN(test_encrypted_dump_decodes_with_the_key);
	RUN(test_encrypted_dump_wrong_key_or_tampered);
	RUN(test_encrypted_dump_savecore_cycle);
	if (!failed) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
