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
 * Whether the kernel's "search-path" walk gives glibc's candidates for
 * @path: it skips an entry too long to hold the name, where glibc tries it
 * (ENAMETOOLONG) or applies the rules above.
 */
int pfs_path_fits_kernel(const char *path, const char *file)
{
	size_t file_len = strlen(file);

	for (const char *entry = path;; ) {
		const char *end = strchrnul(entry, ':');

		if ((size_t)(end - entry) + 1 + file_len >= PATH_MAX)
			return 0;
		if (!*end)
			return 1;
		entry = end + 1;
	}
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
