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
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/resource.h>
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

/* savecore's defaults: stacks mapped, the header's checksum checked */
static const struct dd_load_opts load_opts = { .map_stacks = true };

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
	uint32_t flags;					/* more header flags */
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
	h->flags |= im->flags;
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

	if (dd_open(&dev, im->path, 0))
		return -100;
	ret = dd_load(&dev, d, &load_opts, why, 256);
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

	if (dd_open(&dev, im->path, 0) || dd_load(&dev, &d, &load_opts, why, sizeof(why)) ||
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
	CHECK(dd_fmt_block_check(b, 7, 100) == DD_FMT_OK);
	CHECK(dd_fmt_block_check(b, 8, 100) == DD_FMT_BAD);
	CHECK(dd_fmt_block_check(b, 7, 101) == DD_FMT_BAD);	/* another partition size */
	b[0] ^= 1;
	CHECK(dd_fmt_block_check(b, 7, 100) == DD_FMT_BAD);
	return 0;
}

/* libblkid names what is there: a real ext4, nothing on zeros. */
static int test_signatures(void)
{
	struct dd_signature sigs[4];
	char path[300], moved[320], cmd[400];
	struct dd_dev dev;
	int fd;

	snprintf(path, sizeof(path), "%s/sig.img", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 4 << 20) == 0);
	close(fd);
	CHECK(dd_open(&dev, path, 0) == 0);
	CHECK(dd_signatures(&dev, sigs, 4) == 0);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %s 2>/dev/null", path);
	CHECK(system(cmd) == 0);
	CHECK(dd_signatures(&dev, sigs, 4) == 1);
	CHECK(!strcmp(sigs[0].type, "ext4") && !strcmp(sigs[0].usage, "filesystem"));
	CHECK(sigs[0].has_offset && sigs[0].offset == 1080);
	/* the name now leads to another (empty) file: not probed */
	snprintf(moved, sizeof(moved), "%s.old", path);
	CHECK(rename(path, moved) == 0);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 4 << 20) == 0);
	close(fd);
	CHECK(dd_signatures(&dev, sigs, 4) == -ESTALE);
	dd_close(&dev);
	unlink(moved);
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

/* Append a note to @buf at *@len: header, name and desc, each padded. */
static void put_note(char *buf, size_t *len, const char *name, uint32_t type,
		     const char *desc, uint32_t descsz)
{
	uint32_t nh[3] = { (uint32_t)strlen(name) + 1, descsz, type };

	memcpy(buf + *len, nh, sizeof(nh));
	*len += sizeof(nh);
	memset(buf + *len, 0, (nh[0] + 3) & ~3u);
	memcpy(buf + *len, name, nh[0]);
	*len += (nh[0] + 3) & ~3u;
	memset(buf + *len, 0, (descsz + 3) & ~3u);
	memcpy(buf + *len, desc, descsz);
	*len += (descsz + 3) & ~3u;
}

static int test_note_iterator(void)
{
	char buf[256];
	size_t len = 0, pos = 0;
	struct dd_note n;
	uint32_t huge[3] = { 0xffffffffu, 4, 1 };

	put_note(buf, &len, "CORE", 1, "abcde", 5);
	put_note(buf, &len, "VMCOREINFO", 0, "OSRELEASE=6.12.0\n", 17);
	CHECK(dd_note_next(buf, len, &pos, &n));
	CHECK(n.type == 1 && n.namesz == 5 && !strcmp(n.name, "CORE"));
	CHECK(n.descsz == 5 && !memcmp(n.desc, "abcde", 5) && pos == 12 + 8 + 8);
	CHECK(dd_note_next(buf, len, &pos, &n) && n.namesz == 11 && pos == len);
	CHECK(!dd_note_next(buf, len, &pos, &n));
	CHECK(dd_find_vmcoreinfo(buf, len, &n) && n.descsz == 17);
	CHECK(!memcmp(n.desc, "OSRELEASE=", 10));
	/* the last note's desc padding cut off: still whole */
	pos = 0;
	CHECK(dd_note_next(buf, len - 3, &pos, &n) && dd_note_next(buf, len - 3, &pos, &n));
	CHECK(pos == len - 3);
	/* one byte of its desc missing: not a note */
	CHECK(!dd_find_vmcoreinfo(buf, len - 4, &n));
	/* a name size that would wrap the offset */
	memcpy(buf, huge, sizeof(huge));
	pos = 0;
	CHECK(!dd_note_next(buf, len, &pos, &n) && pos == 0);
	CHECK(!dd_find_vmcoreinfo(buf, len, &n));
	/* a header cut short */
	pos = 0;
	CHECK(!dd_note_next(buf, 11, &pos, &n));
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

/*
 * A partition too small for the dump level: the kernel chose the pages it
 * could write, the bitmap lists only those, all of them written, and the
 * header says TRUNCATED.  Still partial.
 */
static int test_chosen_truncated_dump_is_partial(void)
{
	struct img im;
	struct dd_dump d;
	char why[256], summary[4096];
	size_t len;
	char *elf;
	FILE *f;

	img_init(&im, "chosen", 600);
	im.status = DISKDUMP_STATUS_INCOMPLETE;
	im.flags = DISKDUMP_FLAG_TRUNCATED;
	make_dump(&im);
	CHECK(load(&im, &d, why) == 0);
	CHECK(d.present == d.h.nr_dump_pages);
	CHECK(dd_partial(&d));
	f = fmemopen(summary, sizeof(summary), "w");
	CHECK(f);
	dd_print_summary(f, &d, "chosen");
	fclose(f);
	CHECK(strstr(summary, "partial: yes\n"));
	dd_free(&d);
	elf = save_elf(&im, &len);
	CHECK(elf);
	CHECK(((Elf64_Ehdr *)elf)->e_flags & 1);	/* DUMP_ELF_INCOMPLETE */
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

/*
 * NVMe completes the writes in flight in any order: an unfinished dump may
 * hold pages written after a block never written.  Ranks 1-51 and 58-76
 * written (rank 65 a page of zeros), 0 and 52-57 still formatted:
 * savecore keeps all 70, in the ELF file and the kdump file, each at its
 * PFN, and leaves the seven out.  The holes do not fall on the unit
 * tests' 5-block chunks, so the kdump writer packs chunks with pages both
 * present and absent.
 */
static int test_interrupted_dump_keeps_pages_after_a_hole(void)
{
	unsigned char page[BS];
	uint64_t want[BS / 8];
	char why[256], b[BS];
	struct dd_dump d;
	struct img im;
	size_t len;
	char *elf, *kd;
	int fd, seen = 0;

	img_init(&im, "hole", 600);
	im.written = 77;
	im.status = DISKDUMP_STATUS_WRITING;
	make_dump(&im);
	fd = open(im.path, O_RDWR);
	CHECK(fd >= 0);
	for (uint64_t r = 0; r < 58; r = r ? r + 1 : 52) {
		dd_fill_fmt_block(b, im.h.data_block + r, 600);
		put(fd, im.h.data_block + r, b, BS);
	}
	memset(b, 0, BS);
	put(fd, im.h.data_block + 65, b, BS);
	close(fd);
	CHECK(load(&im, &d, why) == 0);
	CHECK(d.present == 70);
	CHECK(d.extent == 77);
	CHECK(dd_partial(&d));
	dd_free(&d);
	elf = save_elf(&im, &len);
	kd = save_kdump(&im, DD_ZLIB, &len);
	CHECK(elf && kd);
	for (uint64_t pfn = im.ram_lo; pfn < im.ram_hi; pfn++) {
		uint64_t r = pfn - im.ram_lo;
		bool there = r && (r < 52 || (r >= 58 && r < 77));
		const uint64_t *e = elf_phys(elf, pfn * BS, &seen);

		fill_page(want, pfn);
		if (r == 65)
			memset(want, 0, BS);
		CHECK(there ? e && !memcmp(e, want, BS) : !e);
		CHECK(kdump_page(kd, len, pfn, page) == (there ? 1 : 0));
		CHECK(!there || !memcmp(page, want, BS));
	}
	free(elf);
	free(kd);
	return 0;
}

static int test_empty_and_foreign(void)
{
	struct img im;
	struct dd_dump d;
	char why[256], zero[BS] = { 0 };
	int fd;

	img_init(&im, "empty", 600);
	make_dump(&im);
	fd = open(im.path, O_RDWR);
	dd_fill_fmt_block(zero, 0, 600);
	put(fd, 0, zero, BS);
	close(fd);
	CHECK(load(&im, &d, why) == -DD_EXIT_NODUMP);
	CHECK(d.content == DD_EMPTY);
	fd = open(im.path, O_RDWR);
	memset(zero, 0, BS);
	put(fd, 0, zero, BS);
	close(fd);
	CHECK(load(&im, &d, why) == -DD_EXIT_UNFORMATTED);
	CHECK(d.content == DD_FOREIGN);
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
	CHECK(load(&im, &d, why) == -DD_EXIT_CORRUPT);
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
	CHECK(run(check) == DD_EXIT_OK);
	CHECK(run(save) == DD_EXIT_OK);
	snprintf(cmd, sizeof(cmd), "ls %s/unit-*/vmcore >/dev/null", out);
	CHECK(system(cmd) == 0);
	snprintf(vmcore, sizeof(vmcore), "%s/crash", tmpdir);
	CHECK(stat(vmcore, &st) == 0 && (st.st_mode & 0777) == 0700);
	/* formatted again: no dump any more */
	CHECK(run(check) == DD_EXIT_NODUMP);
	CHECK(run(save) == DD_EXIT_NODUMP);
	return 0;
}

/* Does some DIR/x/vmcore.incomplete exist?  1 yes, 0 no. */
static int incomplete_in(const char *dir)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "ls %s/*/vmcore.incomplete >/dev/null 2>&1", dir);
	return system(cmd) == 0;
}

