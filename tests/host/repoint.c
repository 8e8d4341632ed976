// SPDX-License-Identifier: GPL-2.0
/*
 * An LD_PRELOAD shim for fmt-matrix.sh: the first time the program opens
 * $REPOINT_LINK, the link is made to point at $REPOINT_TO right after the
 * open, as udev re-points a /dev/disk/by-* link while a tool runs.  Every
 * later open of the name reaches the other device.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int done;

static void repoint(const char *path)
{
	const char *link = getenv("REPOINT_LINK"), *to = getenv("REPOINT_TO");
	char tmp[4096];

	if (done || !link || !to || strcmp(path, link))
		return;
	done = 1;
	snprintf(tmp, sizeof(tmp), "%s.repoint", link);
	unlink(tmp);
	if (symlink(to, tmp) || rename(tmp, link))
		fprintf(stderr, "repoint: %s -> %s failed\n", link, to);
}

typedef int (*openat_fn)(int, const char *, int, ...);

static int call(const char *sym, int dirfd, const char *path, int flags, mode_t mode)
{
	openat_fn real = (openat_fn)dlsym(RTLD_NEXT, sym);
	int fd = real(dirfd, path, flags, mode);

	if (fd >= 0)
		repoint(path);
	return fd;
}

static mode_t mode_of(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return call("openat", AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return call("openat64", AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return call("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return call("openat64", dirfd, path, flags, mode);
}

/* what _FORTIFY_SOURCE calls for flags the compiler cannot see */
int __open_2(const char *path, int flags)
{
	return call("openat", AT_FDCWD, path, flags, 0);
}

int __open64_2(const char *path, int flags)
{
	return call("openat64", AT_FDCWD, path, flags, 0);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	return call("openat", dirfd, path, flags, 0);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	return call("openat64", dirfd, path, flags, 0);
}
