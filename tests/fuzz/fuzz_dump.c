// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: savecore reading a dump partition.
 *
 * The input is a partition image.  If it starts with a dump header, the
 * header's checksum is fixed up first, so that mutations get past the crc
 * and reach the checks of the header, the bitmaps and the notes (the crc
 * check itself has unit tests).  Whatever block 0 holds, its bytes as a
 * header go through the info summary and the dump directory's name (made
 * and removed in a scratch directory).  Then savecore loads the image: a
 * dump is planned, looked up in VMCOREINFO and written, as ELF and as
 * kdump-compressed, to /dev/null; a formatted partition is compared with
 * the format, block by block.  Any crash, leak, sanitizer report, a name
 * savecore's rotation would not recognise, or an allocation beyond
 * -malloc_limit_mb is a bug.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "savecore.h"

static char scratch[] = "fuzzdirXXXXXX";

static void remove_scratch(void)
{
	rmdir(scratch);
}

static int image_fd(const uint8_t *data, size_t size)
{
	struct diskdump_header h;
	size_t len = (size + DISKDUMP_BLOCK_SIZE - 1) & ~(size_t)(DISKDUMP_BLOCK_SIZE - 1);
	int fd = memfd_create("dump", 0);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)len) ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		close(fd);
		return -1;
	}
	if (size >= sizeof(h) && !memcmp(data, DISKDUMP_HDR_MAGIC, DISKDUMP_MAGIC_LEN)) {
		memcpy(&h, data, sizeof(h));
		h.crc = 0;
		h.crc = dd_crc32(0, &h, sizeof(h));
		if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* Block 0's bytes as a header: the summary and the directory name. */
static void header_as_text(const uint8_t *data, size_t size, FILE *null)
{
	static struct dd_dump d;
	char name[DD_DIR_NAME_MAX], path[sizeof(scratch) + DD_DIR_NAME_MAX + 1];

	memset(&d.h, 0, sizeof(d.h));
	memcpy(&d.h, data, size < sizeof(d.h) ? size : sizeof(d.h));
	dd_print_summary(null, &d, "fuzz");
	dd_dump_dir_name(&d.h, name, sizeof(name));
	if (!dd_is_dump_dir_name(name))
		abort();	/* rotation would never find it */
	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	if (mkdir(path, 0700) || rmdir(path))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int null_fd = -1;
	static FILE *null;
	struct dd_fmt_scan scan;
	struct dd_dump d;
	struct dd_dev dev;
	char path[64], why[512], val[128];
	int fd, ret;

	if (null_fd < 0) {
		null_fd = open("/dev/null", O_WRONLY);
		null = fopen("/dev/null", "w");
		if (!mkdtemp(scratch))
			abort();
		atexit(remove_scratch);
	}
	header_as_text(data, size, null);
	fd = image_fd(data, size);
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&d, 0, sizeof(d));
	if (!dd_open(&dev, path, 0)) {
		ret = dd_load(&dev, &d, &(struct dd_load_opts){ .map_stacks = true },
			      why, sizeof(why));
		if (ret == -DD_EXIT_NODUMP)
			dd_verify_format(&dev, 0, dev.blocks, &scan);
		if (!ret)
			dd_print_summary(null, &d, path);
		if (!ret && !dd_plan_segments(&dev, &d)) {
			dd_vmcoreinfo(&d, "OSRELEASE", val, sizeof(val));
			dd_vmcoreinfo(&d, "SYMBOL(swapper_pg_dir)", val, sizeof(val));
			dd_write_elf(&dev, &d, null_fd);
			dd_write_kdump(&dev, &d, null_fd, DD_ZLIB, NULL);
		}
		dd_free(&d);
		dd_close(&dev);
	}
	close(fd);
	return 0;
}