/*
 * SIGTERM in the middle of a save, as systemd sends it when the unit's
 * start timeout runs out: savecore dies of it, and leaves neither its half
 * file nor the directory it made.
 */
static int test_savecore_stopped_mid_save(void)
{
	struct img im;
	char out[300], cmd[400];
	int seen = 0, done = 0, st = 0, i;
	pid_t pid;

	img_init(&im, "stopped", 40000);
	im.max_pfn = 40000;
	im.ram_hi = 36000;
	im.written = im.ram_hi - im.ram_lo;
	make_dump(&im);
	snprintf(out, sizeof(out), "%s/stopped-out", tmpdir);
	CHECK(mkdir(out, 0700) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char *save[] = { "./savecore", "-q", "-k", im.path, out, NULL };

		execv(save[0], save);
		_exit(127);
	}
	for (i = 0; i < 20000 && !seen && !done; i++) {
		seen = incomplete_in(out);
		/* done before it was seen: fails below */
		done = !seen && waitpid(pid, &st, WNOHANG) == pid;
	}
	if (!done) {
		kill(pid, SIGTERM);
		waitpid(pid, &st, 0);
	}
	CHECK(seen);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A %s)\"", out);
	CHECK(system(cmd) == 0);
	unlink(im.path);
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
	CHECK(run(save) == DD_EXIT_CORRUPT);
	CHECK(run(check) == DD_EXIT_CORRUPT);	/* still there, untouched */
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
	CHECK(run(save) == DD_EXIT_NOSPACE);
	CHECK(run(check) == DD_EXIT_OK);		/* the dump is not lost */
	return 0;
}

static int format_ok(int fd, uint64_t blocks)
{
	char b[BS];

	for (uint64_t i = 0; i < blocks; i++)
		if (pread(fd, b, BS, (off_t)(i * BS)) != BS ||
		    dd_fmt_block_check(b, i, blocks) != DD_FMT_OK)
			return 0;
	return 1;
}

static int test_diskdumpfmt(void)
{
	char path[300], cmd[400];
	char *fmt[] = { "./diskdumpfmt", "-q", path, NULL };
	char *force[] = { "./diskdumpfmt", "-q", "-f", path, NULL };
	char b[BS];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/fmt.img", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 256 * BS) == 0);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %s 2>/dev/null", path);
	CHECK(system(cmd) == 0);
	CHECK(run(fmt) == DD_EXIT_ERROR);		/* an ext4 file system: refused */
	CHECK(pread(fd, b, BS, 0) == BS && b[1080] == 0x53);
	CHECK(fchmod(fd, 0646) == 0);
	CHECK(run(force) == DD_EXIT_OK);
	CHECK(format_ok(fd, 256));
	/* formatted: no longer readable or writable by others */
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0640);
	CHECK(run(fmt) == DD_EXIT_OK);			/* formatted: again, no -f */
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

/*
 * ChaCha20 keystream XOR, IV { 0, block low, nonce[0..3] ^ block high,
 * nonce[4..7] }, written out for the test.
 */
static void test_xor(const uint8_t *key, const uint8_t *nonce, uint64_t block,
		     uint8_t *buf, int len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t iv[16] = { 0 };
	int out;

	memcpy(iv + 8, nonce, 8);
	for (int i = 0; i < 4; i++) {
		iv[4 + i] = (uint8_t)(block >> (8 * i));
		iv[8 + i] ^= (uint8_t)(block >> (32 + 8 * i));
	}
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

	if (dd_open(&dev, im->path, 0))
		return -100;
	dev.keyfile = pem;
	ret = dd_load(&dev, d, &load_opts, why, 256);
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
	CHECK(!dd_open(&dev, im.path, 0));
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
	CHECK(!dd_open(&dev, im.path, 0));
	dev.keyfile = pem;
	CHECK(dd_load(&dev, &d, &load_opts, why, sizeof(why)) == 0 && dd_plan_segments(&dev, &d) == 0);
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
	CHECK(load_with_key(&im, other, &d, why) == -DD_EXIT_ERROR);
	CHECK(strstr(why, "wrong key"));
	dd_free(&d);
	/* one bit of one page flipped: refused, nothing decoded */
	fd = open(im.path, O_RDWR);
	CHECK(pread(fd, b, BS, (off_t)((im.h.data_block + 50) * BS)) == BS);
	b[100] ^= 4;
	put(fd, im.h.data_block + 50, b, BS);
	CHECK(load_with_key(&im, pem, &d, why) == -DD_EXIT_CORRUPT);
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
	CHECK(load_with_key(&im, pem, &d, why) == -DD_EXIT_CORRUPT);
	dd_free(&d);
	/* a damaged wrapped key */
	im.h.panic_msg[0] ^= 1;
	im.h.wrapped_key[10] ^= 1;
	rewrite_header(&im, 1);
	CHECK(load_with_key(&im, pem, &d, why) == -DD_EXIT_CORRUPT);
	dd_free(&d);
	/* a key file that is not a key */
	CHECK(load_with_key(&im, im.path, &d, why) == -DD_EXIT_ERROR);
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
/*
 * Review 15: every bit of the 64-bit block number is in the IV, so block b
 * and block b + 2^32 (and block 2^32 and block 0, whose keystream keys the
 * MAC) never share a keystream; below 2^32 the IV is format 2's first one.
 */
static int test_iv_holds_64_bit_block(void)
{
	static const uint8_t nonce[DISKDUMP_NONCE_SIZE] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t v2[16] = { 0, 0, 0, 0, 0x78, 0x56, 0x34, 0x12,
					1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t a[16], b[16];

	dd_block_iv(a, nonce, 0x12345678);
	CHECK(!memcmp(a, v2, 16));
	for (unsigned int bit = 32; bit < 64; bit++) {
		dd_block_iv(a, nonce, 7);
		dd_block_iv(b, nonce, 7 | 1ULL << bit);
		CHECK(memcmp(a, b, 16));
	}
	dd_block_iv(a, nonce, 0);
	dd_block_iv(b, nonce, 1ULL << 32);
	CHECK(memcmp(a, b, 16));
	return 0;
}

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
	CHECK(run(save) == DD_EXIT_OK);
	CHECK(run(check) == DD_EXIT_NODUMP);		/* formatted again */
	snprintf(cmd, sizeof(cmd), "ls %s/unit-*/vmcore.encrypted", out);
	p = popen(cmd, "r");
	CHECK(p && fgets(enc, sizeof(enc), p));
	pclose(p);
	enc[strcspn(enc, "\n")] = 0;
	snprintf(cmd, sizeof(cmd),
		 "grep -qx 'format: encrypted partition image' %s/unit-*/info && grep -q '^key_id: sha256:' %s/unit-*/info && test ! -e %s/unit-*/vmcore",
		 out, out, out);
	CHECK(system(cmd) == 0);
	{
		/* without -k too: the archive is decoded, never formatted */
		char *decode_nok[] = { "./savecore", "-q", "-K", pem, enc, out2, NULL };
		char before[128], after[128];

		snprintf(cmd, sizeof(cmd), "sha256sum < %s", enc);
		p = popen(cmd, "r");
		CHECK(p && fgets(before, sizeof(before), p));
		pclose(p);
		CHECK(run(decode_nok) == DD_EXIT_OK);
		p = popen(cmd, "r");
		CHECK(p && fgets(after, sizeof(after), p));
		pclose(p);
		CHECK(!strcmp(before, after));
		snprintf(cmd, sizeof(cmd), "rm -rf %s", out2);
		CHECK(system(cmd) == 0);
	}
	CHECK(run(decode) == DD_EXIT_OK);
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
	CHECK(run(decode) == DD_EXIT_CORRUPT);
	CHECK(run(decode_f) == DD_EXIT_OK);
	snprintf(cmd, sizeof(cmd), "grep -qx 'saved_pages: 100' %s/unit-*/info", out2);
	CHECK(system(cmd) == 0);
	/*
	 * A hole (writes completed out of order), and zeros past the dump
	 * as in the sparse tail of a sealed file an older savecore made:
	 * 94 pages, not 40 (the first hole) nor every zero block after.
	 */
	{
		char b[BS];
		int fd = open(im.path, O_RDWR);

		CHECK(fd >= 0);
		for (uint64_t r = 40; r < 46; r++) {
			dd_fill_fmt_block(b, im.h.data_block + r, 600);
			put(fd, im.h.data_block + r, b, BS);
		}
		memset(b, 0, BS);
		for (uint64_t blk = im.h.data_block + 101; blk < 600; blk++)
			put(fd, blk, b, BS);
		close(fd);
	}
	snprintf(out2, sizeof(out2), "%s/decoded3", tmpdir);
	CHECK(run(decode_f) == DD_EXIT_OK);
	snprintf(cmd, sizeof(cmd), "grep -qx 'saved_pages: 94' %s/unit-*/info", out2);
	CHECK(system(cmd) == 0);
	EVP_PKEY_free(pk);
	return 0;
}

/* ---- format version 2: every byte of every block ---- */

static void fill_v1_block(void *block, uint64_t nr, uint64_t blocks)
{
	struct diskdump_fmt_block fb = {
		.endian = DISKDUMP_ENDIAN_MARK, .block_size = BS,
		.block_nr = nr, .nr_blocks = blocks,
	};

	memcpy(fb.magic, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN);
	memset(block, 0, BS);
	memcpy(block, &fb, sizeof(fb));
}

/* An image of @blocks blocks formatted with format @version (1 or 2). */
static void make_image(const char *path, uint64_t blocks, int version)
{
	char b[BS];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)(blocks * BS)))
		abort();
	for (uint64_t i = 0; i < blocks; i++) {
		if (version == 2)
			dd_fill_fmt_block(b, i, blocks);
		else
			fill_v1_block(b, i, blocks);
		put(fd, i, b, BS);
	}
	close(fd);
}

