/* SPDX-License-Identifier: MIT */
/*
 * Layer 2: the builder API.  A struct pidfdspawn_builder collects a path,
 * argv, envp and ordered actions in userspace; pidfdspawn_builder_run()
 * opens a kernel builder, stages the path with pidfd_config() and runs it.
 * Functions return 0, or -1 with errno set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

struct pidfdspawn_builder {
	const char *path;
	char *const *argv;
	char *const *envp;
	struct pidfdspawn_action *actions;
	unsigned int nr_actions;
	unsigned int cap_actions;
};

PFS_API struct pidfdspawn_builder *pidfdspawn_builder_new(void)
{
	return calloc(1, sizeof(struct pidfdspawn_builder));
}

PFS_API void pidfdspawn_builder_free(struct pidfdspawn_builder *b)
{
	if (!b)
		return;
	free(b->actions);
	free(b);
}

PFS_API int pidfdspawn_builder_set_path(struct pidfdspawn_builder *b,
					const char *path)
{
	if (!path) {
		errno = EINVAL;
		return -1;
	}
	b->path = path;
	return 0;
}

PFS_API int pidfdspawn_builder_set_argv(struct pidfdspawn_builder *b,
					char *const argv[])
{
	if (!argv) {
		errno = EINVAL;
		return -1;
	}
	b->argv = argv;
	return 0;
}

PFS_API int pidfdspawn_builder_set_envp(struct pidfdspawn_builder *b,
					char *const envp[])
{
	b->envp = envp;
	return 0;
}

static int add_action(struct pidfdspawn_builder *b, uint32_t type,
		      uint32_t flags, uint32_t fd, uint32_t newfd)
{
	struct pidfdspawn_action *a;

	if (b->nr_actions == b->cap_actions) {
		unsigned int n = b->cap_actions ? b->cap_actions * 2 : 8;

		a = realloc(b->actions, n * sizeof(*a));
		if (!a)
			return -1;
		b->actions = a;
		b->cap_actions = n;
	}
	a = &b->actions[b->nr_actions++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->flags = flags;
	a->fd = fd;
	a->newfd = newfd;
	return 0;
}

PFS_API int pidfdspawn_builder_add_dup2(struct pidfdspawn_builder *b, int fd,
					int newfd)
{
	if (fd < 0 || newfd < 0) {
		errno = EBADF;
		return -1;
	}
	return add_action(b, PIDFDSPAWN_ACTION_DUP2, 0, (uint32_t)fd,
			  (uint32_t)newfd);
}

PFS_API int pidfdspawn_builder_add_close_range(struct pidfdspawn_builder *b,
					       unsigned int first,
					       unsigned int last,
					       unsigned int flags)
{
	if (last < first) {
		errno = EINVAL;
		return -1;
	}
	return add_action(b, PIDFDSPAWN_ACTION_CLOSE_RANGE, flags, first, last);
}

PFS_API int pidfdspawn_builder_add_fchdir(struct pidfdspawn_builder *b, int fd)
{
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	return add_action(b, PIDFDSPAWN_ACTION_FCHDIR, 0, (uint32_t)fd, 0);
}

PFS_API int pidfdspawn_builder_run(struct pidfdspawn_builder *b, pid_t *pid,
				   int *pidfd)
{
	struct pidfdspawn_run_args args = {
		.argv = (uintptr_t)b->argv,
		.envp = (uintptr_t)b->envp,
		.nr_actions = b->nr_actions,
		.actions = b->nr_actions ? (uintptr_t)b->actions : 0,
		.action_size = b->nr_actions ? sizeof(*b->actions) : 0,
	};
	int fd, ret, err;
	siginfo_t si;

	if (!b->path || !b->argv) {
		errno = EINVAL;
		return -1;
	}
	fd = pidfdspawn_open_empty(0);
	if (fd < 0)
		return -1;
	if (pidfdspawn_config(fd, PIDFDSPAWN_CONFIG_SET_STRING,
			      PIDFDSPAWN_CONFIG_KEY_PATH, b->path, 0) < 0)
		goto fail;
	ret = pidfdspawn_run(fd, &args, sizeof(args));
	if (ret < 0) {
		/* A created child exits 127 by itself: reap it. */
		err = errno;
		while (pfs_waitid_pidfd(fd, &si, WEXITED) < 0 && errno == EINTR)
			;
		errno = err;
		goto fail;
	}
	if (pid)
		*pid = ret;
	if (pidfd)
		*pidfd = fd;
	else
		close(fd);
	return 0;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}
