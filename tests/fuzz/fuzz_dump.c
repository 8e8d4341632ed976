// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: savecore reading a dump partition.
 *
 * The input is a partition image.  Its header checksum is fixed up first,
 * so that mutations get past the crc and reach the checks of the header,
 * the bitmaps and the notes (the crc check itself has unit tests).  Then
 * savecore loads it, plans the ELF segments, looks up VMCOREINFO and writes
 * the vmcore, as ELF and as kdump-compressed, to /dev/null.  Any crash, leak, sanitizer report, or an
 * allocation beyond -malloc_limit_mb is a bug.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "savecore.h"

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
	if (size >= sizeof(h)) {
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int null_fd = -1;
	struct dd_dump d;
	struct dd_dev dev;
	char path[64], why[256], val[128];
	int fd;

	if (null_fd < 0)
		null_fd = open("/dev/null", O_WRONLY);
	fd = image_fd(data, size);
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&d, 0, sizeof(d));
	if (!dd_open(&dev, path, false)) {
		if (!dd_load(&dev, &d, why, sizeof(why)) && !dd_plan_segments(&dev, &d)) {
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