/* Overwrite 512-byte sector @sector of block @block: zeros, or random. */
static void hit_sector(const char *path, uint64_t block, int sector, int random)
{
	unsigned char s[512] = { 0 };
	int fd = open(path, O_RDWR);

	if (random && RAND_bytes(s, sizeof(s)) != 1)
		abort();
	if (fd < 0 || pwrite(fd, s, sizeof(s), (off_t)(block * BS + sector * 512)) != 512)
		abort();
	close(fd);
}

static int test_fmt_v2_every_word(void)
{
	static const uint64_t nrs[] = { 0, 1, 511, 512, 123456789, (1ULL << 55) - 1 };
	uint64_t w[BS / 8];
	struct diskdump_fmt_block fb;

	CHECK(sizeof(fb) == 40 && DISKDUMP_FMT_HDR_WORDS == 5);
	for (size_t k = 0; k < ARRAY_SIZE(nrs); k++) {
		memset(w, 0xa5, sizeof(w));
		dd_fill_fmt_block(w, nrs[k], 1ULL << 56);
		memcpy(&fb, w, sizeof(fb));
		CHECK(!memcmp(fb.magic, "DDFORMAT", 8) && fb.endian == DISKDUMP_ENDIAN_MARK);
		CHECK(fb.block_size == BS && fb.block_nr == nrs[k] && fb.nr_blocks == 1ULL << 56);
		CHECK(fb.version == DISKDUMP_FMT_VERSION && fb.version == 2 && fb.pad == 0);
		for (uint32_t i = DISKDUMP_FMT_HDR_WORDS; i < BS / 8; i++)
			CHECK(w[i] == diskdump_fmt_word(nrs[k], i));
		CHECK(dd_fmt_block_check(w, nrs[k], 1ULL << 56) == DD_FMT_OK);
	}
	/* the word as the header's comment defines it, spelled out */
	CHECK(diskdump_fmt_word(3, 7) ==
	      (((3ULL << 9 | 7) * 0x9e3779b97f4a7c15ULL) ^ 0x444446524d415432ULL));
	return 0;
}

/* No sector of a formatted partition is zeros, and none is a copy of another. */
static int test_fmt_sectors_unique(void)
{
	enum { NB = 64, NS = NB * BS / 512 };
	static char img[NB * BS];
	static const char zero[512];

	for (uint64_t b = 0; b < NB; b++)
		dd_fill_fmt_block(img + b * BS, b, NB);
	for (int i = 0; i < NS; i++) {
		CHECK(memcmp(img + i * 512, zero, 512));
		for (int j = 0; j < i; j++)
			CHECK(memcmp(img + i * 512, img + j * 512, 512));
	}
	return 0;
}

/* Block @nr with sector @sector hit @how: what the check says. */
static enum dd_fmt_check hit(uint64_t nr, int sector, int how)
{
	unsigned char b[BS], other[BS], *s = b + sector * 512;

	dd_fill_fmt_block(b, nr, 5000);
	switch (how) {
	case 0:
		if (RAND_bytes(s, 512) != 1)
			abort();
		break;
	case 1:
		memset(s, 0, 512);
		break;
	case 2:		/* the same sector of the next block: all format */
		dd_fill_fmt_block(other, nr + 1, 5000);
		memcpy(s, other + sector * 512, 512);
		break;
	default:	/* one bit of its last byte */
		s[511] ^= 0x80;
		break;
	}
	return dd_fmt_block_check(b, nr, 5000);
}

static int test_fmt_sector_damage(void)
{
	static const uint64_t nrs[] = { 0, 5, 4999 };
	static const int sectors[] = { 0, 3, 7 };
	unsigned char b[BS];

	for (size_t k = 0; k < ARRAY_SIZE(nrs); k++)
		for (size_t s = 0; s < ARRAY_SIZE(sectors); s++)
			for (int how = 0; how < 4; how++)
				CHECK(hit(nrs[k], sectors[s], how) == DD_FMT_BAD);
	/* any one bit of the block */
	dd_fill_fmt_block(b, 77, 5000);
	for (int i = 0; i < BS; i++) {
		b[i] ^= (unsigned char)(1 << (i % 8));
		CHECK(dd_fmt_block_check(b, 77, 5000) == DD_FMT_BAD);
		b[i] ^= (unsigned char)(1 << (i % 8));
	}
	CHECK(dd_fmt_block_check(b, 77, 5000) == DD_FMT_OK);
	return 0;
}

static int test_fmt_v1_is_old_format(void)
{
	char b[BS];

	fill_v1_block(b, 9, 100);
	CHECK(dd_fmt_block_check(b, 9, 100) == DD_FMT_OLD);
	CHECK(dd_fmt_block_check(b, 10, 100) == DD_FMT_BAD);
	b[BS - 1] = 1;		/* not zeros after the header: damage */
	CHECK(dd_fmt_block_check(b, 9, 100) == DD_FMT_BAD);
	fill_v1_block(b, 0, 100);
	CHECK(dd_classify(b, 100) == DD_OLD_FORMAT);
	dd_fill_fmt_block(b, 0, 100);
	CHECK(dd_classify(b, 100) == DD_EMPTY);
	CHECK(dd_classify(b, 99) == DD_DAMAGED);	/* formatted for another size */
	b[2000] ^= 1;
	CHECK(dd_classify(b, 100) == DD_DAMAGED);
	/* a version 2 header with zeros after it is neither version */
	dd_fill_fmt_block(b, 0, 100);
	memset(b + 40, 0, BS - 40);
	CHECK(dd_fmt_block_check(b, 0, 100) == DD_FMT_BAD);
	dd_fill_fmt_block(b, 0, 100);
	((struct diskdump_fmt_block *)b)->version = 3;
	CHECK(dd_fmt_block_check(b, 0, 100) == DD_FMT_BAD);
	memset(b, 0, BS);
	CHECK(dd_classify(b, 100) == DD_FOREIGN);
	memcpy(b, DISKDUMP_HDR_MAGIC, 8);
	CHECK(dd_classify(b, 100) == DD_DUMP);
	return 0;
}

/* Through the page cache instead: as where O_DIRECT is refused. */
static void go_buffered(struct dd_dev *dev)
{
	int fl = fcntl(dev->fd, F_GETFL);

	if (fl < 0 || fcntl(dev->fd, F_SETFL, fl & ~O_DIRECT))
		abort();
	dev->direct = false;
}

