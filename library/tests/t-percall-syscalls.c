/* SPDX-License-Identifier: MIT */
/*
 * After the first spawn of a process, a posix_spawn makes only the system
 * calls its backend cannot do without (docs/benchmarks.md, "Library
 * overhead per spawn"):
 *   builder   pidfd_spawn_run alone where the kernel runs a builder with
 *             no fd (PIDFDSPAWN_FEAT_NOFD), else pidfd_open,
 *             pidfd_spawn_run, close: no probe again, no pidfd_config for
 *             a request without attributes, no fcntl, prlimit,
 *             rt_sigprocmask or memory mapping;
 *   fallback  rt_sigprocmask, clone3 (clone), rt_sigprocmask, and in its
 *             child rt_sigaction, rt_sigprocmask, execve: no stack mapped
 *             and unmapped per call, no probe.
 * A pidfd_spawn through the builder, and a builder of the builder API with
 * nothing but a path, argv and envp, both wanting the child's pidfd, make
 * pidfd_spawn_run alone where the kernel returns the pidfd from a run with
 * no fd (PIDFDSPAWN_FEAT_NOFD_PIDFD), else pidfd_open, pidfd_spawn_run
 * (and, for the builder API, pidfd_config for the path).
 * Each backend runs in a forked process that spawns once, then installs a
 * seccomp filter trapping every other system call (SIGSYS: the handler
 * reports the call's number), and spawns three more times.  The spawned
 * program inherits the filter and dies of SIGSYS at its first call the
 * list lacks: only the caller's calls are judged.
 */
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include "tap.h"
#include "seccomp.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#define NR_CONFIG 472
#define NR_RUN 473

static int report_fd = -1;

/* dprintf() may fstat() its fd, which the filter traps: format, then write. */
__attribute__((format(printf, 2, 3)))
static void say(int fd, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		(void)!write(fd, line, (size_t)n < sizeof(line) ? (size_t)n :
			     sizeof(line) - 1);
}

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	say(report_fd, "trapped system call %d\n", si->si_syscall);
	_exit(3);
}

/* Allow @nrs (and what reporting and exiting need), trap the rest. */
static int allow_only(const int *nrs, int n)
{
	struct sock_filter prog[64];
	int len = 0;
	static const int always[] = {
		__NR_write, __NR_exit_group, __NR_exit, __NR_rt_sigreturn,
		__NR_wait4, __NR_waitid,
	};

#define INS(code, k, jt, jf) (prog[len++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf))
	INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	INS(BPF_JMP | BPF_JEQ | BPF_K, PFS_AUDIT_ARCH, 1, 0);
	INS(BPF_RET | BPF_K, SECCOMP_RET_TRAP, 0, 0);
	INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		INS(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)always[i], 0, 1);
		INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	}
	for (int i = 0; i < n; i++) {
		INS(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nrs[i], 0, 1);
		INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	}
	INS(BPF_RET | BPF_K, SECCOMP_RET_TRAP, 0, 0);
#undef INS
	return pfs_seccomp_install(prog, len);
}

/* The request that is spawned: posix_spawn, pidfd_spawn, the builder API. */
static enum { VIA_POSIX_SPAWN, VIA_PIDFD_SPAWN, VIA_BUILDER_API } via;

static int spawn_true(void)
{
	char *argv[] = { "true", NULL };
	struct pidfdspawn_builder *b;
	int status, err = EINVAL, pidfd = -1;
	siginfo_t si;
	pid_t pid;

	switch (via) {
	case VIA_POSIX_SPAWN:
		err = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
		if (err)
			return err;
		/* The program may die of the filter: only the call counts. */
		return waitpid(pid, &status, 0) == pid ? 0 : errno;
	case VIA_PIDFD_SPAWN:
		err = pidfd_spawn(&pidfd, "/bin/true", NULL, NULL, argv, environ);
		break;
	case VIA_BUILDER_API:
		b = pidfdspawn_builder_new();
		if (!b)
			return ENOMEM;
		pidfdspawn_builder_set_path(b, "/bin/true");
		pidfdspawn_builder_set_argv(b, argv);
		pidfdspawn_builder_set_envp(b, environ);
		err = pidfdspawn_builder_run(b, &pid, &pidfd) ? errno : 0;
		pidfdspawn_builder_free(b);
		break;
	}
	if (err)
		return err;
	/* The pidfd is left open: closing it is the caller's call, not ours. */
	return syscall(__NR_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) == 0 ?
	       0 : errno;
}

