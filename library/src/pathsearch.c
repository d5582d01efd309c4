/* SPDX-License-Identifier: MIT */
/*
 * posix_spawnp's PATH walk, shared by both backends.  It allocates
 * nothing, so the fallback's vfork child can use it.  The rules are glibc
 * 2.36's execvpe, quirks included, since programs see them:
 *   - an empty entry means the current directory;
 *   - an entry of PATH_MAX (4096) bytes or more is not searched: when it
 *     is the last entry the walk ends there, otherwise glibc's loop tries
 *     the name alone (the current directory) in its place;
 *   - a shorter entry is tried even when entry/name exceeds PATH_MAX
 *     (execve's ENAMETOOLONG then ends the search);
 *   - the search goes on after ENOENT, ESTALE, ENOTDIR, ENODEV, ETIMEDOUT
 *     and EACCES (remembered and reported if nothing else is found) and
 *     stops at any other error;
 *   - a walk that tried nothing reports the errno the caller had (ECHILD
 *     when that was 0);
 *   - a name over NAME_MAX is not refused: glibc's check is dead code
 *     (strnlen(file, NAME_MAX) never exceeds NAME_MAX) and each candidate
 *     gets the name cut to NAME_MAX + 1 bytes, a component the kernel
 *     refuses with ENAMETOOLONG where the directory exists.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void pfs_path_walk_init(struct pfs_path_walk *w, const char *path,
			const char *file)
{
	w->next = path;
	w->file = file;
	w->file_len = strnlen(file, NAME_MAX + 1);
}

int pfs_path_walk_next(struct pfs_path_walk *w, char *buf, size_t size,
		       int *relative)
{
	while (w->next) {
		const char *entry = w->next;
		const char *end = strchrnul(entry, ':');
		size_t len = (size_t)(end - entry);

		w->next = *end ? end + 1 : NULL;
		if (len >= PATH_MAX) {
			if (!w->next)
				return 0;
			len = 0;	/* glibc: the name alone */
		}
		if (len + 1 + w->file_len + 1 > size)
			continue;	/* cannot happen: PFS_PATH_BUF holds it */
		memcpy(buf, entry, len);
		if (len)
			buf[len++] = '/';
		memcpy(buf + len, w->file, w->file_len);
		buf[len + w->file_len] = '\0';
		*relative = buf[0] != '/';
		return 1;
	}
	return 0;
}

/*
 * The walk above tries nothing only where PATH is a single entry of
 * PATH_MAX bytes or more: every other entry gives a candidate (a long
 * entry that is not the last gives the name alone).  NULL stands for the
 * default PATH (pidfdspawn_request_features() names none).
 */
int pfs_path_tries_nothing(const char *path)
{
	return path && !strchr(path, ':') &&
	       strnlen(path, PATH_MAX) >= PATH_MAX;
}

int pfs_path_error_continues(int err)
{
	switch (err) {
	case EACCES:
	case ENOENT:
	case ESTALE:
	case ENOTDIR:
	case ENODEV:
	case ETIMEDOUT:
		return 1;
	}
	return 0;
}

/*
 * The "search-path" that makes the kernel's walk try glibc's candidates
 * for @path, in glibc's order; its length, or -1 when there is none.  The
 * kernel tries every entry short enough to hold "/name" and skips the
 * others; glibc (see above):
 *   - skips an entry of PATH_MAX bytes or more and tries the name alone in
 *     its place, or ends the walk there when it is the last entry: such
 *     an entry becomes an empty one (the current directory), or nothing;
 *   - tries a shorter entry that cannot hold the name (ENAMETOOLONG ends
 *     its search), which the kernel would skip: -1;
 *   - tries nothing when every entry went (the caller's errno, where the
 *     kernel says ENOENT): -1.
 * Other entries, empty ones (the current directory) included, stay as
 * they are.  With @out (room for strlen(@path) + 1 bytes), the result is
 * written there.  The result is never longer than @path, and is as long
 * only when it is @path itself.
 */
long pfs_kernel_search_path(const char *path, const char *file, char *out)
{
	size_t file_len = strlen(file), used = 0;
	int entries = 0;

	for (const char *entry = path;; ) {
		const char *end = strchrnul(entry, ':');
		size_t len = (size_t)(end - entry);

		if (len >= PATH_MAX) {
			if (!*end)
				break;
			len = 0;	/* glibc: the name alone */
		} else if (len + 1 + file_len >= PATH_MAX) {
			return -1;
		}
		if (entries++) {
			if (out)
				out[used] = ':';
			used++;
		}
		if (out)
			memcpy(out + used, entry, len);
		used += len;
		if (!*end)
			break;
		entry = end + 1;
	}
	if (!entries)
		return -1;
	if (out)
		out[used] = '\0';
	return (long)used;
}

/*
 * The shell's argv for glibc's old posix_spawn (try_shell): /bin/sh FILE
 * ARGV[1]...; malloc'd (the fallback makes it before its child exists).
 */
char **pfs_shell_argv(const struct pfs_request *req)
{
	size_t argc = 0;
	char **v;

	while (req->argv && req->argv[argc])
		argc++;
	v = malloc((argc + 2) * sizeof(*v));
	if (!v)
		return NULL;
	v[0] = (char *)"/bin/sh";
	v[1] = (char *)req->file;
	for (size_t i = 1; i < argc; i++)
		v[i + 1] = req->argv[i];
	v[argc > 1 ? argc + 1 : 2] = NULL;
	return v;
}