static int format_and_verify(const char *path, bool buffered)
{
	struct dd_fmt_scan scan;
	struct dd_dev dev;
	char ff[BS];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	memset(ff, 0xff, BS);
	for (uint64_t b = 0; b < 300; b++)
		put(fd, b, ff, BS);
	close(fd);
	CHECK(!dd_open(&dev, path, DD_OPEN_WRITE));
	if (buffered)
		go_buffered(&dev);
	CHECK(!dd_verify_format(&dev, 0, dev.blocks, &scan));
	CHECK(scan.nr_bad == 300 && scan.first_bad == 0);
	CHECK(!dd_format_range(&dev, 0, 300));
	CHECK(!dd_verify_format(&dev, 0, 300, &scan) && scan.nr_bad == 0);
	hit_sector(path, 37, 2, 0);
	hit_sector(path, 299, 7, 1);
	CHECK(!dd_verify_format(&dev, 0, 300, &scan));
	CHECK(scan.nr_bad == 2 && scan.first_bad == 37);
	CHECK(!dd_format_range(&dev, 37, 38));
	CHECK(!dd_verify_format(&dev, 0, 300, &scan));
	CHECK(scan.nr_bad == 1 && scan.first_bad == 299);
	dd_close(&dev);
	return 0;
}

static int test_format_range_and_verify(void)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/range.img", tmpdir);
	CHECK(!format_and_verify(path, false));
	CHECK(!format_and_verify(path, true));
	return 0;
}

/*
 * Format all of @path in a child whose writes fail at and past byte @limit
 * (RLIMIT_FSIZE, SIGXFSZ ignored: EFBIG).  Its exit status: 1 if the
 * format failed.
 */
static int format_with_limit(const char *path, uint64_t limit, bool buffered)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct rlimit rl = { .rlim_cur = limit, .rlim_max = limit };
		struct dd_dev dev;
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		signal(SIGXFSZ, SIG_IGN);
		if (dd_open(&dev, path, DD_OPEN_WRITE) || setrlimit(RLIMIT_FSIZE, &rl))
			_exit(2);
		if (buffered)
			go_buffered(&dev);
		_exit(dd_format_range(&dev, 0, dev.blocks) ? 1 : 0);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A format that fails part way leaves block 0, here a dump header, as it was. */
static int test_failed_format_keeps_block0(void)
{
	static const uint64_t limits[] = { 8, 300, 599 };	/* blocks */
	char before[BS], after[BS];
	struct img im;
	int fd;

	for (int buffered = 0; buffered < 2; buffered++) {
		for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
			img_init(&im, "efbig", 600);
			make_dump(&im);
			fd = open(im.path, O_RDONLY);
			CHECK(pread(fd, before, BS, 0) == BS);
			CHECK(format_with_limit(im.path, limits[i] * BS, buffered) == 1);
			CHECK(pread(fd, after, BS, 0) == BS);
			CHECK(!memcmp(before, after, BS));
			CHECK(dd_classify(after, 600) == DD_DUMP);
			/* the rest did get written, up to the failure */
			CHECK(pread(fd, after, BS, (off_t)((limits[i] - 1) * BS)) == BS);
			CHECK(dd_fmt_block_check(after, limits[i] - 1, 600) == DD_FMT_OK);
			close(fd);
		}
	}
	return 0;
}

/* An interrupted dump: the end is the first block that is ALL format. */
static int test_scan_needs_the_whole_block(void)
{
	struct img im;
	struct dd_dump d;
	char why[256], b[BS];
	int fd;

	img_init(&im, "scan", 600);
	im.written = 77;
	im.status = DISKDUMP_STATUS_WRITING;
	make_dump(&im);
	/* page 30 starts like a format block, then holds page data */
	fd = open(im.path, O_RDWR);
	CHECK(pread(fd, b, BS, (off_t)((im.h.data_block + 30) * BS)) == BS);
	dd_fill_fmt_block(b, im.h.data_block + 30, 600);
	memset(b + 1024, 0x42, 1024);
	put(fd, im.h.data_block + 30, b, BS);
	close(fd);
	CHECK(load(&im, &d, why) == 0);
	CHECK(d.present == 77);
	dd_free(&d);
	return 0;
}

