/* SPDX-License-Identifier: MIT */
/*
 * The builder backend: one posix_spawn request becomes one
 * pidfd_open(0, PIDFD_EMPTY), a pidfd_config() per attribute (and for
 * posix_spawnp's "search-path") and one pidfd_spawn_run().  On kernels
 * that cannot search PATH, posix_spawnp runs one builder per candidate.
 * Only called for requests whose features the probe found.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

/* Translate the posix_spawn actions into the kernel's action records. */
static int encode_actions(const struct pfs_request *req, uint32_t have,
			  struct pidfdspawn_action *out)
{
	for (int i = 0; i < req->nr_actions; i++) {
		const struct pfs_action *a = &req->actions[i];
		struct pidfdspawn_action *k = &out[i];

		memset(k, 0, sizeof(*k));
		switch (a->tag) {
		case PFS_DO_OPEN:
			k->type = PIDFDSPAWN_ACTION_OPEN;
			k->newfd = (uint32_t)a->u.open.fd;
			k->path = (uintptr_t)a->u.open.path;
			k->open_flags = (unsigned int)a->u.open.oflag;
			/*
			 * open(2) uses the mode only when it creates, and
			 * then only these bits; the OPEN action rejects others.
			 */
			k->mode = a->u.open.mode & 07777;
			break;
		case PFS_DO_CLOSE:
			if (have & PIDFDSPAWN_FEAT_CLOSE) {
				/* glibc's rule: EBADF only beyond RLIMIT_NOFILE */
				k->type = PIDFDSPAWN_ACTION_CLOSE;
				k->fd = (uint32_t)a->u.close.fd;
				break;
			}
			/* close_range() ignores an unopened fd, as glibc does. */
			k->type = PIDFDSPAWN_ACTION_CLOSE_RANGE;
			k->fd = k->newfd = (uint32_t)a->u.close.fd;
			break;
		case PFS_DO_DUP2:
			k->type = PIDFDSPAWN_ACTION_DUP2;
			k->fd = (uint32_t)a->u.dup2.fd;
			k->newfd = (uint32_t)a->u.dup2.newfd;
			break;
		case PFS_DO_CHDIR:
			k->type = PIDFDSPAWN_ACTION_CHDIR;
			k->path = (uintptr_t)a->u.chdir.path;
			break;
		case PFS_DO_FCHDIR:
			/* A negative fd (accepted at add time) fails in the child. */
			k->type = PIDFDSPAWN_ACTION_FCHDIR;
			k->fd = (uint32_t)a->u.fchdir.fd;
			break;
		case PFS_DO_CLOSEFROM:
			k->type = PIDFDSPAWN_ACTION_CLOSE_RANGE;
			k->fd = (uint32_t)a->u.closefrom.from;
			k->newfd = ~0u;
			break;
		case PFS_DO_TCSETPGRP:
			k->type = PIDFDSPAWN_ACTION_TCSETPGRP;
			k->fd = (uint32_t)a->u.tcsetpgrp.fd;
			break;
		default:
			return ENOTSUP;
		}
	}
	return 0;
}

/*
 * After a failed run: if the fd became a child's pidfd, the child exits
 * 127 on its own; reap it.  Returns 1 when there was a child.
 */
static int reap_failed_child(int fd)
{
	siginfo_t si;

	while (pfs_waitid_pidfd(fd, &si, WEXITED) < 0) {
		if (errno != EINTR)
			return errno == ECHILD;	/* ECHILD: auto-reaped */
	}
	return 1;
}

struct run_plan {
	const struct pfs_request *req;
	struct pidfdspawn_action *actions;
	int nr_actions;
	uint32_t run_flags;
	const char *search_path;	/* the kernel's PATH search, or NULL */
	int nofd;			/* run with no builder fd, see run_nofd() */
};

/* pidfd_config(): 0 or an error number. */
int pfs_config(int fd, unsigned int cmd, const char *key, const void *value,
	       int aux)
{
	return pidfdspawn_config(fd, cmd, key, value, aux) < 0 ? errno : 0;
}

