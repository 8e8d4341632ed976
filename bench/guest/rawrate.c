// SPDX-License-Identifier: GPL-2.0
/*
 * rawrate DEVICE MIB KIB: write MIB MiB of zeroes to DEVICE with O_DIRECT
 * in KIB KiB writes (then fsync), and print the rate: the raw write rate
 * of a disk, as dd oflag=direct measures it, to compare diskdump's with.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	size_t bs, total, done = 0;
	void *buf;
	double s;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: rawrate DEVICE MIB KIB\n");
		return 2;
	}
	total = strtoul(argv[2], NULL, 0) << 20;
	bs = strtoul(argv[3], NULL, 0) << 10;
	fd = open(argv[1], O_WRONLY | O_DIRECT);
	if (fd < 0 || !bs || posix_memalign(&buf, 4096, bs)) {
		perror(argv[1]);
		return 1;
	}
	memset(buf, 0, bs);
	clock_gettime(CLOCK_MONOTONIC, &a);
	while (done < total) {
		if (write(fd, buf, bs) != (ssize_t)bs) {
			perror("write");
			return 1;
		}
		done += bs;
	}
	if (fsync(fd)) {
		perror("fsync");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("RAWRATE: %zu MiB in %zu KiB writes, %.3f s, %.1f MiB/s\n", total >> 20, bs >> 10,
	       s, (double)(total >> 20) / s);
	close(fd);
	return 0;
}
