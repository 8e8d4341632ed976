// SPDX-License-Identifier: GPL-2.0
/*
 * diskdumpfmt - prepare a partition for diskdump
 *
 * Writes the format signature into every block, so that the kernel will
 * accept the partition as a dump target.  Refuses a mounted device, and a
 * device that holds a file system, a swap area or an unsaved dump unless
 * forced.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ddcore.h"

static void print_usage(FILE *f)
{
	fprintf(f, "usage: diskdumpfmt [-f] [-q] DEVICE\n"
		"Write the diskdump format signature into every block of DEVICE.\n"
		"  -f, --force    overwrite a file system or an unsaved dump\n"
		"  -q, --quiet    print nothing but errors\n"
		"  -h, --help     this text\n"
		"  -V, --version  print the version\n");
}

/* Is the device, by its device number, mounted or used as swap? */
static const char *device_in_use(const char *path)
{
	struct stat st, mst;
	char line[4096], dev[4096];
	FILE *f;

	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return NULL;
	f = fopen("/proc/mounts", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%4095s", dev) == 1 && dev[0] == '/' &&
		    !stat(dev, &mst) && S_ISBLK(mst.st_mode) &&
		    mst.st_rdev == st.st_rdev) {
			fclose(f);
			return "mounted";
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/swaps", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%4095s", dev) == 1 && !stat(dev, &mst) &&
		    S_ISBLK(mst.st_mode) && mst.st_rdev == st.st_rdev) {
			fclose(f);
			return "in use as swap";
		}
	}
	if (f)
		fclose(f);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	bool force = false, quiet = false;
	unsigned char *head;
	const char *what;
	struct dd_dev dev;
	struct stat st;
	size_t headlen;
	int c;

	while ((c = getopt_long(argc, argv, "fqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			force = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			print_usage(stdout);
			return EX_OK;
		case 'V':
			printf("diskdumpfmt %s\n", DD_VERSION);
			return EX_OK;
		default:
			print_usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind != argc - 1) {
		print_usage(stderr);
		return EX_USAGE;
	}
	what = device_in_use(argv[optind]);
	if (what) {
		fprintf(stderr, "diskdumpfmt: %s is %s; refusing\n", argv[optind], what);
		return EX_ERROR;
	}
	if (dd_open(&dev, argv[optind], true))
		return EX_ERROR;
	if (dev.blocks < 2) {
		fprintf(stderr, "diskdumpfmt: %s is too small\n", dev.path);
		return EX_ERROR;
	}
	headlen = dev.blocks < 33 ? dev.blocks * DISKDUMP_BLOCK_SIZE : 33 * DISKDUMP_BLOCK_SIZE;
	head = malloc(headlen);
	if (!head || dd_read_blocks(&dev, 0, head, headlen / DISKDUMP_BLOCK_SIZE))
		return EX_ERROR;
	what = dd_foreign_signature(head, headlen);
	if (what && !force) {
		fprintf(stderr, "diskdumpfmt: %s holds %s; use -f to overwrite it\n",
			dev.path, what);
		return EX_ERROR;
	}
	free(head);
	if (dd_format_range(&dev, 0, dev.blocks))
		return EX_ERROR;
	/* The partition will hold all of memory: nobody but its owner and
	 * group may read it.
	 */
	if (!fstat(dev.fd, &st) && (st.st_mode & 0007) &&
	    fchmod(dev.fd, st.st_mode & 07770))
		fprintf(stderr, "diskdumpfmt: %s: chmod o-rwx: %s\n", dev.path, strerror(errno));
	if (!quiet)
		printf("%s: formatted %" PRIu64 " blocks of %d bytes for diskdump\n",
		       dev.path, dev.blocks, DISKDUMP_BLOCK_SIZE);
	dd_close(&dev);
	return EX_OK;
}