/* In a forked process: 0 when three filtered spawns went through. */
static void run(const char *mode, const int *nrs, int n, int report)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
	enum pidfdspawn_backend want = strcmp(mode, "builder") == 0 ?
		PIDFDSPAWN_BACKEND_BUILDER : PIDFDSPAWN_BACKEND_FALLBACK;
	int err;

	/* The builder API has no backends: it always runs the kernel's. */
	if (via == VIA_BUILDER_API)
		want = PIDFDSPAWN_BACKEND_NONE;

	report_fd = report;
	setenv("PIDFDSPAWN_BACKEND", mode, 1);
	err = spawn_true();
	if (err || pidfdspawn_last_backend() != want) {
		say(report, "first spawn: %d, backend %s\n", err,
			pidfdspawn_backend_name(pidfdspawn_last_backend()));
		_exit(2);
	}
	sigaction(SIGSYS, &sa, NULL);
	if (allow_only(nrs, n) < 0) {
		say(report, "seccomp: %s\n", strerror(errno));
		_exit(2);
	}
	for (int i = 0; i < 3; i++) {
		err = spawn_true();
		if (err || pidfdspawn_last_backend() != want) {
			say(report, "spawn %d: %d, backend %d\n", i + 2, err,
				(int)pidfdspawn_last_backend());
			_exit(2);
		}
	}
	say(report, "three spawns with only the listed calls\n");
	_exit(0);
}

static void check(const char *mode, const int *nrs, int n, const char *what)
{
	static const char *const names[] = { "posix_spawn", "pidfd_spawn",
					     "builder API" };
	char line[256] = "";
	int p[2], status = -1;
	ssize_t got;
	pid_t pid;

	if (pipe(p) < 0) {
		ok(0, "%s: pipe: %s", mode, strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		run(mode, nrs, n, p[1]);
	}
	close(p[1]);
	got = read(p[0], line, sizeof(line) - 1);
	line[got > 0 ? got - 1 : 0] = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "%s, %s: after the first spawn, only %s (%s)", names[via], mode,
	   what, line);
}

int main(void)
{
	static const int builder[] = { __NR_pidfd_open, NR_RUN, __NR_close,
				       __NR_execve, __NR_execveat };
	static const int builder_nofd[] = { NR_RUN, __NR_execve, __NR_execveat };
	static const int fallback[] = { __NR_rt_sigprocmask, __NR_clone3,
					__NR_clone, __NR_rt_sigaction,
					__NR_execve };
	int has_builder = (expected_builder_features() &
			   PIDFDSPAWN_FEAT_BUILDER) != 0;
	static const int pidfd_builder[] = { __NR_pidfd_open, NR_RUN,
					     __NR_execve, __NR_execveat };
	static const int api_builder[] = { __NR_pidfd_open, NR_CONFIG, NR_RUN,
					   __NR_execve, __NR_execveat };
	int has_nofd = (expected_builder_features() & PIDFDSPAWN_FEAT_NOFD) != 0;
	int has_pidfd = (expected_builder_features() &
			 PIDFDSPAWN_FEAT_NOFD_PIDFD) != 0;

	tap_plan(has_builder ? 4 : 1);
	check("fallback", fallback, sizeof(fallback) / sizeof(fallback[0]),
	      "rt_sigprocmask, clone3 and the child's rt_sigaction, "
	      "rt_sigprocmask, execve");
	if (has_builder && has_nofd)
		check("builder", builder_nofd,
		      sizeof(builder_nofd) / sizeof(builder_nofd[0]),
		      "pidfd_spawn_run with no fd (the child: execve)");
	else if (has_builder)
		check("builder", builder, sizeof(builder) / sizeof(builder[0]),
		      "pidfd_open, pidfd_spawn_run, close (the child: execve)");
	if (!has_builder)
		return tap_done();

	for (int v = VIA_PIDFD_SPAWN; v <= VIA_BUILDER_API; v++) {
		via = v;
		if (has_pidfd)
			check("builder", builder_nofd,
			      sizeof(builder_nofd) / sizeof(builder_nofd[0]),
			      "pidfd_spawn_run returning the pidfd (the child: execve)");
		else if (via == VIA_PIDFD_SPAWN)
			check("builder", pidfd_builder,
			      sizeof(pidfd_builder) / sizeof(pidfd_builder[0]),
			      "pidfd_open, pidfd_spawn_run (the child: execve)");
		else
			check("builder", api_builder,
			      sizeof(api_builder) / sizeof(api_builder[0]),
			      "pidfd_open, pidfd_config, pidfd_spawn_run (the child: execve)");
	}
	return tap_done();
}