/* Run @argv, its stdout and stderr into @out: its exit status, -1 if killed. */
static int run_out(char *const argv[], char *out, size_t len)
{
	int p[2], st;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(p))
		abort();
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((r = read(p[0], out + got, len - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = 0;
	close(p[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The one entry of @dir, into @name. */
static int only_entry(const char *dir, char *name, size_t len)
{
	struct dirent *e;
	int n = 0;
	DIR *dp = opendir(dir);

	while (dp && (e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(name, len, "%s", e->d_name);
		n++;
	}
	if (dp)
		closedir(dp);
	return n == 1 ? 0 : -1;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static int count_lines(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

static int test_dump_dir_names(void)
{
	static const struct { const char *node; const char *want; } c[] = {
		{ "(none)", "localhost-19700101-001640" },
		{ "", "localhost-19700101-001640" },
		{ "web-1.example.com", "web-1.example.com-19700101-001640" },
		{ "a b/c(d)\n", "a_b_c_d__-19700101-001640" },
		{ "..", "_.-19700101-001640" },
		{ "../../etc", "_._.._etc-19700101-001640" },
	};
	struct diskdump_header h = { .time_sec = 1000 };
	char name[DD_DIR_NAME_MAX], host[100];

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		memset(h.nodename, 0, sizeof(h.nodename));
		memcpy(h.nodename, c[i].node, strlen(c[i].node));
		dd_dump_dir_name(&h, name, sizeof(name));
		if (strcmp(name, c[i].want)) {
			fprintf(stderr, "  '%s' named '%s', not '%s'\n", c[i].node, name, c[i].want);
			return 1;
		}
		CHECK(dd_is_dump_dir_name(name));
	}
	memset(h.nodename, 'x', sizeof(h.nodename));	/* no NUL */
	h.time_sec = UINT64_MAX;
	dd_dump_dir_name(&h, name, sizeof(name));
	CHECK(strlen(name) == 65 + 16 && !strcmp(name + 65, "-00000000-000000"));
	CHECK(dd_is_dump_dir_name(name));
	memset(host, 'x', 66);
	strcpy(host + 66, "-20240101-120000");
	CHECK(!dd_is_dump_dir_name(host));		/* a host name longer than any */
	CHECK(dd_is_dump_dir_name("unit-20240101-120000"));
	CHECK(dd_is_dump_dir_name("unit-20240101-120000.3"));
	CHECK(dd_is_dump_dir_name("unit-20240101-120000.42"));
	CHECK(!dd_is_dump_dir_name("unit-20240101-120000.100"));
	CHECK(!dd_is_dump_dir_name("unit-20240101-120000x"));
	CHECK(!dd_is_dump_dir_name("unit-2024010-1120000"));
	CHECK(!dd_is_dump_dir_name("-20240101-120000"));
	CHECK(!dd_is_dump_dir_name("a b-20240101-120000"));
	CHECK(!dd_is_dump_dir_name("important"));
	CHECK(!dd_is_dump_dir_name(".."));
	return 0;
}

/* Panic times gmtime_r() cannot take, or the name cannot show: no crash. */
static int test_savecore_odd_times(void)
{
	static const uint64_t times[] = {
		INT64_MAX, UINT64_MAX, (uint64_t)INT64_MIN, 1ULL << 62,
		253402300800ULL, 253402300799ULL, 0,
	};
	char dir[300], name[300], info[700], out[8192], want[64];
	char *check[] = { "./savecore", "-c", NULL, NULL };
	char *save[] = { "./savecore", "-q", "-k", NULL, dir, NULL };
	struct img im;

	for (size_t i = 0; i < ARRAY_SIZE(times); i++) {
		img_init(&im, "odd", 600);
		make_dump(&im);
		im.h.time_sec = times[i];
		rewrite_header(&im, 1);
		check[2] = save[3] = im.path;
		snprintf(dir, sizeof(dir), "%s/odd%zu", tmpdir, i);
		CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_OK);
		CHECK(strstr(out, "state: dump\n") && count_lines(out, "time: ") == 1);
		CHECK(run(save) == DD_EXIT_OK);
		CHECK(!only_entry(dir, name, sizeof(name)));
		CHECK(dd_is_dump_dir_name(name) && !strncmp(name, "unit-", 5));
		snprintf(info, sizeof(info), "%s/%s/info", dir, name);
		if (times[i] > 253402300799ULL) {
			CHECK(!strcmp(name, "unit-00000000-000000"));
			snprintf(want, sizeof(want), "time: invalid (%" PRIu64 ")\n", times[i]);
			CHECK(strstr(slurp(info), want));
		}
	}
	CHECK(!strcmp(name, "unit-19700101-000000"));		/* 0 */
	snprintf(dir, sizeof(dir), "%s/odd5", tmpdir);
	CHECK(!only_entry(dir, name, sizeof(name)) && !strcmp(name, "unit-99991231-235959"));
	return 0;
}

/* Header strings that fill their field, with no NUL: no more, no less. */
static int test_savecore_unterminated_strings(void)
{
	static const char node[] = "ho st/../(x)\nstatus: lies";
	char dir[300], name[300], info[700], *text;
	char *save[] = { "./savecore", "-q", "-k", NULL, dir, NULL };
	char *kd[] = { "./savecore", "-q", "-k", "-F", "kdump", NULL, dir, NULL };
	struct img im;

	img_init(&im, "strs", 600);
	make_dump(&im);
	memset(im.h.sysname, 'S', sizeof(im.h.sysname));
	memset(im.h.nodename, 'N', sizeof(im.h.nodename));
	memcpy(im.h.nodename, node, strlen(node));
	memset(im.h.release, 'R', sizeof(im.h.release));
	memset(im.h.version_str, 'V', sizeof(im.h.version_str));
	memset(im.h.machine, 'M', sizeof(im.h.machine));
	memset(im.h.domainname, 'D', sizeof(im.h.domainname));
	memset(im.h.pad1, 'X', sizeof(im.h.pad1));
	memset(im.h.panic_msg, 'P', sizeof(im.h.panic_msg));
	memcpy(im.h.panic_msg, "boom\nstatus: complete\n", 22);
	rewrite_header(&im, 1);
	save[3] = kd[5] = im.path;
	snprintf(dir, sizeof(dir), "%s/strsdir", tmpdir);
	CHECK(run(save) == DD_EXIT_OK);
	CHECK(!only_entry(dir, name, sizeof(name)));
	CHECK(dd_is_dump_dir_name(name));
	CHECK(!strncmp(name, "ho_st_..__x__status__liesNNN", 28) && strlen(name) == 65 + 16);
	snprintf(info, sizeof(info), "%s/%s/info", dir, name);
	text = slurp(info);
	CHECK(count_lines(text, "status: ") == 1 && count_lines(text, "time: ") == 1);
	CHECK(strstr(text, "\nhost: ho st/../(x)?status: liesNNN"));
	CHECK(strstr(text, "\nrelease: RRRR") && strlen(strstr(text, "\nrelease: ")) > 10 + 65);
	CHECK(strstr(text, "\nrelease: ")[10 + 65] == '\n');
	CHECK(strstr(text, "\nmachine: ")[10 + 65] == '\n');
	CHECK(strstr(text, "\npanic: boom?status: complete?PPP"));
	CHECK(strstr(text, "\npanic: ")[8 + 512] == '\n');
	snprintf(dir, sizeof(dir), "%s/strskd", tmpdir);
	CHECK(run(kd) == DD_EXIT_OK);
	return 0;
}

static int test_header_field_checks(void)
{
	struct img im;
	struct dd_dump d;
	char why[256];
	struct diskdump_header good;

	img_init(&im, "fields", 600);
	make_dump(&im);
	good = im.h;
	im.h.cipher = 7;
	rewrite_header(&im, 1);
	CHECK(load(&im, &d, why) == -DD_EXIT_CORRUPT && strstr(why, "cipher"));
	im.h.cipher = DISKDUMP_CIPHER_CHACHA20_POLY1305;
	im.h.wrapped_key_size = DISKDUMP_WRAPPED_MAX + 1;
	rewrite_header(&im, 1);
	CHECK(load(&im, &d, why) == -DD_EXIT_CORRUPT && strstr(why, "wrapped key"));
	/* the regions must lie in the kernel's partition, not just the device */
	im.h = good;
	im.h.partition_blocks = im.h.data_block + 10;
	rewrite_header(&im, 1);
	CHECK(load(&im, &d, why) == -DD_EXIT_CORRUPT && strstr(why, "written pages"));
	/* a kernel image beyond RAM: no segment for it, nothing wraps */
	im.h = good;
	im.h.kernel_paddr = UINT64_MAX - BS;
	im.h.kernel_size = 4 * BS;
	rewrite_header(&im, 1);
	{
		struct dd_dev dev;
		int k = 0;

		CHECK(!dd_open(&dev, im.path, 0) && !dd_load(&dev, &d, &load_opts, why, sizeof(why)));
		CHECK(!dd_plan_segments(&dev, &d));
		for (size_t i = 0; i < d.nr_segs; i++)
			k += d.segs[i].vaddr >= 0xffffffff80000000ULL;
		CHECK(k == 0 && d.nr_segs == 1);
		dd_free(&d);
		dd_close(&dev);
	}
	return 0;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
}

static int exists(const char *dir, const char *name)
{
	char path[700];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

static int save_at(struct img *im, uint64_t when, char *const argv[])
{
	im->h.time_sec = 0;
	make_dump(im);
	im->h.time_sec = when;
	rewrite_header(im, 1);
	return run(argv);
}

/*
 * -n 1 in a DIR holding a symlink to a victim that looks like a dump, a
 * directory of another name with an info file, one of our name without
 * info, one whose info savecore did not write, and a file of someone else's
 * in a real dump directory: only savecore's own files go.
 */
static int test_rotation_removes_only_its_own(void)
{
	char dir[300], victim[300], p[700];
	char *save[] = { "./savecore", "-q", "-n", "1", NULL, dir, NULL };
	struct img im;

	img_init(&im, "rotown", 600);
	save[4] = im.path;
	snprintf(dir, sizeof(dir), "%s/rotowndir", tmpdir);
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	CHECK(!mkdir(dir, 0700) && !mkdir(victim, 0700));
	snprintf(p, sizeof(p), "%s/info", victim);
	write_file(p, "device: /dev/victim\n");
	snprintf(p, sizeof(p), "%s/vmcore", victim);
	write_file(p, "precious");
	snprintf(p, sizeof(p), "%s/evil-20000101-000000", dir);
	CHECK(!symlink(victim, p));
	snprintf(p, sizeof(p), "%s/important", dir);
	CHECK(!mkdir(p, 0700));
	snprintf(p, sizeof(p), "%s/important/info", dir);
	write_file(p, "device: /dev/sdz\n");
	snprintf(p, sizeof(p), "%s/important/vmcore", dir);
	write_file(p, "precious");
	snprintf(p, sizeof(p), "%s/noinfo-20000101-000001", dir);
	CHECK(!mkdir(p, 0700));
	snprintf(p, sizeof(p), "%s/noinfo-20000101-000001/vmcore", dir);
	write_file(p, "precious");
	snprintf(p, sizeof(p), "%s/theirs-20000101-000002", dir);
	CHECK(!mkdir(p, 0700));
	snprintf(p, sizeof(p), "%s/theirs-20000101-000002/info", dir);
	write_file(p, "someone else's notes\n");
	snprintf(p, sizeof(p), "%s/theirs-20000101-000002/vmcore", dir);
	write_file(p, "precious");
	/* another host's dump, saved by its savecore into a shared DIR */
	snprintf(p, sizeof(p), "%s/otherhost-19700101-000001", dir);
	CHECK(!mkdir(p, 0700));
	snprintf(p, sizeof(p), "%s/otherhost-19700101-000001/info", dir);
	write_file(p, "device: /dev/sdq1\n");
	snprintf(p, sizeof(p), "%s/otherhost-19700101-000001/vmcore", dir);
	write_file(p, "precious");
	CHECK(save_at(&im, 1000, save) == DD_EXIT_OK);
	snprintf(p, sizeof(p), "%s/unit-19700101-001640/notes.txt", dir);
	write_file(p, "mine");
	CHECK(save_at(&im, 1001, save) == DD_EXIT_OK);
	CHECK(save_at(&im, 1002, save) == DD_EXIT_OK);

	CHECK(exists(victim, "info") && exists(victim, "vmcore"));
	CHECK(!strcmp(slurp(strcat(strcpy(p, victim), "/vmcore")), "precious"));
	CHECK(exists(dir, "evil-20000101-000000"));
	CHECK(exists(dir, "important/info") && exists(dir, "important/vmcore"));
	CHECK(exists(dir, "noinfo-20000101-000001/vmcore"));
	CHECK(exists(dir, "theirs-20000101-000002/info"));
	CHECK(exists(dir, "theirs-20000101-000002/vmcore"));
	CHECK(exists(dir, "otherhost-19700101-000001/info"));
	CHECK(exists(dir, "otherhost-19700101-000001/vmcore"));
	/* savecore's files of the oldest dump went, the stranger's stayed */
	CHECK(exists(dir, "unit-19700101-001640/notes.txt"));
	CHECK(!exists(dir, "unit-19700101-001640/vmcore"));
	CHECK(!exists(dir, "unit-19700101-001640/info"));
	CHECK(!exists(dir, "unit-19700101-001641"));
	CHECK(exists(dir, "unit-19700101-001642/vmcore"));
	return 0;
}

/*
 * -n 1 when the older dumps' info files are dated in the future (the clock
 * was behind at this boot): the dump just saved must stay, the older one
 * goes.
 */
static int test_rotation_keeps_the_new_dump(void)
{
	char dir[300], p[700];
	char *save[] = { "./savecore", "-q", "-n", "1", NULL, dir, NULL };
	struct timespec future[2] = { { .tv_sec = 4102444800 }, { .tv_sec = 4102444800 } };
	struct img im;

	img_init(&im, "rotnew", 600);
	save[4] = im.path;
	snprintf(dir, sizeof(dir), "%s/rotnewdir", tmpdir);
	CHECK(save_at(&im, 5000, save) == DD_EXIT_OK);
	snprintf(p, sizeof(p), "%s/unit-19700101-012320/info", dir);
	CHECK(!utimensat(AT_FDCWD, p, future, 0));
	CHECK(save_at(&im, 6000, save) == DD_EXIT_OK);
	CHECK(exists(dir, "unit-19700101-014000/vmcore"));
	CHECK(exists(dir, "unit-19700101-014000/info"));
	CHECK(!exists(dir, "unit-19700101-012320/vmcore"));
	return 0;
}

static int test_rotation_victims(void)
{
	static const uint64_t b[] = { 10, 20, 30, 40 };

	CHECK(dd_rotation_victims(b, 4, 3, 100, 50) == 0);	/* room already */
	CHECK(dd_rotation_victims(b, 4, 3, 0, 10) == 1);
	CHECK(dd_rotation_victims(b, 4, 3, 0, 30) == 2);
	CHECK(dd_rotation_victims(b, 4, 3, 0, 31) == 0);	/* -n 3 keeps the newest 2 */
	CHECK(dd_rotation_victims(b, 4, 1, 0, 100) == 4);	/* -n 1: all may go */
	CHECK(dd_rotation_victims(b, 4, 1, 0, 101) == 0);	/* in vain: none goes */
	CHECK(dd_rotation_victims(b, 4, 5, 0, 1) == 0);	/* -n 5: all four stay */
	CHECK(dd_rotation_victims(b, 4, 4, 5, 15) == 1);
	CHECK(dd_rotation_victims(NULL, 0, 1, 0, 1) == 0);
	return 0;
}

static int count_dumps(const char *dir)
{
	struct dirent *e;
	int n = 0;
	DIR *dp = opendir(dir);

	while (dp && (e = readdir(dp)))
		n += dd_is_dump_dir_name(e->d_name);
	if (dp)
		closedir(dp);
	return n;
}

static int fill_and_rotate(struct img *im, const char *mnt)
{
	char *save10[] = { "./savecore", "-q", "-n", "10", im->path, (char *)mnt, NULL };
	char *save2[] = { "./savecore", "-q", "-n", "2", im->path, (char *)mnt, NULL };
	char *hopeless[] = { "./savecore", "-q", "-n", "2", "-m", "100000", im->path,
			     (char *)mnt, NULL };

	for (int i = 0; i < 3; i++)
		CHECK(save_at(im, 1000 + (uint64_t)i, save10) == DD_EXIT_OK);
	CHECK(count_dumps(mnt) == 3);
	/* -m beyond the file system: removing dumps would not help, none goes */
	CHECK(save_at(im, 1003, hopeless) == DD_EXIT_NOSPACE);
	CHECK(count_dumps(mnt) == 3);
	CHECK(save_at(im, 1003, save2) == DD_EXIT_OK);
	CHECK(count_dumps(mnt) == 2);
	CHECK(exists(mnt, "unit-19700101-001642/vmcore"));
	CHECK(exists(mnt, "unit-19700101-001643/vmcore"));
	return 0;
}

/*
 * A small file system that holds three dumps: with -n 2 the fourth save
 * first removes the oldest to make room (it used to fail for good).
 */
static int test_rotation_makes_room_first(void)
{
	char mnt[300], opts[64];
	struct img im;
	size_t len, one;
	char *elf;
	int ret;

	img_init(&im, "room", 600);
	make_dump(&im);
	elf = save_elf(&im, &len);
	CHECK(elf);
	free(elf);
	one = ((len + BS - 1) & ~(size_t)(BS - 1)) + BS;	/* vmcore and info */
	snprintf(mnt, sizeof(mnt), "%s/small", tmpdir);
	snprintf(opts, sizeof(opts), "size=%zu", 3 * one + one / 2);
	CHECK(!mkdir(mnt, 0700));
	/* the tests run as root, here and in CI: no mount is a failure */
	CHECK(!mount("tmpfs", mnt, "tmpfs", 0, opts));
	ret = fill_and_rotate(&im, mnt);
	CHECK(!umount(mnt));
	return ret;
}

/* A dump of 20200 pages, all but 64 of them zeroes: 83 MB raw, little compressed. */
static void make_sparse_dump(struct img *im)
{
	char zero[BS] = { 0 };
	int fd;

	make_dump(im);
	fd = open(im->path, O_RDWR);
	for (uint64_t r = 64; r < im->written; r++)
		put(fd, im->h.data_block + r, zero, BS);
	close(fd);
}

/*
 * -F kdump into a DIR with less room than every page raw (the worst case)
 * but plenty for the compressed file: saved three times over, and with -n 5
 * no older dump goes to make room for what the save never needs (it used
 * to exit 5 at once, leaving the partition unarmed).  Then a dump that does
 * not fit even compressed, with -n 1: exit 5 part way, no half file, no
 * older dump removed, the dump still on the partition.
 */
static int test_kdump_needs_only_what_it_writes(void)
{
	char mnt[300], cmd[400];
	char *save[] = { "./savecore", "-q", "-F", "kdump", "-n", "5", NULL, mnt, NULL };
	char *save1[] = { "./savecore", "-q", "-F", "kdump", "-Z", "none", "-n", "1", NULL, mnt, NULL };
	char *check[] = { "./savecore", "-c", "-q", NULL, NULL };
	struct img im;
	int ret = 0;

	img_init(&im, "kbig", 20400);
	im.max_pfn = 20300;
	im.ram_hi = 20216;
	im.written = im.ram_hi - im.ram_lo;
	save[6] = im.path;
	snprintf(mnt, sizeof(mnt), "%s/kroom", tmpdir);
	CHECK(!mkdir(mnt, 0700));
	CHECK(!mount("tmpfs", mnt, "tmpfs", 0, "size=24m"));
	for (int i = 0; i < 3 && !ret; i++) {
		make_sparse_dump(&im);
		if (run(save) != DD_EXIT_OK)
			ret = -1;
	}
	if (!ret && count_dumps(mnt) != 3)
		ret = -1;
	save1[8] = check[3] = im.path;
	make_dump(&im);		/* 20200 pages of pattern, uncompressed: 83 MB */
	if (!ret && (run(save1) != DD_EXIT_NOSPACE || count_dumps(mnt) != 3 ||
		     run(check) != DD_EXIT_OK))
		ret = -1;
	snprintf(cmd, sizeof(cmd), "test -z \"$(find %s -name vmcore.incomplete)\"", mnt);
	if (!ret && system(cmd))
		ret = -1;
	CHECK(!umount(mnt));
	CHECK(!ret);
	return 0;
}

/* savecore -c: the state line and the exit status, for each state. */
static int test_check_states(void)
{
	char path[300], dir[300], out[8192], cmd[400];
	char *check[] = { "./savecore", "-c", path, NULL };
	char *checkq[] = { "./savecore", "-c", "-q", path, NULL };
	char *boot[] = { "./savecore", "-q", path, dir, NULL };
	struct img im;

	snprintf(path, sizeof(path), "%s/state.img", tmpdir);
	snprintf(dir, sizeof(dir), "%s/statedir", tmpdir);
	make_image(path, 64, 2);
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_NODUMP);
	CHECK(strstr(out, "state: empty\n") && strstr(out, "formatted and empty"));
	CHECK(run_out(checkq, out, sizeof(out)) == DD_EXIT_NODUMP && !strcmp(out, "state: empty\n"));
	hit_sector(path, 37, 3, 0);			/* zeros in a middle sector */
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_UNFORMATTED);
	CHECK(strstr(out, "state: damaged\n") && strstr(out, "block 37 ") && strstr(out, "1 of 64"));
	CHECK(run(boot) == DD_EXIT_NODUMP);		/* at boot: block 0 only */
	hit_sector(path, 63, 7, 1);			/* random bytes, the very last */
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_UNFORMATTED);
	CHECK(strstr(out, "block 37 ") && strstr(out, "2 of 64"));
	make_image(path, 64, 2);
	hit_sector(path, 0, 1, 1);
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_UNFORMATTED);
	CHECK(strstr(out, "state: damaged\n") && strstr(out, "block 0 "));
	CHECK(run(boot) == DD_EXIT_UNFORMATTED);
	make_image(path, 64, 2);
	CHECK(truncate(path, 65 * BS) == 0);		/* the partition grew */
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_UNFORMATTED);
	CHECK(strstr(out, "state: damaged\n"));
	make_image(path, 64, 1);
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_OLDFORMAT);
	CHECK(strstr(out, "state: old-format\n") && strstr(out, "version 1"));
	CHECK(strstr(out, "run diskdumpfmt"));
	CHECK(run(boot) == DD_EXIT_OLDFORMAT);
	CHECK(truncate(path, 0) == 0 && truncate(path, 64 * BS) == 0);
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_UNFORMATTED);
	CHECK(strstr(out, "state: unformatted\n") && strstr(out, "not formatted"));
	CHECK(truncate(path, 0) == 0 && truncate(path, 1024 * BS) == 0);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %s 2>/dev/null", path);
	CHECK(system(cmd) == 0);
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_UNFORMATTED);
	CHECK(strstr(out, "state: unformatted\n") && strstr(out, "holds ext4 (filesystem)"));
	img_init(&im, "statedump", 600);
	make_dump(&im);
	check[2] = im.path;
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_OK);
	CHECK(strstr(out, "state: dump\n") && strstr(out, "\nstatus: complete\n"));
	CHECK(strstr(out, "\ncheck_ms: 0\nverify_ms: 0\nwrite_ms: 0\n"));
	im.h.crc ^= 1;
	rewrite_header(&im, 0);
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_CORRUPT);
	CHECK(strstr(out, "state: damaged\n") && strstr(out, "checksum"));
	return 0;
}