/*
 * Stage @at's attributes (and @search_path, the kernel's PATH search, if
 * set) on a fresh builder; the kernel applies them in glibc's order
 * (signal defaults, scheduling, setsid, process group, ids, then the file
 * actions, then the mask).  Without SETSIGMASK the kernel gives the child
 * the caller's mask, as glibc does.  A signal set is passed as the
 * kernel's 64-bit sigset_t: the first word of glibc's.  The kernel does
 * sched_setscheduler(0, policy, &sp) with a policy (@policy),
 * sched_setparam(0, &sp) with the priority (@priority) alone.  Shared by
 * the posix_spawn backend and the builder API.  0 or an error number; an
 * error leaves no task behind.
 */
int pfs_stage_attr(int fd, const struct pfs_attr *at, const char *search_path,
		   int policy, int priority)
{
	short flags = at->flags;
	int err = 0;

	if (search_path)
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_STRING,
				 PIDFDSPAWN_CONFIG_KEY_SEARCH_PATH, search_path,
				 0);
	if (!err && (flags & POSIX_SPAWN_SETSIGDEF))
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_BINARY,
				 PIDFDSPAWN_CONFIG_KEY_SIGDEFAULT, &at->sigdef,
				 PIDFDSPAWN_SIGSET_SIZE);
	if (!err && (flags & POSIX_SPAWN_SETSIGMASK)) {
		/* glibc's child never blocks its internal signals 32 and 33. */
		sigset_t mask = at->sigmask;

		pfs_sigset_del_internal(&mask);
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_BINARY,
				 PIDFDSPAWN_CONFIG_KEY_SIGMASK, &mask,
				 PIDFDSPAWN_SIGSET_SIZE);
	}
	if (!err && policy)
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_INT,
				 PIDFDSPAWN_CONFIG_KEY_SCHED_POLICY, NULL,
				 at->policy);
	if (!err && priority)
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_INT,
				 PIDFDSPAWN_CONFIG_KEY_SCHED_PRIORITY, NULL,
				 at->sp.sched_priority);
	if (!err && (flags & POSIX_SPAWN_SETSID))
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_FLAG,
				 PIDFDSPAWN_CONFIG_KEY_SETSID, NULL, 0);
	if (!err && (flags & POSIX_SPAWN_SETPGROUP))
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_INT,
				 PIDFDSPAWN_CONFIG_KEY_PGROUP, NULL, at->pgrp);
	if (!err && (flags & POSIX_SPAWN_RESETIDS))
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_FLAG,
				 PIDFDSPAWN_CONFIG_KEY_RESETIDS, NULL, 0);
	if (!err && (flags & POSIX_SPAWN_SETCGROUP))
		err = pfs_config(fd, PIDFDSPAWN_CONFIG_SET_FD,
				 PIDFDSPAWN_CONFIG_KEY_CGROUP, NULL, at->cgroup);
	return err;
}

static int configure(int fd, const struct run_plan *plan)
{
	short flags = plan->req->attr->flags;

	return pfs_stage_attr(fd, plan->req->attr, plan->search_path,
			      flags & POSIX_SPAWN_SETSCHEDULER,
			      flags & (POSIX_SPAWN_SETSCHEDULER |
				       POSIX_SPAWN_SETSCHEDPARAM));
}

/*
 * Whether the child's actions would read descriptor @fd as the caller's:
 * a DUP2 from it, an FCHDIR or a TCSETPGRP on it before any action put
 * something at that number (OPEN, DUP2 onto it) or closed it.
 */
static int actions_read_inherited(const struct pfs_request *req, int fd)
{
	for (int i = 0; i < req->nr_actions; i++) {
		const struct pfs_action *a = &req->actions[i];

		switch (a->tag) {
		case PFS_DO_DUP2:
			if (a->u.dup2.fd == fd)
				return 1;
			if (a->u.dup2.newfd == fd)
				return 0;
			break;
		case PFS_DO_FCHDIR:
			if (a->u.fchdir.fd == fd)
				return 1;
			break;
		case PFS_DO_TCSETPGRP:
			if (a->u.tcsetpgrp.fd == fd)
				return 1;
			break;
		case PFS_DO_OPEN:
			if (a->u.open.fd == fd)
				return 0;
			break;
		case PFS_DO_CLOSE:
			if (a->u.close.fd == fd)
				return 0;
			break;
		case PFS_DO_CLOSEFROM:
			if (a->u.closefrom.from >= 0 && a->u.closefrom.from <= fd)
				return 0;
			break;
		case PFS_DO_CHDIR:
			break;
		}
	}
	return 0;
}

