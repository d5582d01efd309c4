/* SPDX-License-Identifier: MIT */
/*
 * posix_spawn_file_actions_*: glibc's posix_spawn_file_actions_t, whose
 * __actions member points at a malloc'd array of glibc's struct
 * __spawn_action (struct pfs_action), so that objects built here work
 * with glibc's functions and the reverse.  Validation follows glibc
 * 2.36: close, dup2, open, closefrom and tcsetpgrp check their fds
 * against the descriptor limit at add time; fchdir does not (a bad fd
 * fails at spawn time with EBADF).  All return an error number.
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
_Static_assert(offsetof(struct pfs_file_actions, used) ==
	       offsetof(posix_spawn_file_actions_t, __used), "__used");
_Static_assert(offsetof(struct pfs_file_actions, actions) ==
	       offsetof(posix_spawn_file_actions_t, __actions), "__actions");
/* glibc's struct __spawn_action: tag, then the union after pointer padding */
_Static_assert(sizeof(enum pfs_action_tag) == sizeof(int), "tag size");
_Static_assert(offsetof(struct pfs_action, u) == sizeof(void *) ||
	       (sizeof(void *) == 4 && offsetof(struct pfs_action, u) == 4),
	       "union offset");
_Static_assert(sizeof(struct pfs_action) ==
	       (sizeof(void *) == 8 ? 32 : 20), "struct __spawn_action size");
_Static_assert(offsetof(struct pfs_action, u.open.path) -
	       offsetof(struct pfs_action, u) == sizeof(void *), "open path");

static struct pfs_file_actions *fa_of(posix_spawn_file_actions_t *fa)
{
	return (struct pfs_file_actions *)fa;
}

/* glibc's rule: 0 <= fd < sysconf(_SC_OPEN_MAX) (no limit: any fd >= 0). */
static int valid_fd(int fd)
{
	long max = sysconf(_SC_OPEN_MAX);

	return fd >= 0 && (max < 0 || fd < max);
}

/*
 * A slot for one more action.  The array may have been grown by glibc
 * (realloc, 8 at a time) or here (doubling): both keep __allocated.
 */
static struct pfs_action *slot(posix_spawn_file_actions_t *fa)
{
	struct pfs_file_actions *f = fa_of(fa);

	if (f->used == f->allocated) {
		int n = f->allocated ? f->allocated * 2 : 8;
		struct pfs_action *grown;

		if (f->allocated > INT_MAX / 2)
			return NULL;
		grown = realloc(f->actions, (size_t)n * sizeof(*grown));
		if (!grown)
			return NULL;
		f->actions = grown;
		f->allocated = n;
	}
	memset(&f->actions[f->used], 0, sizeof(f->actions[0]));
	return &f->actions[f->used];
}

static int commit(posix_spawn_file_actions_t *fa)
{
	fa_of(fa)->used++;
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

	for (int i = 0; i < f->used; i++) {
		struct pfs_action *a = &f->actions[i];

		if (a->tag == PFS_DO_OPEN)
			free(a->u.open.path);
		else if (a->tag == PFS_DO_CHDIR)
			free(a->u.chdir.path);
	}
	free(f->actions);
	memset(fa, 0, sizeof(*fa));
	return 0;
}

PFS_API int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa,
					     int fd, const char *path,
					     int oflag, mode_t mode)
{
	struct pfs_action *a;
	char *copy;

	if (!valid_fd(fd))
		return EBADF;
	copy = strdup(path);
	if (!copy)
		return ENOMEM;
	a = slot(fa);
	if (!a) {
		free(copy);
		return ENOMEM;
	}
	a->tag = PFS_DO_OPEN;
	a->u.open.fd = fd;
	a->u.open.path = copy;
	a->u.open.oflag = oflag;
	a->u.open.mode = mode;
	return commit(fa);
}

PFS_API int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa,
					      int fd)
{
	struct pfs_action *a;

	if (!valid_fd(fd))
		return EBADF;
	if (!(a = slot(fa)))
		return ENOMEM;
	a->tag = PFS_DO_CLOSE;
	a->u.close.fd = fd;
	return commit(fa);
}

PFS_API int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa,
					     int fd, int newfd)
{
	struct pfs_action *a;

	if (!valid_fd(fd) || !valid_fd(newfd))
		return EBADF;
	if (!(a = slot(fa)))
		return ENOMEM;
	a->tag = PFS_DO_DUP2;
	a->u.dup2.fd = fd;
	a->u.dup2.newfd = newfd;
	return commit(fa);
}

PFS_API int posix_spawn_file_actions_addchdir_np(
	posix_spawn_file_actions_t *fa, const char *path)
{
	struct pfs_action *a;
	char *copy = strdup(path);

	if (!copy)
		return ENOMEM;
	if (!(a = slot(fa))) {
		free(copy);
		return ENOMEM;
	}
	a->tag = PFS_DO_CHDIR;
	a->u.chdir.path = copy;
	return commit(fa);
}

/* glibc accepts any fd here; fchdir() in the child reports a bad one. */
PFS_API int posix_spawn_file_actions_addfchdir_np(
	posix_spawn_file_actions_t *fa, int fd)
{
	struct pfs_action *a;

	if (!(a = slot(fa)))
		return ENOMEM;
	a->tag = PFS_DO_FCHDIR;
	a->u.fchdir.fd = fd;
	return commit(fa);
}

PFS_API int posix_spawn_file_actions_addclosefrom_np(
	posix_spawn_file_actions_t *fa, int from)
{
	struct pfs_action *a;

	if (!valid_fd(from))
		return EBADF;
	if (!(a = slot(fa)))
		return ENOMEM;
	a->tag = PFS_DO_CLOSEFROM;
	a->u.closefrom.from = from;
	return commit(fa);
}

PFS_API int posix_spawn_file_actions_addtcsetpgrp_np(
	posix_spawn_file_actions_t *fa, int tcfd)
{
	struct pfs_action *a;

	if (!valid_fd(tcfd))
		return EBADF;
	if (!(a = slot(fa)))
		return ENOMEM;
	a->tag = PFS_DO_TCSETPGRP;
	a->u.tcsetpgrp.fd = tcfd;
	return commit(fa);
}
