/* SPDX-License-Identifier: MIT */
/*
 * Under seccomp filters: system calls 472/473 that kill the process are
 * never reached unless pidfd_open(0, PIDFD_EMPTY) proved the builder
 * (issue 20, defect 1), and closefrom works where close_range() answers
 * ENOSYS, with and without /proc (defect 5).  Each case runs in a forked
 * child that has not probed yet (the probe is cached per process) and
 * reports one line through a pipe; the parent makes no library call.
 */
#include <sys/resource.h>

#include "tap.h"
#include "seccomp.h"

#define KILL SECCOMP_RET_KILL_PROCESS
#define NR_CONFIG 472
#define NR_RUN 473

/* In the child: spawn the helper with stdout on a pipe and report. */
static void child_spawn(int report, int closefrom)
{
	char *argv[] = { "helper", NULL }, out[8192], buf[512];
	posix_spawn_file_actions_t fa;
	int status = -1, err;

	capture_init(&fa);
	if (closefrom)
		posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	err = spawn_capture(helper_path(), 0, &fa, NULL, argv, environ, out,
			    sizeof(out), &status);
	/* A forced fallback must not probe; the report must not either. */
	dprintf(report, "err=%d status=%d backend=%s probe=%s fds=%s fdsrc=%s\n",
		err, status, pidfdspawn_backend_name(pidfdspawn_last_backend()),
		getenv("PIDFDSPAWN_BACKEND") ? "-" :
		pidfdspawn_probe() ? "some" : "none",
		report_get(out, "fds", buf, sizeof(buf)),
		report_get(out, "fdsrc", buf + 256, 256));
}

/*
 * Fork, install @rules with PIDFDSPAWN_BACKEND=@mode (NULL: unset), run
 * @fn, and put its report in @line ("" when the child died).  The child's
 * wait status as the TAP helpers count it (128 + signal).
 */
static int in_child(const struct pfs_rule *rules, int n, const char *mode,
		    void (*fn)(int report), char *line, size_t size)
{
	int p[2], st;
	ssize_t got;
	pid_t pid;

	line[0] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		/*
		 * These spawns are made in a world without the builder on
		 * purpose: keep them out of the guest hook's trace, which
		 * counts a fallback the builder could have served as stray.
		 */
		unsetenv("PIDFDSPAWN_TRACE_FD");
		if (mode)
			setenv("PIDFDSPAWN_BACKEND", mode, 1);
		else
			unsetenv("PIDFDSPAWN_BACKEND");
		if (pfs_seccomp(rules, n) < 0) {
			dprintf(p[1], "seccomp: %s\n", strerror(errno));
			_exit(1);
		}
		fn(p[1]);
		_exit(0);
	}
	close(p[1]);
	got = read(p[0], line, size - 1);
	line[got > 0 ? got : 0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	close(p[0]);
	st = wait_status(pid);
	diag("child: %s (status %d)", line, st);
	return st;
}

static void plain(int report)
{
	child_spawn(report, 0);
}

static void with_closefrom(int report)
{
	child_spawn(report, 1);
}

/*
 * closefrom with fds 10 and, above a lowered RLIMIT_NOFILE, 200 open: the
 * /proc walk must close both (a loop up to the limit misses 200).
 */
static void closefrom_high(int report)
{
	struct rlimit rl;

	if (dup2(0, 10) < 0 || dup2(0, 200) < 0 ||
	    getrlimit(RLIMIT_NOFILE, &rl) < 0)
		_exit(2);
	rl.rlim_cur = 100;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		_exit(2);
	child_spawn(report, 1);
}

/* closefrom without /proc: fd 10 (below the limit) must be closed. */
static void closefrom_low(int report)
{
	if (dup2(0, 10) < 0)
		_exit(2);
	child_spawn(report, 1);
}