/*
 * A dump from an older kernel on a partition of format version 1: saved,
 * then all of the partition is formatted (version 2), not just what the
 * dump used.
 */
static int test_save_formats_old_partition(void)
{
	char dir[300], out[8192];
	char *save[] = { "./savecore", "-q", NULL, dir, NULL };
	char *check[] = { "./savecore", "-c", NULL, NULL };
	struct img im;
	struct dd_dump d;
	char why[256], b[BS];
	int fd;

	img_init(&im, "oldpart", 600);
	im.written = 77;
	im.status = DISKDUMP_STATUS_WRITING;
	make_dump(&im);
	fd = open(im.path, O_RDWR);
	for (uint64_t i = im.h.data_block + 77; i < 600; i++) {
		fill_v1_block(b, i, 600);
		put(fd, i, b, BS);
	}
	close(fd);
	CHECK(load(&im, &d, why) == 0 && d.present == 77);	/* v1 blocks: not written */
	dd_free(&d);
	save[2] = check[2] = im.path;
	snprintf(dir, sizeof(dir), "%s/oldpartdir", tmpdir);
	CHECK(run(save) == DD_EXIT_OK);
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_NODUMP);
	CHECK(strstr(out, "state: empty\n"));
	return 0;
}

/*
 * A format cut short after the save: the header says saved (savecore set
 * DISKDUMP_FLAG_SAVED first), some blocks are formatted, the rest still
 * hold the dump.  -c says so; savecore at boot finishes the format, saves
 * nothing twice, and leaves every block formatted.
 */
