/* SPDX-License-Identifier: MIT */
/*
 * Layer 3: the posix_spawn family.  Each call is turned into a struct
 * pfs_request, a backend is chosen for it, and the outcome is recorded
 * for pidfdspawn_last_backend() and PIDFDSPAWN_TRACE_FD.
 *
 * Backend choice (PIDFDSPAWN_BACKEND):
 *   auto (default)  builder when the probe found every feature the request
 *                   needs (pfs_request_needs), otherwise the fallback; also
 *                   the fallback when the builder refuses before creating a
 *                   task with ENOSYS or EPERM (e.g. the caller is being
 *                   ptraced);
 *   builder         the builder or ENOTSUP, never the fallback;
 *   fallback        always the fallback.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static __thread enum pidfdspawn_backend last_backend;

void pfs_set_last_backend(enum pidfdspawn_backend b)
{
	last_backend = b;
}

PFS_API enum pidfdspawn_backend pidfdspawn_last_backend(void)
{
	return last_backend;
}

PFS_API const char *pidfdspawn_backend_name(enum pidfdspawn_backend backend)
{
	switch (backend) {
	case PIDFDSPAWN_BACKEND_NONE:
		return "none";
	case PIDFDSPAWN_BACKEND_BUILDER:
		return "builder";
	case PIDFDSPAWN_BACKEND_FALLBACK:
		return "fallback";
	}
	return "?";
}

enum mode { MODE_AUTO, MODE_BUILDER, MODE_FALLBACK, MODE_INVALID };

static enum mode backend_mode(void)
{
	const char *v = getenv("PIDFDSPAWN_BACKEND");

	if (!v || !*v || strcmp(v, "auto") == 0)
		return MODE_AUTO;
	if (strcmp(v, "builder") == 0)
		return MODE_BUILDER;
	if (strcmp(v, "fallback") == 0)
		return MODE_FALLBACK;
	return MODE_INVALID;
}

static void trace(const char *fn, const struct pfs_request *req,
		  uint32_t needs, int err, const struct pfs_result *res)
{
	const char *v = getenv("PIDFDSPAWN_TRACE_FD");
	char line[PATH_MAX + 176];
	int fd, n;

	if (!v || !*v)
		return;
	fd = atoi(v);
	static const char *const modes[] = {
		[MODE_AUTO] = "auto", [MODE_BUILDER] = "builder",
		[MODE_FALLBACK] = "fallback", [MODE_INVALID] = "invalid",
	};
	n = snprintf(line, sizeof(line),
		     "pidfdspawn: %s file=%s backend=%s needs=0x%x err=%d pid=%d mode=%s\n",
		     fn, req->file, pidfdspawn_backend_name(last_backend),
		     needs, err, err ? -1 : (int)res->pid, modes[backend_mode()]);
	if (n > 0)
		(void)!write(fd, line, (size_t)n < sizeof(line) ? (size_t)n :
			     sizeof(line) - 1);
}

/* The builder, or ENOTSUP/-1 meaning "use the fallback". */
static int choose_and_spawn(const struct pfs_request *req, uint32_t needs,
			    struct pfs_result *res)
{
	enum mode mode = backend_mode();
	int err;

	if (mode == MODE_INVALID)
		return EINVAL;
	if (mode != MODE_FALLBACK) {
		int can = (needs & ~pidfdspawn_probe()) == 0;

		if (!can && mode == MODE_BUILDER)
			return ENOTSUP;
		if (can) {
			last_backend = PIDFDSPAWN_BACKEND_BUILDER;
			err = pfs_builder_spawn(req, res);
			if (mode == MODE_BUILDER || res->task_created ||
			    (err != ENOSYS && err != EPERM))
				return err;
		}
	}
	last_backend = PIDFDSPAWN_BACKEND_FALLBACK;
	return pfs_fallback_spawn(req, res);
}

static int do_spawn(const char *fn, pid_t *pid, int *pidfd, const char *file,
		    int use_path, const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attrp, char *const argv[],
		    char *const envp[])
{
	static const struct pfs_attr no_attr;
	struct pfs_result res = { .pid = -1, .pidfd = -1 };
	struct pfs_request req = {
		.file = file,
		.use_path = use_path,
		.attr = attrp ? pfs_at(attrp) : &no_attr,
		.argv = argv,
		.envp = envp,
		.want_pidfd = pidfd != NULL,
	};
	int saved_errno = errno, err;
	uint32_t needs;

	if (fa) {
		req.actions = pfs_fa(fa)->actions;
		req.nr_actions = pfs_fa(fa)->used;
	}
	if (use_path) {
		req.search_path = getenv("PATH");
		if (!req.search_path)
			req.search_path = PFS_DEFAULT_PATH;
	}
	last_backend = PIDFDSPAWN_BACKEND_NONE;
	needs = pfs_request_needs(&req);

	if (use_path && !strchr(file, '/') && strlen(file) > NAME_MAX)
		err = ENAMETOOLONG;
	else if (use_path && !*file)
		err = ENOENT;
	else
		err = choose_and_spawn(&req, needs, &res);

	if (!err) {
		if (pid)
			*pid = res.pid;
		if (pidfd)
			*pidfd = res.pidfd;
	}
	trace(fn, &req, needs, err, &res);
	errno = saved_errno;
	return err;
}

PFS_API uint32_t pidfdspawn_request_features(
	const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
	int use_path)
{
	static const struct pfs_attr no_attr;
	struct pfs_request req = {
		.file = "",
		.use_path = use_path,
		.attr = attr ? pfs_at(attr) : &no_attr,
	};

	if (fa) {
		req.actions = pfs_fa(fa)->actions;
		req.nr_actions = pfs_fa(fa)->used;
	}
	return pfs_request_needs(&req);
}

PFS_API int posix_spawn(pid_t *pid, const char *path,
			const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attrp, char *const argv[],
			char *const envp[])
{
	return do_spawn("posix_spawn", pid, NULL, path, 0, fa, attrp, argv,
			envp);
}

PFS_API int posix_spawnp(pid_t *pid, const char *file,
			 const posix_spawn_file_actions_t *fa,
			 const posix_spawnattr_t *attrp, char *const argv[],
			 char *const envp[])
{
	return do_spawn("posix_spawnp", pid, NULL, file, 1, fa, attrp, argv,
			envp);
}

PFS_API int pidfd_spawn(int *pidfd, const char *path,
			const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attrp, char *const argv[],
			char *const envp[])
{
	return do_spawn("pidfd_spawn", NULL, pidfd, path, 0, fa, attrp, argv,
			envp);
}

PFS_API int pidfd_spawnp(int *pidfd, const char *file,
			 const posix_spawn_file_actions_t *fa,
			 const posix_spawnattr_t *attrp, char *const argv[],
			 char *const envp[])
{
	return do_spawn("pidfd_spawnp", NULL, pidfd, file, 1, fa, attrp, argv,
			envp);
}
