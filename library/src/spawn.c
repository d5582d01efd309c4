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
 *                   task with ENOSYS or EPERM (e.g. a caller that is not
 *                   the builder's creator), or at its own limits: E2BIG
 *                   (more file actions than the kernel takes),
 *                   EMFILE/ENFILE (no fd for the builder itself);
 *   builder         the builder or ENOTSUP, never the fallback, except for
 *                   posix_spawnp of "" or of a name over NAME_MAX, or with
 *                   a PATH that gives no candidate, which glibc fails only
 *                   after the file actions and the kernel's builder cannot
 *                   (pfs_search_fails_in_child);
 *   fallback        always the fallback, without probing: system calls
 *                   472/473 are never made;
 *   anything else   ignored (auto), said once on PIDFDSPAWN_TRACE_FD.
 * Both variables are read with secure_getenv().
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
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

enum mode { MODE_AUTO, MODE_BUILDER, MODE_FALLBACK };

/*
 * The knobs are read with secure_getenv(): a set-user-ID program must not
 * let its caller pick its backend or make it write to a descriptor.
 */
static int trace_fd(void)
{
	const char *v = secure_getenv("PIDFDSPAWN_TRACE_FD");

	return v && *v ? atoi(v) : -1;
}

/* Said once per process: an unknown PIDFDSPAWN_BACKEND was ignored. */
static int unknown_noted;

static enum mode backend_mode(void)
{
	const char *v = secure_getenv("PIDFDSPAWN_BACKEND");
	char line[160];
	int fd, n;

	if (!v || !*v || strcmp(v, "auto") == 0)
		return MODE_AUTO;
	if (strcmp(v, "builder") == 0)
		return MODE_BUILDER;
	if (strcmp(v, "fallback") == 0)
		return MODE_FALLBACK;
	/* A typo must not make every spawn fail: auto, and say so. */
	fd = trace_fd();
	if (fd >= 0 && !__atomic_exchange_n(&unknown_noted, 1, __ATOMIC_RELAXED)) {
		n = snprintf(line, sizeof(line),
			     "pidfdspawn: unknown PIDFDSPAWN_BACKEND=%.64s ignored, using auto\n",
			     v);
		if (n > 0)
			(void)!write(fd, line, (size_t)n < sizeof(line) ?
				     (size_t)n : sizeof(line) - 1);
	}
	return MODE_AUTO;
}

static void trace(const char *fn, const struct pfs_request *req,
		  enum mode mode, uint32_t needs, int err,
		  const struct pfs_result *res)
{
	static const char *const modes[] = {
		[MODE_AUTO] = "auto", [MODE_BUILDER] = "builder",
		[MODE_FALLBACK] = "fallback",
	};
	char line[PATH_MAX + 176];
	int fd = trace_fd(), n;

	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line),
		     "pidfdspawn: %s file=%s backend=%s needs=0x%x err=%d pid=%d mode=%s\n",
		     fn, req->file, pidfdspawn_backend_name(last_backend),
		     needs, err, err ? -1 : (int)res->pid, modes[mode]);
	if (n > 0)
		(void)!write(fd, line, (size_t)n < sizeof(line) ? (size_t)n :
			     sizeof(line) - 1);
}

/*
 * Errors of the builder that glibc's posix_spawn never gives for the same
 * request, when no task was created: no builder after all (ENOSYS), the
 * builder refused the caller (EPERM: not its creator; kernels before the
 * series' patch 72 also refused a traced caller), the builder's own
 * limits (E2BIG: the action array is larger than the kernel takes; EMFILE
 * and ENFILE: the builder's fd could not be allocated, at RLIMIT_NOFILE).
 * The fallback needs no descriptor for posix_spawn and has no action
 * limit, so it serves these as glibc would.
 */
static int builder_refusal(int err)
{
	switch (err) {
	case ENOSYS:
	case EPERM:
	case E2BIG:
	case EMFILE:
	case ENFILE:
		return 1;
	}
	return 0;
}

