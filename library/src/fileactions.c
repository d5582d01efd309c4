/* SPDX-License-Identifier: MIT */
/*
 * posix_spawn_file_actions_*: glibc's posix_spawn_file_actions_t, whose
 * __actions member points at an array of struct pfs_action.  All of them
 * return an error number, as POSIX requires.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

_Static_assert(sizeof(struct pfs_file_actions) ==
	       sizeof(posix_spawn_file_actions_t), "file actions size");
_Static_assert(_Alignof(struct pfs_file_actions) ==
	       _Alignof(posix_spawn_file_actions_t), "file actions alignment");

static struct pfs_file_actions *fa_of(posix_spawn_file_actions_t *fa)
{
	return (struct pfs_file_actions *)fa;
}

/* glibc's rule: a descriptor must be below the RLIMIT_NOFILE soft limit. */
static int valid_fd(int fd)
{
	return fd >= 0 && fd < getdtablesize();
}

/* Append one action; takes ownership of @a->path, even on failure. */
static int append(posix_spawn_file_actions_t *fa, const struct pfs_action *a)
{
	struct pfs_file_actions *f = fa_of(fa);

	if (f->used == f->allocated) {
		int n = f->allocated ? f->allocated * 2 : 8;
		struct pfs_action *grown;

		grown = realloc(f->actions, (size_t)n * sizeof(*grown));
		if (!grown) {
			free(a->path);
			return ENOMEM;
		}
		f->actions = grown;
		f->allocated = n;
	}
	f->actions[f->used++] = *a;
	return 0;
}

PFS_API int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa)
{
	memset(fa, 0, sizeof(*fa));
	return 0;
}

PFS_API int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)
{
	struct pfs_file_actions *f = fa_of(fa);

	for (int i = 0; i < f->used; i++)
		free(f->actions[i].path);
	free(f->actions);
	memset(fa, 0, sizeof(*fa));
	return 0;
}

PFS_API int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa,
					     int fd, const char *path,
					     int oflag, mode_t mode)
{
	struct pfs_action a = { .kind = PFS_ACT_OPEN, .fd = fd,
				.oflag = oflag, .mode = mode };

	if (!valid_fd(fd))
		return EBADF;
	a.path = strdup(path);
	if (!a.path)
		return ENOMEM;
	return append(fa, &a);
}

PFS_API int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa,
					      int fd)
{
	struct pfs_action a = { .kind = PFS_ACT_CLOSE, .fd = fd };

	if (!valid_fd(fd))
		return EBADF;
	return append(fa, &a);
}

PFS_API int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa,
					     int fd, int newfd)
{
	struct pfs_action a = { .kind = PFS_ACT_DUP2, .fd = fd, .newfd = newfd };

	if (!valid_fd(fd) || !valid_fd(newfd))
		return EBADF;
	return append(fa, &a);
}

PFS_API int posix_spawn_file_actions_addchdir_np(
	posix_spawn_file_actions_t *fa, const char *path)
{
	struct pfs_action a = { .kind = PFS_ACT_CHDIR };

	a.path = strdup(path);
	if (!a.path)
		return ENOMEM;
	return append(fa, &a);
}

PFS_API int posix_spawn_file_actions_addfchdir_np(
	posix_spawn_file_actions_t *fa, int fd)
{
	struct pfs_action a = { .kind = PFS_ACT_FCHDIR, .fd = fd };

	if (!valid_fd(fd))
		return EBADF;
	return append(fa, &a);
}

PFS_API int posix_spawn_file_actions_addclosefrom_np(
	posix_spawn_file_actions_t *fa, int from)
{
	struct pfs_action a = { .kind = PFS_ACT_CLOSEFROM, .fd = from };

	if (!valid_fd(from))
		return EBADF;
	return append(fa, &a);
}

PFS_API int posix_spawn_file_actions_addtcsetpgrp_np(
	posix_spawn_file_actions_t *fa, int tcfd)
{
	struct pfs_action a = { .kind = PFS_ACT_TCSETPGRP, .fd = tcfd };

	if (!valid_fd(tcfd))
		return EBADF;
	return append(fa, &a);
}