static int test_saved_dump_format_finished(void)
{
	char dir[300], out[8192], cmd[400];
	char *save[] = { "./savecore", "-q", NULL, dir, NULL };
	char *check[] = { "./savecore", "-c", NULL, NULL };
	struct img im;
	char b[BS];
	int fd;

	img_init(&im, "savedfmt", 600);
	make_dump(&im);
	im.h.flags |= DISKDUMP_FLAG_SAVED;
	rewrite_header(&im, 1);
	fd = open(im.path, O_RDWR);
	for (uint64_t i = 1; i < 40; i++) {
		dd_fill_fmt_block(b, i, 600);
		put(fd, i, b, BS);
	}
	close(fd);
	save[2] = check[2] = im.path;
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_UNFORMATTED);
	CHECK(strstr(out, "state: saved\n"));
	snprintf(dir, sizeof(dir), "%s/saveddir", tmpdir);
	CHECK(run_out(save, out, sizeof(out)) == DD_EXIT_NODUMP);
	snprintf(cmd, sizeof(cmd), "test ! -e %s", dir);
	CHECK(system(cmd) == 0);			/* nothing saved */
	CHECK(run_out(check, out, sizeof(out)) == DD_EXIT_NODUMP);
	CHECK(strstr(out, "state: empty\n"));		/* every block */
	return 0;
}

/* diskdumpfmt: a version 1 partition, an unsaved dump, -n. */
static int test_diskdumpfmt_formats(void)
{
	char path[300], out[8192];
	char *fmt[] = { "./diskdumpfmt", path, NULL };
	char *force[] = { "./diskdumpfmt", "-f", path, NULL };
	char *dry[] = { "./diskdumpfmt", "-n", path, NULL };
	char *dryf[] = { "./diskdumpfmt", "-n", "-f", path, NULL };
	static char before[64 * BS];
	char b[BS];
	struct img im;
	int fd;

	snprintf(path, sizeof(path), "%s/v1.img", tmpdir);
	make_image(path, 64, 1);
	fd = open(path, O_RDWR);
	CHECK(pread(fd, before, 64 * BS, 0) == 64 * BS);
	CHECK(run_out(dry, out, sizeof(out)) == DD_EXIT_OK);
	CHECK(strstr(out, "version 1") && strstr(out, "would write 64 blocks"));
	CHECK(pread(fd, b, BS, 0) == BS && !memcmp(b, before, BS));
	CHECK(run_out(fmt, out, sizeof(out)) == DD_EXIT_OK && strstr(out, "version 1"));
	CHECK(format_ok(fd, 64));
	close(fd);
	img_init(&im, "fmtdump", 64);
	im.max_pfn = 40;
	im.ram_hi = 40;
	make_dump(&im);
	snprintf(path, sizeof(path), "%s", im.path);
	CHECK(run_out(fmt, out, sizeof(out)) == DD_EXIT_ERROR);
	CHECK(strstr(out, "holds a crash dump that savecore has not saved; refusing (use -f"));
	CHECK(run_out(dryf, out, sizeof(out)) == DD_EXIT_OK && strstr(out, "would write 64"));
	fd = open(path, O_RDWR);
	CHECK(pread(fd, b, BS, 0) == BS && !memcmp(b, DISKDUMP_HDR_MAGIC, 8));
	CHECK(run(force) == DD_EXIT_OK);
	CHECK(format_ok(fd, 64));
	CHECK(pread(fd, before, 64 * BS, 0) == 64 * BS);
	CHECK(run(dry) == DD_EXIT_OK);			/* formatted: -n writes nothing */
	CHECK(pread(fd, b, BS, 0) == BS && !memcmp(b, before, BS));
	close(fd);
	return 0;
}

/*
 * test_savecore --bench-verify: the CPU cost of comparing blocks with the
 * format (build with -O2, no sanitizers: make -C tests/unit bench).
 */
static int bench_verify(void)
{
	enum { NB = 16384 };	/* 64 MiB, read 16 times: 1 GiB */
	struct timespec t0, t1, t2;
	uint64_t bad = 0;
	char *img = aligned_alloc(BS, (size_t)NB * BS);
	double fill, check;

	if (!img)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int r = 0; r < 16; r++)
		for (uint64_t b = 0; b < NB; b++)
			dd_fill_fmt_block(img + b * BS, b, NB);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (int r = 0; r < 16; r++)
		for (uint64_t b = 0; b < NB; b++)
			bad += dd_fmt_block_check(img + b * BS, b, NB) != DD_FMT_OK;
	clock_gettime(CLOCK_MONOTONIC, &t2);
	fill = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
	check = (double)(t2.tv_sec - t1.tv_sec) * 1e9 + (double)(t2.tv_nsec - t1.tv_nsec);
	printf("bench: verify %.0f ns per GiB (%.2f GiB/s, %.1f ns per block), fill %.0f ns per GiB (%.2f GiB/s)%s\n",
	       check, 1e9 / check, check / (16.0 * NB), fill, 1e9 / fill, bad ? " BAD" : "");
	free(img);
	return bad ? 1 : 0;
}