/* The highest descriptor number an action names, or -1. */
static int highest_named_fd(const struct pfs_request *req)
{
	int max = -1;

	for (int i = 0; i < req->nr_actions; i++) {
		const struct pfs_action *a = &req->actions[i];
		int n1 = -1, n2 = -1;

		switch (a->tag) {
		case PFS_DO_CLOSE: n1 = a->u.close.fd; break;
		case PFS_DO_DUP2: n1 = a->u.dup2.fd; n2 = a->u.dup2.newfd; break;
		case PFS_DO_OPEN: n1 = a->u.open.fd; break;
		case PFS_DO_FCHDIR: n1 = a->u.fchdir.fd; break;
		case PFS_DO_CLOSEFROM: n1 = a->u.closefrom.from; break;
		case PFS_DO_TCSETPGRP: n1 = a->u.tcsetpgrp.fd; break;
		case PFS_DO_CHDIR: break;
		}
		if (n1 > max)
			max = n1;
		if (n2 > max)
			max = n2;
	}
	return max;
}

/*
 * The child inherits the caller's descriptors, the builder's own among
 * them: pidfd_open() took the lowest free number, which may be one the
 * caller left closed and an action reads (glibc's child then fails with
 * EBADF; the builder's would dup2() or fchdir() the builder).  Move the
 * builder above every number the actions name (or, beyond RLIMIT_NOFILE,
 * to the first number no action reads) and close the old one.  The new
 * fd, or -1 with errno set (EMFILE when there is no room) and @fd closed.
 */
static int move_builder_fd(const struct pfs_request *req, int fd)
{
	int start = highest_named_fd(req) + 1, nfd, err;

	if (start <= fd)
		start = fd + 1;
	for (;;) {
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, start);
		if (nfd < 0 && (errno == EINVAL || errno == EMFILE) &&
		    start > fd + 1) {
			start = fd + 1;	/* over the limit: search upwards */
			continue;
		}
		if (nfd < 0 || !actions_read_inherited(req, nfd))
			break;
		close(nfd);
		start = nfd + 1;
	}
	err = nfd < 0 ? (errno == EINVAL ? EMFILE : errno) : 0;
	close(fd);
	errno = err;
	return nfd;
}

/*
 * The attributes pfs_stage_attr() stages on a builder: all but USEVFORK
 * (ignored, as glibc ignores it) and CLOEXEC_DEFAULT_NP (a run flag).
 */
#define STAGED_FLAGS (PFS_ALL_FLAGS & \
		      ~(POSIX_SPAWN_USEVFORK | POSIX_SPAWN_CLOEXEC_DEFAULT_NP))

/*
 * A request that stages nothing runs with no builder fd at all, where the
 * kernel can: one system call, and no fd taken from the caller's table,
 * so that it also works where every fd is taken, as glibc's posix_spawn
 * does (PIDFDSPAWN_FEAT_NOFD).  One that wants the child's pidfd
 * (pidfd_spawn) gets it from the same call, where the kernel can return
 * one (PIDFDSPAWN_FEAT_NOFD_PIDFD), as glibc's clone3 gives it.
 */
static int can_run_nofd(const struct pfs_request *req, uint32_t have,
			const char *search_path)
{
	uint32_t need = req->want_pidfd ? PIDFDSPAWN_FEAT_NOFD_PIDFD :
					  PIDFDSPAWN_FEAT_NOFD;

	return (have & need) && !search_path &&
	       !(req->attr->flags & STAGED_FLAGS);
}

/*
 * pidfd_spawn_run(-1, PIDFD_SPAWN_RUN_NOFD), with PIDFD_SPAWN_RUN_PIDFD
 * for a caller that wants the child's pidfd, which the call then
 * returns.  The kernel stores the child's pid before the child runs: a
 * child that failed its setup exits 127 on its own and is reaped here, as
 * glibc's posix_spawn reaps it.  A pending signal restarts the call in
 * the kernel: no EINTR to retry.  Shared by the posix_spawn backend and
 * the builder API.
 */
