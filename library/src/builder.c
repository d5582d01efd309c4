/* SPDX-License-Identifier: MIT */
/*
 * Layer 2: the builder API.  A struct pidfdspawn_builder collects a path,
 * argv, envp and ordered actions in userspace; pidfdspawn_builder_run()
 * opens a kernel builder, stages the path (or exec fd, search path) and the
 * attributes with pidfd_config() and runs it.  One function per kernel
 * feature, as thin as liburing's: each records its action or setting and
 * checks only its arguments; the run checks the kernel has the features
 * (pidfdspawn_probe()).  Functions return 0, or -1 with errno set.
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
	/* PIDFDSPAWN_FEAT_* the actions, attributes and flags need. */
	uint32_t needs;
	/* Attributes, in posix_spawnattr_t's layout and POSIX_SPAWN_* flags. */
	struct pfs_attr attr;
	int sched_policy_set;	/* "sched-policy" (attr.policy) */
	int sched_priority_set;	/* "sched-priority" (attr.sp) */
	int exec_fd;		/* "exec-fd", or -1 */
	const char *search_path;	/* "search-path", or NULL */
	unsigned int run_flags;
};

PFS_API struct pidfdspawn_builder *pidfdspawn_builder_new(void)
{
	struct pidfdspawn_builder *b = calloc(1, sizeof(*b));

	if (b)
		b->exec_fd = -1;
	return b;
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

/* What the RFC's builder, the first one, already did. */
#define RFC_FEATURES (PIDFDSPAWN_FEAT_DUP2 | PIDFDSPAWN_FEAT_CLOSE_RANGE | \
		      PIDFDSPAWN_FEAT_FCHDIR)

/* Kernel action types and the probe's feature for each. */
static uint32_t action_feature(uint32_t type)
{
	switch (type) {
	case PIDFDSPAWN_ACTION_DUP2: return PIDFDSPAWN_FEAT_DUP2;
	case PIDFDSPAWN_ACTION_CLOSE_RANGE: return PIDFDSPAWN_FEAT_CLOSE_RANGE;
	case PIDFDSPAWN_ACTION_FCHDIR: return PIDFDSPAWN_FEAT_FCHDIR;
	case PIDFDSPAWN_ACTION_OPEN: return PIDFDSPAWN_FEAT_OPEN;
	case PIDFDSPAWN_ACTION_CLOSE: return PIDFDSPAWN_FEAT_CLOSE;
	case PIDFDSPAWN_ACTION_CHDIR: return PIDFDSPAWN_FEAT_CHDIR;
	case PIDFDSPAWN_ACTION_TCSETPGRP: return PIDFDSPAWN_FEAT_TCSETPGRP;
	}
	return PIDFDSPAWN_FEAT_UNSUPPORTED;
}

