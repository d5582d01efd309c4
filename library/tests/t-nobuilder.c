/* SPDX-License-Identifier: MIT */
/*
 * What the builder API says about the kernel (issue 35, item 4): the run
 * is ENOSYS when the running kernel has no spawn builder at all,
 * EOPNOTSUPP when its builder lacks something the request uses, and
 * EINVAL only for invalid arguments, whatever the kernel.  The probe
 * (pidfdspawn_probe()) decides which case this kernel is, and every case
 * asserts what must happen there: on a host without the builder the
 * ENOSYS answers, in a guest with it the spawns themselves.  Where
 * PIDFDSPAWN_EXPECT_BUILDER is set, the probe must agree with it.
 * The syscall wrappers stay thin: pidfd_open(0, PIDFD_EMPTY) on a kernel
 * without builders is the kernel's own EINVAL.
 */
#include <dirent.h>
#include <sys/syscall.h>

#include "tap.h"

static uint32_t probed;
static int has_builder;
static int devnull = -1;

static const char *errname(int err)
{
	switch (err) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOENT: return "ENOENT";
	case EBADF: return "EBADF";
	case EPERM: return "EPERM";
	}
	return strerror(err);
}

/* A builder of the helper (exit status 5), its stdout on /dev/null. */
static struct pidfdspawn_builder *helper_builder(const char *path)
{
	static char *argv[] = { "helper", "5", NULL };
	struct pidfdspawn_builder *b = pidfdspawn_builder_new();

	if (!b)
		abort();
	if (path)
		pidfdspawn_builder_set_path(b, path);
	pidfdspawn_builder_set_argv(b, argv);
	pidfdspawn_builder_set_envp(b, environ);
	return b;
}

/*
 * Run and free @b: 0 with *status the child's exit status, or the run's
 * errno; *untouched says whether a failed run left pid and pidfd alone.
 */
static int run(struct pidfdspawn_builder *b, int want_pidfd, int *status,
	       int *untouched)
{
	pid_t pid = -42;
	int pidfd = -42, err, ret, saved;
	siginfo_t si = { 0 };

	*status = -1;
	*untouched = 1;
	/* The helper's report is not TAP: its stdout is /dev/null. */
	fflush(stdout);
	saved = dup(1);
	dup2(devnull, 1);
	ret = pidfdspawn_builder_run(b, &pid, want_pidfd ? &pidfd : NULL);
	err = ret < 0 ? errno : 0;
	dup2(saved, 1);
	close(saved);
	if (ret < 0) {
		*untouched = pid == -42 && pidfd == -42;
	} else if (want_pidfd) {
		if (syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) == 0 &&
		    si.si_pid == pid)
			*status = si.si_status;
		close(pidfd);
	} else {
		*status = wait_status(pid);
	}
	pidfdspawn_builder_free(b);
	return err;
}

/*
 * The answer a run must give: where the kernel has a builder @builder_err
 * (0: the run must succeed with status 5), else ENOSYS.
 */
static void expect(struct pidfdspawn_builder *b, int want_pidfd,
		   int builder_err, const char *what)
{
	int want = has_builder ? builder_err : ENOSYS;
	int status, untouched, err = run(b, want_pidfd, &status, &untouched);

	if (want == 0)
		ok(err == 0 && status == 5, "%s: the child runs (%s, status %d)",
		   what, errname(err), status);
	else
		ok(err == want && untouched, "%s: the run is %s (%s)%s", what,
		   errname(want), errname(err),
		   untouched ? "" : ", but pid or pidfd was written");
}

/* A feature the probe knows, the builder API can ask for, and the kernel lacks. */
static uint32_t missing(uint32_t feature)
{
	return !(probed & feature);
}

/*
 * In a child forked before any probe: runs whose first kernel question
 * is the run's own, a plain one and one beyond the RFC's builder, then
 * the probe.  0, or bits saying which answer was wrong.
 */
static int first_calls(void)
{
	static char *argv[] = { "true", NULL };
	struct pidfdspawn_builder *b = pidfdspawn_builder_new();
	int fails = 0, r1, e1, r2, e2, has;
	pid_t pid;

	pidfdspawn_builder_set_path(b, "/bin/true");
	pidfdspawn_builder_set_argv(b, argv);
	pidfdspawn_builder_add_close_range(b, 3, ~0u, 0);
	r1 = pidfdspawn_builder_run(b, &pid, NULL);
	e1 = r1 < 0 ? errno : 0;
	if (r1 == 0)
		wait_status(pid);
	pidfdspawn_builder_set_setsid(b);
	r2 = pidfdspawn_builder_run(b, &pid, NULL);
	e2 = r2 < 0 ? errno : 0;
	if (r2 == 0)
		wait_status(pid);
	pidfdspawn_builder_free(b);
	has = (pidfdspawn_probe() & PIDFDSPAWN_FEAT_BUILDER) != 0;
	if (e1 != (has ? 0 : ENOSYS))
		fails |= 1;
	if (e2 != (has ? ((pidfdspawn_probe() & PIDFDSPAWN_FEAT_SETSID) ? 0 :
			  EOPNOTSUPP) : ENOSYS))
		fails |= 2;
	return fails;
}