int pfs_run_nofd(struct pidfdspawn_run_args *args, int want_pidfd,
		 struct pfs_result *res)
{
	int child = 0, err, status, ret;

	args->flags |= PIDFDSPAWN_RUN_NOFD;
	if (want_pidfd)
		args->flags |= PIDFDSPAWN_RUN_PIDFD;
	args->pid = (uintptr_t)&child;
	ret = pidfdspawn_run(-1, args, sizeof(*args));
	if (ret >= 0 && want_pidfd) {
		res->pid = child;
		res->pidfd = ret;
		return 0;
	}
	if (ret > 0) {
		res->pid = ret;
		return 0;
	}
	err = errno;
	if (child > 0) {
		res->task_created = 1;
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	return err;
}

/*
 * One spawn attempt of @path.  A run that failed with EINTR before any
 * task existed consumed its builder but did nothing else: retry it with a
 * fresh builder, so posix_spawn never returns EINTR.
 */
static int run_path(const char *path, const struct run_plan *plan,
		    struct pfs_result *res)
{
	static char *const no_args[] = { NULL };
	const struct pfs_request *req = plan->req;
	struct pidfdspawn_run_args args = {
		.flags = plan->run_flags,
		.path = (uintptr_t)path,
		.argv = (uintptr_t)(req->argv ? req->argv : no_args),
		.envp = (uintptr_t)req->envp,
		.nr_actions = (uint32_t)plan->nr_actions,
		.actions = plan->nr_actions ? (uintptr_t)plan->actions : 0,
		.action_size = plan->nr_actions ? sizeof(*plan->actions) : 0,
	};