/* Append one kernel action record; NULL (errno ENOMEM) when out of memory. */
static struct pidfdspawn_action *
new_action(struct pidfdspawn_builder *b, uint32_t type)
{
	struct pidfdspawn_action *a;

	if (b->nr_actions == b->cap_actions) {
		unsigned int n = b->cap_actions ? b->cap_actions * 2 : 8;

		a = realloc(b->actions, n * sizeof(*a));
		if (!a)
			return NULL;
		b->actions = a;
		b->cap_actions = n;
	}
	a = &b->actions[b->nr_actions++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	b->needs |= action_feature(type);
	return a;
}

static int add_action(struct pidfdspawn_builder *b, uint32_t type,
		      uint32_t flags, uint32_t fd, uint32_t newfd)
{
	struct pidfdspawn_action *a = new_action(b, type);

	if (!a)
		return -1;
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

PFS_API int pidfdspawn_builder_add_open(struct pidfdspawn_builder *b, int fd,
					const char *path, int flags,
					mode_t mode)
{
	struct pidfdspawn_action *a;

	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	if (!path) {
		errno = EINVAL;
		return -1;
	}
	a = new_action(b, PIDFDSPAWN_ACTION_OPEN);
	if (!a)
		return -1;
	/* As open(2): the kernel uses the mode only when it creates. */
	a->newfd = (uint32_t)fd;
	a->path = (uintptr_t)path;
	a->open_flags = (unsigned int)flags;
	a->mode = mode;
	return 0;
}

PFS_API int pidfdspawn_builder_add_close(struct pidfdspawn_builder *b, int fd)
{
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	return add_action(b, PIDFDSPAWN_ACTION_CLOSE, 0, (uint32_t)fd, 0);
}

PFS_API int pidfdspawn_builder_add_chdir(struct pidfdspawn_builder *b,
					 const char *path)
{
	struct pidfdspawn_action *a;

	if (!path) {
		errno = EINVAL;
		return -1;
	}
	a = new_action(b, PIDFDSPAWN_ACTION_CHDIR);
	if (!a)
		return -1;
	a->path = (uintptr_t)path;
	return 0;
}

PFS_API int pidfdspawn_builder_add_tcsetpgrp(struct pidfdspawn_builder *b,
					     int fd)
{
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	return add_action(b, PIDFDSPAWN_ACTION_TCSETPGRP, 0, (uint32_t)fd, 0);
}

/* Record attribute @flag (a POSIX_SPAWN_* bit) and the feature it needs. */
static void set_attr(struct pidfdspawn_builder *b, short flag, uint32_t feature)
{
	b->attr.flags |= flag;
	b->needs |= feature;
}

PFS_API int pidfdspawn_builder_set_sigmask(struct pidfdspawn_builder *b,
					   const sigset_t *set)
{
	if (!set) {
		errno = EINVAL;
		return -1;
	}
	b->attr.sigmask = *set;
	set_attr(b, POSIX_SPAWN_SETSIGMASK, PIDFDSPAWN_FEAT_SIGMASK);
	return 0;
}

PFS_API int pidfdspawn_builder_set_sigdefault(struct pidfdspawn_builder *b,
					      const sigset_t *set)
{
	if (!set) {
		errno = EINVAL;
		return -1;
	}
	b->attr.sigdef = *set;
	set_attr(b, POSIX_SPAWN_SETSIGDEF, PIDFDSPAWN_FEAT_SIGDEF);
	return 0;
}

PFS_API int pidfdspawn_builder_set_pgroup(struct pidfdspawn_builder *b,
					  pid_t pgroup)
{
	if (pgroup < 0) {
		errno = EINVAL;
		return -1;
	}
	b->attr.pgrp = pgroup;
	set_attr(b, POSIX_SPAWN_SETPGROUP, PIDFDSPAWN_FEAT_PGROUP);
	return 0;
}

PFS_API int pidfdspawn_builder_set_setsid(struct pidfdspawn_builder *b)
{
	set_attr(b, POSIX_SPAWN_SETSID, PIDFDSPAWN_FEAT_SETSID);
	return 0;
}

PFS_API int pidfdspawn_builder_set_resetids(struct pidfdspawn_builder *b)
{
	set_attr(b, POSIX_SPAWN_RESETIDS, PIDFDSPAWN_FEAT_RESETIDS);
	return 0;
}

PFS_API int pidfdspawn_builder_set_sched_policy(struct pidfdspawn_builder *b,
						int policy)
{
	if (policy < 0) {
		errno = EINVAL;
		return -1;
	}
	b->attr.policy = policy;
	b->sched_policy_set = 1;
	b->needs |= PIDFDSPAWN_FEAT_SCHEDULER;
	return 0;
}

PFS_API int pidfdspawn_builder_set_sched_priority(struct pidfdspawn_builder *b,
						  int priority)
{
	if (priority < 0) {
		errno = EINVAL;
		return -1;
	}
	b->attr.sp.sched_priority = priority;
	b->sched_priority_set = 1;
	b->needs |= PIDFDSPAWN_FEAT_SCHEDULER;
	return 0;
}

PFS_API int pidfdspawn_builder_set_cgroup(struct pidfdspawn_builder *b, int fd)
{
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	b->attr.cgroup = fd;
	set_attr(b, POSIX_SPAWN_SETCGROUP, PIDFDSPAWN_FEAT_CGROUP);
	return 0;
}

PFS_API int pidfdspawn_builder_set_exec_fd(struct pidfdspawn_builder *b, int fd)
{
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	/* No feature bit: the kernel's EOPNOTSUPP tells (see the run). */
	b->exec_fd = fd;
	return 0;
}

PFS_API int pidfdspawn_builder_set_search_path(struct pidfdspawn_builder *b,
					       const char *search_path)
{
	if (!search_path) {
		errno = EINVAL;
		return -1;
	}
	b->search_path = search_path;
	b->needs |= PIDFDSPAWN_FEAT_PATH_SEARCH;
	return 0;
}

PFS_API int pidfdspawn_builder_set_flags(struct pidfdspawn_builder *b,
					 unsigned int flags)
{
	if (flags & ~PIDFDSPAWN_RUN_CLOEXEC_DEFAULT) {
		errno = EINVAL;
		return -1;
	}
	b->run_flags = flags;
	b->needs &= ~PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT;
	if (flags & PIDFDSPAWN_RUN_CLOEXEC_DEFAULT)
		b->needs |= PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT;
	return 0;
}

/*
 * Stage the program and the attributes on the kernel builder @fd, as the
 * posix_spawn backend stages a request's (pfs_stage_attr()).  0 or an
 * error number.
 */
static int stage(const struct pidfdspawn_builder *b, int fd)
{
	int err = 0;

	if (b->path)
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_STRING,
				 PIDFDSPAWN_CONFIG_KEY_PATH, b->path, 0);
	if (!err && b->exec_fd >= 0)
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_FD,
				 PIDFDSPAWN_CONFIG_KEY_EXEC_FD, NULL, b->exec_fd);
	if (!err)
		err = pfs_stage_attr(fd, &b->attr, b->search_path,
				     b->sched_policy_set, b->sched_priority_set);
	return err;
}