int main(void)
{
	/* A forced fallback does not even probe: PIDFD_EMPTY kills too. */
	const struct pfs_rule kill_builder[] = {
		{ NR_CONFIG, KILL, -1, 0 }, { NR_RUN, KILL, -1, 0 },
		{ SYS_pidfd_open, KILL, 1, PIDFD_EMPTY },
	};
	/* A kernel without the builder: pidfd_open refuses PIDFD_EMPTY. */
	const struct pfs_rule old_kernel[] = {
		{ NR_CONFIG, KILL, -1, 0 }, { NR_RUN, KILL, -1, 0 },
		{ SYS_pidfd_open, PFS_RET_ERRNO(EINVAL), 1, PIDFD_EMPTY },
	};
	const struct pfs_rule enosys_builder[] = {
		{ NR_CONFIG, PFS_RET_ERRNO(ENOSYS), -1, 0 },
		{ NR_RUN, PFS_RET_ERRNO(ENOSYS), -1, 0 },
	};
	const struct pfs_rule no_close_range[] = {
		{ SYS_close_range, PFS_RET_ERRNO(ENOSYS), -1, 0 },
	};
	/* ... and no /proc: every O_DIRECTORY open fails (opendir too). */
	const struct pfs_rule no_close_range_no_proc[] = {
		{ SYS_close_range, PFS_RET_ERRNO(ENOSYS), -1, 0 },
		{ SYS_openat, PFS_RET_ERRNO(ENOENT), 2, O_DIRECTORY },
#ifdef SYS_open
		{ SYS_open, PFS_RET_ERRNO(ENOENT), 1, O_DIRECTORY },
#endif
	};
#define N(rules) ((int)(sizeof(rules) / sizeof((rules)[0])))
	char line[1024];
	int st;

	tap_plan(8);
	helper_path();	/* before any filter: reads /proc/self/exe */

	st = in_child(kill_builder, N(kill_builder), "fallback", plain, line,
		      sizeof(line));
	ok(st == 0 && strstr(line, "err=0 status=0 backend=fallback "),
	   "a forced fallback never probes nor calls system call 472/473, "
	   "which seccomp kills (status %d; 159 is SIGSYS)", st);

	st = in_child(old_kernel, N(old_kernel), NULL, plain, line, sizeof(line));
	ok(st == 0 && strstr(line, "err=0 status=0 backend=fallback probe=none "),
	   "auto mode on a kernel whose pidfd_open refuses PIDFD_EMPTY never "
	   "calls 472/473 (status %d)", st);

	st = in_child(enosys_builder, N(enosys_builder), NULL, plain, line,
		      sizeof(line));
	ok(st == 0 && strstr(line, "err=0 status=0 backend=fallback probe=none "),
	   "auto mode with 472/473 answering ENOSYS uses the fallback (status %d)",
	   st);

	st = in_child(no_close_range, N(no_close_range), "fallback",
		      with_closefrom, line, sizeof(line));
	ok(st == 0 && strstr(line, "err=0 status=0 ") && strstr(line, "fdsrc=proc"),
	   "closefrom with close_range() answering ENOSYS succeeds (status %d)", st);
	ok(strstr(line, " fds=0,1,2 ") || strstr(line, " fds=1 ") ||
	   strstr(line, " fds=0,1 ") || strstr(line, " fds=1,2 "),
	   "... and the child has no fd above 2");

	st = in_child(no_close_range, N(no_close_range), "fallback",
		      closefrom_high, line, sizeof(line));
	ok(st == 0 && strstr(line, "err=0 status=0 ") && strstr(line, "fdsrc=proc") &&
	   !strstr(line, ",10") && !strstr(line, ",200"),
	   "... it walks /proc/self/fd: fds 10 and 200 (above RLIMIT_NOFILE) "
	   "are closed");

	st = in_child(no_close_range_no_proc, N(no_close_range_no_proc),
		      "fallback", closefrom_low, line, sizeof(line));
	ok(st == 0 && strstr(line, "err=0 status=0 ") && strstr(line, "fdsrc=fcntl"),
	   "closefrom without close_range() and without /proc succeeds (status %d)",
	   st);
	ok(strstr(line, "err=0 ") && !strstr(line, ",10"),
	   "... and closes fd 10, below the limit");
	return tap_done();
}