int main(void)
{
	const char *env = getenv("PIDFDSPAWN_EXPECT_BUILDER");
	int fd, err, status, untouched, before, st;
	struct pidfdspawn_builder *b;
	pid_t first_pid;

	first_pid = fork();
	if (first_pid == 0)
		_exit(first_calls());
	tap_plan(11);
	probed = pidfdspawn_probe();
	has_builder = (probed & PIDFDSPAWN_FEAT_BUILDER) != 0;
	diag("this kernel has %s spawn builder (probe 0x%x)",
	     has_builder ? "a" : "no", probed);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	before = count_fds();

	/* 1: the probe against the expectation and the wrapper. */
	fd = pidfdspawn_open_empty(0);
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	if (has_builder)
		ok(fd >= 0 && (!env || (expected_builder_features() &
					PIDFDSPAWN_FEAT_BUILDER)),
		   "the probe finds a builder: pidfd_open(0, PIDFD_EMPTY) gives "
		   "one (%s)%s", errname(err),
		   env ? ", as PIDFDSPAWN_EXPECT_BUILDER says" : "");
	else
		ok(probed == 0 && fd < 0 && (err == EINVAL || err == ENOSYS) &&
		   (!env || !(expected_builder_features() &
			      PIDFDSPAWN_FEAT_BUILDER)),
		   "no builder: the probe finds nothing, the thin wrapper "
		   "pidfdspawn_open_empty(0) is the kernel's %s%s",
		   errname(err), env ? ", as PIDFDSPAWN_EXPECT_BUILDER says" : "");

	/*
	 * 2: the same answers in a fresh process whose first library call
	 * is the run, before any probe (forked before this one's probe).
	 */
	st = wait_status(first_pid);
	ok(st == 0, "before any probe: the runs give the same answers "
	   "(failed: 0x%x)", st);

	/* 3-4: invalid arguments are EINVAL, before any kernel question. */
	b = pidfdspawn_builder_new();
	pidfdspawn_builder_set_argv(b, (char *[]){ "x", NULL });
	err = run(b, 1, &status, &untouched);
	ok(err == EINVAL && untouched,
	   "no path and no exec fd: EINVAL on any kernel (%s)", errname(err));
	b = pidfdspawn_builder_new();
	pidfdspawn_builder_set_path(b, "/bin/true");
	err = run(b, 0, &status, &untouched);
	ok(err == EINVAL && untouched,
	   "no argv: EINVAL on any kernel (%s)", errname(err));

	/* 5: only the RFC's actions: the run asks no probe. */
	b = helper_builder(helper_path());
	pidfdspawn_builder_add_dup2(b, devnull, 1);
	pidfdspawn_builder_add_close_range(b, 3, ~0u, 0);
	expect(b, 1, 0, "dup2 and close_range");

	/* 6: nothing but a path, with and without the pidfd. */
	b = helper_builder(helper_path());
	expect(b, 0, 0, "only a path, no pidfd wanted");
	b = helper_builder(helper_path());
	expect(b, 1, 0, "only a path, the pidfd wanted");

	/*
	 * 8: a request beyond the RFC's builder: without any builder that
	 * is still ENOSYS, not EOPNOTSUPP; with one, EOPNOTSUPP exactly
	 * when the probe lacks the feature.
	 */
	b = helper_builder(helper_path());
	pidfdspawn_builder_add_dup2(b, devnull, 1);
	pidfdspawn_builder_set_setsid(b);
	pidfdspawn_builder_set_flags(b, PIDFDSPAWN_RUN_CLOEXEC_DEFAULT);
	expect(b, 1,
	       missing(PIDFDSPAWN_FEAT_SETSID | PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT) ?
	       EOPNOTSUPP : 0, "setsid and CLOEXEC_DEFAULT");

	/* 9: a program that does not exist. */
	b = helper_builder("/nonexistent/pfs-program");
	expect(b, 1, ENOENT, "a missing program");

	/* 10: the program by descriptor ("exec-fd"). */
	fd = open(helper_path(), O_RDONLY | O_CLOEXEC);
	b = helper_builder(NULL);
	pidfdspawn_builder_add_dup2(b, devnull, 1);
	pidfdspawn_builder_set_exec_fd(b, fd);
	/* Kernels past the RFC's have "exec-fd"; it has no feature bit. */
	expect(b, 1, (probed & ~(PIDFDSPAWN_FEAT_BUILDER | PIDFDSPAWN_FEAT_DUP2 |
				 PIDFDSPAWN_FEAT_CLOSE_RANGE |
				 PIDFDSPAWN_FEAT_FCHDIR)) ? 0 : EOPNOTSUPP,
	       "the program by its fd");
	close(fd);

	/* 11: the failures left nothing behind. */
	ok(no_zombies() && count_fds() == before,
	   "no child left unreaped, no descriptor left open (%d more)",
	   count_fds() - before);
	return tap_done();
}