	if (plan->nofd)
		return pfs_run_nofd(&args, req->want_pidfd, res);
	for (;;) {
		int fd, pid, err, had_child;

		fd = pfs_open_builder();
		if (fd >= 0 && req->nr_actions &&
		    actions_read_inherited(req, fd))
			fd = move_builder_fd(req, fd);
		if (fd < 0)
			return errno;
		err = configure(fd, plan);
		if (err) {
			close(fd);
			return err;
		}
		pid = pidfdspawn_run(fd, &args, PIDFDSPAWN_RUN_SIZE_VER0);
		if (pid > 0) {
			res->pid = pid;
			if (req->want_pidfd)
				res->pidfd = fd;
			else
				close(fd);
			return 0;
		}
		err = errno;
		had_child = reap_failed_child(fd);
		close(fd);
		res->task_created |= had_child;
		if (err != EINTR || had_child)
			return err;
	}
}

/*
 * posix_spawnp around the builder, for kernels without "search-path" (or a
 * PATH too long for it): glibc's execvpe rules, see pathsearch.c.
 */
static int search_and_run(const struct run_plan *plan, struct pfs_result *res)
{
	const struct pfs_request *req = plan->req;
	char buf[PFS_PATH_BUF];
	struct pfs_path_walk walk;
	int got_eacces = 0, relative, last, ran = 0, skipped = 0, err;

	last = pfs_path_nothing_tried(pfs_child_errno(req));
	pfs_path_walk_init(&walk, req->search_path, req->file);
	while (pfs_path_walk_next(&walk, buf, sizeof(buf), &relative)) {
		struct stat st;

		/*
		 * An absolute candidate that does not exist would only make
		 * the child fail with the same error, once its actions have
		 * run: skip creating it.  Relative ones resolve after the
		 * child's chdir actions.
		 */
		skipped = !relative && stat(buf, &st) < 0 &&
			  pfs_path_error_continues(errno);
		if (skipped) {
			err = errno;
		} else {
			err = run_path(buf, plan, res);
			ran = 1;
		}
		if (!err)
			return 0;
		if (!pfs_path_error_continues(err))
			return err;
		got_eacces |= err == EACCES;
		last = err;
	}
	/*
	 * Every candidate skipped: glibc's child would still have run the
	 * actions, and a failing one gives its own error.  Run the last
	 * candidate (still in @buf) for that: its exec fails as its stat did.
	 */
	if (skipped && !ran) {
		err = run_path(buf, plan, res);
		return err && got_eacces && pfs_path_error_continues(err) ?
		       EACCES : err;
	}
	return got_eacces ? EACCES : last;
}

/*
 * glibc's old posix_spawn[p] (try_shell): a program the exec refused with
 * ENOEXEC (a script without "#!") is run as /bin/sh FILE ARGV[1]... .
 * glibc does it in the same child, after the file actions; here a second
 * run repeats them from the caller's state, which is the same for every
 * action but an open (O_EXCL, O_TRUNC, a FIFO): requests with an open
 * are left to the fallback (pfs_request_needs_with).  The first child
 * has exited 127 and been reaped.
 */
static int run_shell(const struct run_plan *plan, struct pfs_result *res)
{
	struct pfs_request sh = *plan->req;
	struct run_plan shell_plan = *plan;
	char **argv = pfs_shell_argv(plan->req);
	int err;

	if (!argv)
		return ENOMEM;
	sh.file = "/bin/sh";
	sh.argv = argv;
	sh.use_path = 0;
	sh.try_shell = 0;
	shell_plan.req = &sh;
	shell_plan.search_path = NULL;
	err = run_path(sh.file, &shell_plan, res);
	free(argv);
	return err;
}

/*
 * The "search-path" for a request pfs_kernel_search() accepted: the
 * caller's PATH itself (or NULL: none), or, where an entry is PATH_MAX
 * bytes or more, a malloc'd copy as glibc walks it (see pathsearch.c).
 */
static int kernel_search_path(const struct pfs_request *req, char **out)
{
	const char *path = req->search_path;
	size_t len;

	*out = (char *)path;
	if (!path)
		return 0;
	len = strlen(path);
	if ((size_t)pfs_kernel_search_path(path, req->file, NULL) == len)
		return 0;	/* the usual case: PATH as it is */
	*out = malloc(len + 1);
	if (!*out)
		return ENOMEM;
	pfs_kernel_search_path(path, req->file, *out);
	return 0;
}

int pfs_builder_spawn(const struct pfs_request *req, struct pfs_result *res)
{
	struct pidfdspawn_action small[16], *actions = small;
	uint32_t have = pidfdspawn_probe();
	char *search_path = (char *)req->search_path;
	struct run_plan plan = {
		.req = req,
		.nr_actions = req->nr_actions,
	};
	int err;

	/* clone3() refuses a cgroup fd above INT_MAX (glibc's EINVAL). */
	if ((req->attr->flags & POSIX_SPAWN_SETCGROUP) && req->attr->cgroup < 0)
		return EINVAL;
	if (req->attr->flags & POSIX_SPAWN_CLOEXEC_DEFAULT_NP)
		plan.run_flags |= PIDFDSPAWN_RUN_CLOEXEC_DEFAULT;
	if (req->nr_actions > (int)(sizeof(small) / sizeof(small[0]))) {
		actions = calloc((size_t)req->nr_actions, sizeof(*actions));
		if (!actions)
			return ENOMEM;
	}
	plan.actions = actions;
	err = encode_actions(req, have, actions);
	plan.nofd = can_run_nofd(req, have, NULL);
	if (!err) {
		if (!pfs_searches(req)) {
			err = run_path(req->file, &plan, res);
		} else if (pfs_kernel_search(req, have)) {
			/*
			 * One run; the child searches after its file actions.
			 * A PATH with entries of PATH_MAX bytes or more is
			 * given as glibc walks it (pfs_kernel_search_path).
			 */
			err = kernel_search_path(req, &search_path);
			plan.search_path = search_path;
			plan.nofd = can_run_nofd(req, have, search_path);
			if (!err)
				err = run_path(req->file, &plan, res);
		} else {
			err = search_and_run(&plan, res);
		}
	}
	if (err == ENOEXEC && req->try_shell)
		err = run_shell(&plan, res);
	if (actions != small)
		free(actions);
	if (search_path != req->search_path)
		free(search_path);
	return err;
}
