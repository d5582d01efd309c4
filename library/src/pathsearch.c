/* SPDX-License-Identifier: MIT */
/*
 * posix_spawnp's PATH walk, shared by both backends.  It allocates
 * nothing, so the fallback's vfork child can use it.  Rules (glibc's
 * execvpe): an empty entry means the current directory; an entry too long
 * for the buffer is skipped; the search goes on after ENOENT, ESTALE,
 * ENOTDIR, ENODEV, ETIMEDOUT and EACCES (remembered and reported if
 * nothing else is found) and stops at any other error.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

void pfs_path_walk_init(struct pfs_path_walk *w, const char *path,
			const char *file)
{
	w->next = path;
	w->file = file;
	w->file_len = strlen(file);
}

int pfs_path_walk_next(struct pfs_path_walk *w, char *buf, size_t size,
		       int *relative)
{
	while (w->next) {
		const char *entry = w->next;
		const char *end = strchrnul(entry, ':');
		size_t len = (size_t)(end - entry);

		w->next = *end ? end + 1 : NULL;
		if (len + 1 + w->file_len + 1 > size)
			continue;
		memcpy(buf, entry, len);
		if (len)
			buf[len++] = '/';
		memcpy(buf + len, w->file, w->file_len + 1);
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