/*
 * Nothing to stage but the path: the program is named by a path, not an
 * fd, with no search path and no attribute.  Such a builder needs no
 * kernel builder of its own, where the kernel runs one per call.
 */
static int stages_only_path(const struct pidfdspawn_builder *b)
{
	return b->path && b->exec_fd < 0 && !b->search_path && !b->attr.flags &&
	       !b->sched_policy_set && !b->sched_priority_set;
}

/*
 * One pidfd_spawn_run(-1) with the path in the arguments, which returns
 * the child's pidfd for a caller that wants it (pfs_run_nofd()).
 */
static int run_without_builder(const struct pidfdspawn_builder *b,
			       struct pidfdspawn_run_args *args, pid_t *pid,
			       int *pidfd)
{
	struct pfs_result res = { .pid = -1, .pidfd = -1 };
	int err;

	args->path = (uintptr_t)b->path;
	err = pfs_run_nofd(args, pidfd != NULL, &res);
	if (err) {
		errno = err;
		return -1;
	}
	if (pid)
		*pid = res.pid;
	if (pidfd)
		*pidfd = res.pidfd;
	return 0;
}

PFS_API int pidfdspawn_builder_run(struct pidfdspawn_builder *b, pid_t *pid,
				   int *pidfd)
{
	struct pidfdspawn_run_args args = {
		.flags = b->run_flags,
		.argv = (uintptr_t)b->argv,
		.envp = (uintptr_t)b->envp,
		.nr_actions = b->nr_actions,
		.actions = b->nr_actions ? (uintptr_t)b->actions : 0,
		.action_size = b->nr_actions ? sizeof(*b->actions) : 0,
	};
	int only_path = stages_only_path(b);
	uint32_t have;
	int fd, ret, err;
	siginfo_t si;

	if ((!b->path && b->exec_fd < 0) || !b->argv) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * A feature this kernel's builder lacks: EOPNOTSUPP before anything
	 * exists.  Every builder kernel has the RFC's three actions: a
	 * builder of only those runs without asking the probe, as before,
	 * unless it stages nothing but its path, which may then need no
	 * builder at all.  Without any builder the open below says so.
	 */
	have = (b->needs & ~RFC_FEATURES) || only_path ? pidfdspawn_probe() : 0;
	if ((have & PIDFDSPAWN_FEAT_BUILDER) && (b->needs & ~have)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (only_path &&
	    (have & (pidfd ? PIDFDSPAWN_FEAT_NOFD_PIDFD : PIDFDSPAWN_FEAT_NOFD)))
		return run_without_builder(b, &args, pid, pidfd);
	fd = pidfdspawn_open_empty(0);
	if (fd < 0) {
		/*
		 * With no flags, a kernel that has builders never answers
		 * pidfd_open(0, PIDFD_EMPTY) with EINVAL: that is a kernel
		 * without them (and ENOSYS one without pidfd_open).  Both
		 * are ENOSYS here, not to be taken for a bad argument.
		 * EPERM (a seccomp policy), EMFILE and the like pass.
		 */
		if (errno == EINVAL)
			errno = ENOSYS;
		return -1;
	}
	err = stage(b, fd);
	if (err) {
		errno = err;
		goto fail;
	}
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
