// SPDX-License-Identifier: GPL-2.0
/*
 * The dump directories savecore makes in DIR: their names (HOST-DATE) and
 * the rotation of the oldest ones (-n, and to make room for a new one).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ddcore.h"
#include "savecore.h"

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
	if (dd_panic_tm(h, &tm))
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

/* Is @name the dump directory of a dump from @host? */
static bool dir_of_host(const char *name, const char *host)
{
	size_t len = strlen(name), hlen = strlen(host);
	const char *dot = strrchr(name, '.');

	if (dot && dot[1] && strlen(dot + 1) <= 2 && all_digits(dot + 1, strlen(dot + 1)))
		len = (size_t)(dot - name);
	return len == hlen + STAMP_LEN && !strncmp(name, host, hlen);
}

void dd_dump_host(const struct diskdump_header *h, char *out, size_t len)
{
	host_name(h, out, len);
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

static bool is_saved_dump(int dirfd, const char *name, const char *host,
			  struct saved *s)
{
	struct stat st;
	bool ours;
	int dfd;

	if (!dd_is_dump_dir_name(name) || !dir_of_host(name, host) ||
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

/* The dumps of @host savecore saved in @dirfd, oldest first: 0, or -1. */
static int list_saved(int dirfd, const char *host, struct saved **out, size_t *n)
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
		if (is_saved_dump(dirfd, e->d_name, host, &list[*n]))
			(*n)++;
	}
	closedir(dp);
	if (*n)
		qsort(list, *n, sizeof(*list), by_age);
	*out = list;
	return 0;
}

/*
 * DIR open, and the dumps of @host savecore saved in it, oldest first: its
 * fd, or -1.  Another host's dumps (a DIR shared over NFS) are never
 * listed, so never removed.
 */
static int open_saved(const char *dir, const char *host, struct saved **list, size_t *n)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dirfd >= 0 && list_saved(dirfd, host, list, n)) {
		close(dirfd);
		return -1;
	}
	return dirfd;
}

/* Remove savecore's files, then the directory if nothing else is left. */
static void remove_saved(int dirfd, const char *dir, const struct saved *s,
			 bool quiet,
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
	else if (!quiet)
		printf("savecore: removed the old dump %s/%s (%s)\n",
		       dir, s->name, why);
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

void dd_rotate(const char *dir, unsigned int keep, const char *host,
	       const char *just_saved, bool quiet)
{
	struct saved *list = NULL;
	char why[64];
	size_t n, old = 0;
	int dirfd = open_saved(dir, host, &list, &n);

	if (dirfd < 0)
		return;
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
		remove_saved(dirfd, dir, &list[i], quiet, why);
	free(list);
	close(dirfd);
}

/* Before saving: remove the oldest dumps, as -n allows, to make room. */
void dd_rotate_for_space(const char *dir, unsigned int keep, const char *host,
			 uint64_t avail, uint64_t need, bool quiet)
{
	struct saved *list = NULL;
	uint64_t *bytes;
	size_t n, k = 0;
	int dirfd = open_saved(dir, host, &list, &n);

	if (dirfd < 0)
		return;
	bytes = calloc(n + 1, sizeof(*bytes));
	for (size_t i = 0; bytes && i < n; i++)
		bytes[i] = list[i].bytes;
	if (bytes)
		k = dd_rotation_victims(bytes, n, keep, avail, need);
	for (size_t i = 0; i < k; i++)
		remove_saved(dirfd, dir, &list[i], quiet,
			     "to make room for the new one");
	free(bytes);
	free(list);
	close(dirfd);
}