/*
 * test_savecore --bench-image FILE MIB: a partition image of MIB MiB that
 * a complete dump fills, for make -C tests/unit bench-save.  Its pages look
 * like a machine's memory to the compressors, in runs of 16 pages: 30%
 * zero, 30% kernel structures (pointers, small numbers, zeros), 25% text,
 * 15% random (compressed or encrypted data).
 */
static uint64_t bench_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void bench_page(unsigned char *page, uint64_t pfn)
{
	static const char *const words[] = {
		"the ", "kernel ", "page ", "of ", "memory ", "and ", "a ", "dump ",
		"to ", "disk ", "struct ", "task ", "file ", "int ", "return ", "\n",
	};
	uint64_t s = (pfn / 16) * 0x9e3779b97f4a7c15ULL + 1, kind, w;
	size_t i = 0;

	kind = bench_rand(&s) % 100;
	s ^= pfn * 0xbf58476d1ce4e5b9ULL + 7;
	if (kind < 30) {
		memset(page, 0, BS);
	} else if (kind < 60) {
		for (i = 0; i < BS; i += 8) {
			uint64_t r = bench_rand(&s);

			w = r % 4 == 0 ? 0xffff888000000000ULL | ((r >> 8) & 0x3ffffff8ULL) :
			    r % 4 == 1 ? (r >> 32) % 256 : 0;
			memcpy(page + i, &w, 8);
		}
	} else if (kind < 85) {
		while (i < BS) {
			const char *t = words[bench_rand(&s) % ARRAY_SIZE(words)];
			size_t n = strlen(t) < BS - i ? strlen(t) : BS - i;

			memcpy(page + i, t, n);
			i += n;
		}
	} else {
		for (i = 0; i < BS; i += 8) {
			w = bench_rand(&s);
			memcpy(page + i, &w, 8);
		}
	}
}

static int write_bench_image(const char *path, const char *mib)
{
	uint64_t blocks = strtoull(mib, NULL, 10) * (1 << 20) / BS, bb, pages;
	unsigned char *buf = malloc(256 * BS);
	struct img im;
	int fd;

	if (blocks < 1024 || !buf)
		return 1;
	bb = blocks / (BS * 8) + 1;
	pages = blocks - 3 - 2 * bb;
	img_init(&im, "bench", blocks);
	snprintf(im.path, sizeof(im.path), "%s", path);
	im.ram_lo = 16;
	im.ram_hi = im.ram_lo + pages;
	im.max_pfn = im.ram_hi + 16;
	im.written = pages;
	make_dump(&im);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return 1;
	for (uint64_t r = 0; r < pages; r += 256) {
		uint64_t n = pages - r < 256 ? pages - r : 256;

		for (uint64_t i = 0; i < n; i++)
			bench_page(buf + i * BS, im.ram_lo + r + i);
		put(fd, im.h.data_block + r, buf, n * BS);
	}
	free(buf);
	return fsync(fd) || close(fd);
}

/*
 * The pipes (read ahead, compress in threads, write in order) write the
 * same bytes as one thread does, whatever the threads and chunk sizes:
 * pages of every kind, so that the chunks take the workers different times
 * and finish out of order.
 */
static int test_threads_write_in_order(void)
{
	static const struct { unsigned int threads, chunk; } tune[] = {
		{ 2, 1 }, { 3, 7 }, { 8, 3 }, { 4, 64 }, { 0, 0 },
	};
	unsigned char page[BS];
	bool same = true;
	struct img im;
	int fd;

	img_init(&im, "order", 2400);
	im.max_pfn = 2300;
	im.ram_lo = 20;
	im.ram_hi = 2250;
	im.written = im.ram_hi - im.ram_lo;
	make_dump(&im);
	fd = open(im.path, O_WRONLY);
	CHECK(fd >= 0);
	for (uint64_t r = 0; r < im.written; r++) {
		bench_page(page, r / 3 * 16 + r % 3);	/* a new kind every 3 pages */
		put(fd, im.h.data_block + r, page, BS);
	}
	close(fd);
	for (int how = -1; how <= DD_ZSTD; how++) {
		size_t len, n;
		char *one, *many;

		dd_pipe_tune(1, 0);
		one = save_as(&im, how, &len);
		CHECK(one);
		for (size_t t = 0; t < ARRAY_SIZE(tune) && same; t++) {
			dd_pipe_tune(tune[t].threads, tune[t].chunk);
			many = save_as(&im, how, &n);
			same = many && n == len && !memcmp(one, many, len);
			if (!same)
				fprintf(stderr, "  %s: %s %d, %u threads, %u blocks a chunk: %s\n",
					current, how < 0 ? "elf" : "kdump", how, tune[t].threads,
					tune[t].chunk, many ? "other bytes" : "failed");
			free(many);
		}
		free(one);
		CHECK(same);
	}
	dd_pipe_tune(3, 5);
	return 0;
}

/*
 * test_savecore --seed FILE: the fuzzer's seeds.  FILE: a small valid dump;
 * FILE-v1, FILE-v2: an empty partition of format version 1, 2; FILE-time-max,
 * FILE-time-neg: dumps with panic times gmtime_r() cannot take; FILE-strings:
 * a dump whose strings fill their fields.
 */
static void seed_dump(const char *path, const char *suffix, uint64_t time_sec,
		      bool fill_strings)
{
	struct img im;

	img_init(&im, "seed", 16);
	snprintf(im.path, sizeof(im.path), "%s%s", path, suffix);
	im.max_pfn = 12;
	im.ram_lo = 2;
	im.ram_hi = 10;
	im.written = 8;
	make_dump(&im);
	im.h.time_sec = time_sec;
	if (fill_strings) {
		memset(im.h.nodename, '/', sizeof(im.h.nodename));
		memset(im.h.release, '\n', sizeof(im.h.release));
		memset(im.h.panic_msg, 0xff, sizeof(im.h.panic_msg));
	}
	rewrite_header(&im, 1);
}

static int write_seed(const char *path)
{
	char name[300];

	seed_dump(path, "", 0, false);
	seed_dump(path, "-time-max", INT64_MAX, false);
	seed_dump(path, "-time-neg", (uint64_t)-1, false);
	seed_dump(path, "-strings", 1700000000, true);
	snprintf(name, sizeof(name), "%s-v1", path);
	make_image(name, 16, 1);
	snprintf(name, sizeof(name), "%s-v2", path);
	make_image(name, 16, 2);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--seed"))
		return write_seed(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--bench-verify"))
		return bench_verify();
	if (argc == 4 && !strcmp(argv[1], "--bench-image"))
		return write_bench_image(argv[2], argv[3]);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	/* every dump through the threads, in small chunks (but the binary's) */
	dd_pipe_tune(3, 5);
	RUN(test_threads_write_in_order);
	RUN(test_crc32_vector);
	RUN(test_fmt_block_roundtrip);
	RUN(test_signatures);
	RUN(test_complete_dump_to_elf);
	RUN(test_note_iterator);
	RUN(test_vmcoreinfo_lookup);
	RUN(test_truncated_dump_is_partial);
	RUN(test_chosen_truncated_dump_is_partial);
	RUN(test_interrupted_dump_is_scanned);
	RUN(test_interrupted_dump_keeps_pages_after_a_hole);
	RUN(test_empty_and_foreign);
	RUN(test_corrupt_headers_are_refused);
	RUN(test_savecore_binary_cycle);
	RUN(test_savecore_stopped_mid_save);
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
	RUN(test_iv_holds_64_bit_block);
	RUN(test_encrypted_dump_savecore_cycle);
	RUN(test_fmt_v2_every_word);
	RUN(test_fmt_sectors_unique);
	RUN(test_fmt_sector_damage);
	RUN(test_fmt_v1_is_old_format);
	RUN(test_format_range_and_verify);
	RUN(test_failed_format_keeps_block0);
	RUN(test_scan_needs_the_whole_block);
	RUN(test_dump_dir_names);
	RUN(test_savecore_odd_times);
	RUN(test_savecore_unterminated_strings);
	RUN(test_header_field_checks);
	RUN(test_rotation_removes_only_its_own);
	RUN(test_rotation_victims);
	RUN(test_rotation_makes_room_first);
	RUN(test_kdump_needs_only_what_it_writes);
	RUN(test_saved_dump_format_finished);
	RUN(test_rotation_keeps_the_new_dump);
	RUN(test_check_states);
	RUN(test_save_formats_old_partition);
	RUN(test_diskdumpfmt_formats);
	if (!failed) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