/* The builder, or ENOTSUP/-1 meaning "use the fallback". */
static int choose_and_spawn(const struct pfs_request *req, enum mode mode,
			    uint32_t needs, struct pfs_result *res)
{
	int err;

	if (mode != MODE_FALLBACK) {
		int can = (needs & ~pidfdspawn_probe()) == 0;

		if (!can && mode == MODE_BUILDER &&
		    !pfs_search_fails_in_child(req))
			return ENOTSUP;
		if (can) {
			last_backend = PIDFDSPAWN_BACKEND_BUILDER;
			err = pfs_builder_spawn(req, res);
			if (mode == MODE_BUILDER || res->task_created ||
			    !builder_refusal(err))
				return err;
		}
	}
	last_backend = PIDFDSPAWN_BACKEND_FALLBACK;
	return pfs_fallback_spawn(req, res);
}

static int do_spawn(const char *fn, pid_t *pid, int *pidfd, const char *file,
		    int use_path, const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attrp, char *const argv[],
		    char *const envp[], int try_shell)
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
		.try_shell = try_shell,
	};
	int saved_errno = errno, err, cancel_state;
	enum mode mode;
	uint32_t needs;

	/*
	 * As glibc: posix_spawn is not a cancellation point.  Nothing inside
	 * (the builder's close, the trace's write) may act on a pending
	 * cancellation, above all once the child exists: its pid would be
	 * lost with the unwound caller.
	 */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	mode = backend_mode();

	req.entry_errno = saved_errno;
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
	/* A forced fallback never probes: it never touches the builder. */
	needs = mode == MODE_FALLBACK ? pfs_request_needs_with(&req, 0) :
		pfs_request_needs(&req);

	/*
	 * As glibc: an empty name or one over NAME_MAX fails in the child,
	 * after the file actions (whose error wins), not before.
	 */
	err = choose_and_spawn(&req, mode, needs, &res);

	if (!err) {
		if (pid)
			*pid = res.pid;
		if (pidfd)
			*pidfd = res.pidfd;
	}
	trace(fn, &req, mode, needs, err, &res);
	pthread_setcancelstate(cancel_state, NULL);
	errno = saved_errno;
	return err;
}

PFS_API uint32_t pidfdspawn_request_features(
	const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
	int use_path)
{
	static const struct pfs_attr no_attr;
	/*
	 * No file is named here: an ordinary name stands for it, so that only
	 * the request itself decides (not the "" or over-long names that
	 * always go to the fallback).
	 */
	struct pfs_request req = {
		.file = "x",
		.use_path = use_path,
		.attr = attr ? pfs_at(attr) : &no_attr,
	};

	if (fa) {
		req.actions = pfs_fa(fa)->actions;
		req.nr_actions = pfs_fa(fa)->used;
	}
	return pfs_request_needs(&req);
}

int pfs_posix_spawn(pid_t *pid, const char *file, int use_path,
		    const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attrp, char *const argv[],
		    char *const envp[], int try_shell)
{
	return do_spawn(use_path ? "posix_spawnp" : "posix_spawn", pid, NULL,
			file, use_path, fa, attrp, argv, envp, try_shell);
}

PFS_API int posix_spawn(pid_t *pid, const char *path,
			const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attrp, char *const argv[],
			char *const envp[])
{
	return pfs_posix_spawn(pid, path, 0, fa, attrp, argv, envp, 0);
}

PFS_API int posix_spawnp(pid_t *pid, const char *file,
			 const posix_spawn_file_actions_t *fa,
			 const posix_spawnattr_t *attrp, char *const argv[],
			 char *const envp[])
{
	return pfs_posix_spawn(pid, file, 1, fa, attrp, argv, envp, 0);
}

PFS_API int pidfd_spawn(int *pidfd, const char *path,
			const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attrp, char *const argv[],
			char *const envp[])
{
	return do_spawn("pidfd_spawn", NULL, pidfd, path, 0, fa, attrp, argv,
			envp, 0);
}

PFS_API int pidfd_spawnp(int *pidfd, const char *file,
			 const posix_spawn_file_actions_t *fa,
			 const posix_spawnattr_t *attrp, char *const argv[],
			 char *const envp[])
{
	return do_spawn("pidfd_spawnp", NULL, pidfd, file, 1, fa, attrp, argv,
			envp, 0);
}
