/* SPDX-License-Identifier: MIT */
/*
 * The builder backend: one posix_spawn request becomes one (or, for a PATH
 * search, one per candidate) pidfd_open(0, PIDFD_EMPTY) + pidfd_spawn_run().
 * Only called for requests whose features the probe found.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

/* Translate the posix_spawn actions into the kernel's action records. */
static int encode_actions(const struct pfs_request *req,
			  struct pidfdspawn_action *out)
{
	for (int i = 0; i < req->nr_actions; i++) {
		const struct pfs_action *a = &req->actions[i];
		struct pidfdspawn_action *k = &out[i];

		memset(k, 0, sizeof(*k));
		switch (a->kind) {
		case PFS_ACT_DUP2:
			k->type = PIDFDSPAWN_ACTION_DUP2;
			k->fd = (uint32_t)a->fd;
			k->newfd = (uint32_t)a->newfd;
			break;
		case PFS_ACT_CLOSE:
			/* close_range() ignores an unopened fd, as glibc does. */
			k->type = PIDFDSPAWN_ACTION_CLOSE_RANGE;
			k->fd = k->newfd = (uint32_t)a->fd;
			break;
		case PFS_ACT_CLOSEFROM:
			k->type = PIDFDSPAWN_ACTION_CLOSE_RANGE;
			k->fd = (uint32_t)a->fd;
			k->newfd = ~0u;
			break;
		case PFS_ACT_FCHDIR:
			k->type = PIDFDSPAWN_ACTION_FCHDIR;
			k->fd = (uint32_t)a->fd;
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
	char *const *argv;
	char *const *envp;
	struct pidfdspawn_action *actions;
	int nr_actions;
};

/*
 * One spawn attempt of @path.  A run that failed with EINTR before any
 * task existed consumed its builder but did nothing else: retry it with a
 * fresh builder, so posix_spawn never returns EINTR.
 */
static int run_path(const char *path, const struct run_plan *plan,
		    int want_pidfd, struct pfs_result *res)
{
	static char *const no_args[] = { NULL };
	struct pidfdspawn_run_args args = {
		.path = (uintptr_t)path,
		.argv = (uintptr_t)(plan->argv ? plan->argv : no_args),
		.envp = (uintptr_t)plan->envp,
		.nr_actions = (uint32_t)plan->nr_actions,
		.actions = plan->nr_actions ? (uintptr_t)plan->actions : 0,
		.action_size = plan->nr_actions ? sizeof(*plan->actions) : 0,
	};

	for (;;) {
		int fd, pid, err, had_child;

		fd = pidfdspawn_open_empty(0);
		if (fd < 0)
			return errno;
		pid = pidfdspawn_run(fd, &args, sizeof(args));
		if (pid > 0) {
			res->pid = pid;
			if (want_pidfd)
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

/* posix_spawnp around the builder: glibc's execvpe rules, see pathsearch.c. */
static int search_and_run(const struct pfs_request *req,
			  const struct run_plan *plan, struct pfs_result *res)
{
	char buf[PFS_PATH_BUF];
	struct pfs_path_walk walk;
	int got_eacces = 0, last = ENOENT, relative;

	pfs_path_walk_init(&walk, req->search_path, req->file);
	while (pfs_path_walk_next(&walk, buf, sizeof(buf), &relative)) {
		struct stat st;
		int err;

		/*
		 * An absolute candidate that does not exist would only make
		 * the child fail with the same error: skip creating it.
		 * Relative ones resolve after the child's fchdir actions.
		 */
		if (!relative && stat(buf, &st) < 0 &&
		    pfs_path_error_continues(errno))
			err = errno;
		else
			err = run_path(buf, plan, req->want_pidfd, res);
		if (!err)
			return 0;
		if (!pfs_path_error_continues(err))
			return err;
		got_eacces |= err == EACCES;
		last = err;
	}
	return got_eacces ? EACCES : last;
}

int pfs_builder_spawn(const struct pfs_request *req, struct pfs_result *res)
{
	struct pidfdspawn_action small[16], *actions = small;
	struct run_plan plan = {
		.argv = req->argv,
		.envp = req->envp,
		.nr_actions = req->nr_actions,
	};
	int err;

	if (req->nr_actions > (int)(sizeof(small) / sizeof(small[0]))) {
		actions = calloc((size_t)req->nr_actions, sizeof(*actions));
		if (!actions)
			return ENOMEM;
	}
	plan.actions = actions;
	err = encode_actions(req, actions);
	if (!err) {
		if (req->use_path && !strchr(req->file, '/'))
			err = search_and_run(req, &plan, res);
		else
			err = run_path(req->file, &plan, req->want_pidfd, res);
	}
	if (actions != small)
		free(actions);
	return err;
}
