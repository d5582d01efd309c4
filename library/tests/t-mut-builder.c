/* SPDX-License-Identifier: MIT */
/*
 * The builder backend's own logic, on any kernel: this program defines
 * syscall(), so the library's system calls 434 (pidfd_open with
 * PIDFD_EMPTY), 472 and 473 reach a tiny fake builder here while every
 * other system call goes on to the kernel.  The fake answers the probe
 * with "a builder without actions or keys", so plain posix_spawn and
 * pidfd_spawn requests use the builder backend.  Checked: a run
 * interrupted before any task existed is retried (posix_spawn never
 * returns EINTR), posix_spawn closes the builder's fd, pidfd_spawn hands
 * it over, and a child whose exec failed is reaped with its fd closed.
 * posix_spawnp, which searches PATH around this builder (it has no
 * "search-path"), leaves a PATH that gives no candidate to the fallback
 * and still runs the last candidate once when none exists.  Then, in a
 * process of its own, a fake that runs builders with no fd
 * (PIDFD_SPAWN_RUN_NOFD): posix_spawn opens no builder, and reaps the
 * child of a failed exec it learnt from the run's pid field; and that
 * returns the child's pidfd from such a run (PIDFD_SPAWN_RUN_PIDFD):
 * pidfd_spawn and a builder of the builder API with nothing but a path
 * open no builder and hand over the run's pidfd, and a failed exec leaves
 * no fd and no zombie.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/syscall.h>

#include "tap.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#define NR_CONFIG 472
#define NR_RUN 473

static long (*real_syscall)(long, ...);

/* ---- the fake kernel ------------------------------------------------- */

#define MAX_FAKE 1024
static char is_builder[MAX_FAKE];	/* fd is a taskless fake builder */
static int eintr_runs;			/* fail this many runs with EINTR */
static int fake_nofd;			/* runs with no fd (RUN_NOFD) work */
static int fake_nofd_pidfd;		/* ... and return a pidfd (RUN_PIDFD) */
static int runs, builders_opened;
static char last_run_path[PATH_MAX];	/* the program of the last run */

static long fail(int e)
{
	errno = e;
	return -1;
}

static long fake_open_empty(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fd >= MAX_FAKE) {
		close(fd);
		return fail(EMFILE);
	}
	is_builder[fd] = 1;
	builders_opened++;
	return fd;
}

static long fake_config(int fd, unsigned int cmd, const char *key,
			void *value, int aux)
{
	if (fd == -1 && cmd == PIDFDSPAWN_CONFIG_QUERY) {
		struct pidfdspawn_features f = {
			.run_flags = (fake_nofd ? PIDFDSPAWN_RUN_NOFD : 0) |
				     (fake_nofd_pidfd ? PIDFDSPAWN_RUN_PIDFD : 0),
			.run_size = fake_nofd ? PIDFDSPAWN_RUN_SIZE_VER1 :
				    PIDFDSPAWN_RUN_SIZE_VER0,
		};

		if (key)
			return fail(EINVAL);	/* knows no key */
		if (!value || aux < (int)sizeof(f))
			return fail(EINVAL);
		memcpy(value, &f, sizeof(f));
		return 0;
	}
	if (fd < 0 || fd >= MAX_FAKE || !is_builder[fd])
		return fail(EBADF);
	return 0;
}

/* Turn fake builder @fd into a pidfd of @pid, as a run does. */
static void become_pidfd(int fd, pid_t pid)
{
	int pfd = (int)real_syscall(SYS_pidfd_open, pid, 0);

	is_builder[fd] = 0;
	if (pfd >= 0) {
		dup3(pfd, fd, O_CLOEXEC);
		close(pfd);
	}
}

static long fake_run(int fd, const struct pidfdspawn_run_args *a)
{
	const char *path = (const char *)(uintptr_t)a->path;
	int nofd = fd == -1 && fake_nofd && (a->flags & PIDFDSPAWN_RUN_NOFD);
	pid_t pid;

	if (!nofd && (fd < 0 || fd >= MAX_FAKE || !is_builder[fd]))
		return fail(EBADF);
	if (nofd && !a->pid)
		return fail(EINVAL);
	if ((a->flags & PIDFDSPAWN_RUN_PIDFD) && (!nofd || !fake_nofd_pidfd))
		return fail(EINVAL);
	runs++;
	snprintf(last_run_path, sizeof(last_run_path), "%s", path);
	if (eintr_runs > 0) {
		eintr_runs--;		/* consumed, still no task */
		return fail(EINTR);
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execve(path, (char *const *)(uintptr_t)a->argv,
		       (char *const *)(uintptr_t)a->envp);
		_exit(127);
	}
	if (nofd)
		*(int *)(uintptr_t)a->pid = pid;
	else
		become_pidfd(fd, pid);
	if (access(path, X_OK) < 0)
		return -1;	/* the child exits 127; errno from access */
	if (a->flags & PIDFDSPAWN_RUN_PIDFD)
		return real_syscall(SYS_pidfd_open, pid, 0);
	return pid;
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_pidfd_open && a[0] == 0 && (a[1] & PIDFD_EMPTY))
		return fake_open_empty();
	if (nr == NR_CONFIG)
		return fake_config((int)a[0], (unsigned int)a[1],
				   (const char *)a[2], (void *)a[3], (int)a[4]);
	if (nr == NR_RUN)
		return fake_run((int)a[0],
				(const struct pidfdspawn_run_args *)a[1]);
	if (nr == SYS_waitid && a[0] == P_PIDFD && a[1] >= 0 &&
	    a[1] < MAX_FAKE && is_builder[a[1]])
		return fail(EINVAL);	/* a builder without a task */
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ---- the tests ------------------------------------------------------- */

static char *argv_ok[] = { "helper", "0", NULL };

static int spawn_ok(int *status)
{
	int saved = dup(1), devnull = open("/dev/null", O_WRONLY), err;
	pid_t pid = -1;

	/* No file action (the fake builder knows none): stdout swapped here. */
	dup2(devnull, 1);
	close(devnull);
	err = posix_spawn(&pid, helper_path(), NULL, NULL, argv_ok, environ);
	dup2(saved, 1);
	close(saved);
	*status = err ? -1 : wait_status(pid);
	return err;
}

/* 0 when @pidfd is a pidfd of child @pid (any if 0), which exits with 0. */
static int reaps_ok(int pidfd, pid_t pid)
{
	siginfo_t si = {};

	return pidfd >= 0 &&
	       syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) == 0 &&
	       (!pid || si.si_pid == pid) &&
	       si.si_code == CLD_EXITED && si.si_status == 0 ? 0 : -1;
}

/* Runs with no fd that return the child's pidfd: what failed, as bits. */
static int nofd_pidfd_cases(void)
{
	char *argv[] = { "x", NULL };
	struct pidfdspawn_builder *b;
	int fails = 0, pidfd = -1, before;
	pid_t pid = -1;

	/* The probe's builders are closed: their numbers are plain fds again. */
	memset(is_builder, 0, sizeof(is_builder));
	builders_opened = 0;
	before = count_fds();
	if (pidfd_spawn(&pidfd, "/bin/true", NULL, NULL, argv, environ) ||
	    reaps_ok(pidfd, 0))
		fails |= 32;
	if (pidfd >= 0)
		close(pidfd);
	if (pidfd_spawn(&pidfd, "/nonexistent/prog", NULL, NULL, argv,
			environ) != ENOENT || !no_zombies() ||
	    count_fds() != before)
		fails |= 32;
	if (builders_opened)
		fails |= 64;

	b = pidfdspawn_builder_new();
	if (!b)
		return fails | 128;
	pidfd = -1;
	pidfdspawn_builder_set_path(b, "/bin/true");
	pidfdspawn_builder_set_argv(b, argv);
	pidfdspawn_builder_set_envp(b, environ);
	if (pidfdspawn_builder_run(b, &pid, &pidfd) || pid <= 0 ||
	    reaps_ok(pidfd, pid) || builders_opened)
		fails |= 128;
	if (pidfd >= 0)
		close(pidfd);
	pidfdspawn_builder_free(b);
	return fails;
}

/* In a process of its own, before any probe: what failed, as bits. */
static int nofd_cases(void)
{
	char *argv[] = { "x", NULL };
	int fails = 0, status = -1;
	pid_t pid;

	fake_nofd = 1;
	fake_nofd_pidfd = 1;
	if (!(pidfdspawn_probe() & PIDFDSPAWN_FEAT_NOFD) ||
	    !(pidfdspawn_probe() & PIDFDSPAWN_FEAT_NOFD_PIDFD))
		return 1;
	builders_opened = 0;
	if (spawn_ok(&status) != 0 || status != 0 ||
	    pidfdspawn_last_backend() != PIDFDSPAWN_BACKEND_BUILDER)
		fails |= 2;
	if (builders_opened)
		fails |= 4;
	if (posix_spawn(&pid, "/nonexistent/prog", NULL, NULL, argv,
			environ) != ENOENT)
		fails |= 8;
	if (!no_zombies())
		fails |= 16;
	return fails | nofd_pidfd_cases();
}

/* posix_spawnp searching PATH around the fake builder. */
static void path_cases(void)
{
	static char one_long[PATH_MAX + 10];
	char *argv[] = { "x", NULL }, *saved = getenv("PATH");
	int err;
	pid_t pid;

	saved = saved ? strdup(saved) : NULL;
	/* One entry of PATH_MAX bytes or more: glibc's walk tries nothing. */
	memset(one_long, 'x', sizeof(one_long) - 1);
	one_long[0] = '/';
	setenv("PATH", one_long, 1);
	runs = 0;
	errno = EDOM;
	err = posix_spawnp(&pid, "x", NULL, NULL, argv, environ);
	ok(err == EDOM && runs == 0 &&
	   pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_FALLBACK,
	   "a PATH that gives no candidate goes to the fallback: the caller's errno (%d, %d runs, %s)",
	   err, runs, pidfdspawn_backend_name(pidfdspawn_last_backend()));

	setenv("PATH", "/nonexistent-pfs-a:/nonexistent-pfs-b", 1);
	runs = 0;
	err = posix_spawnp(&pid, "x", NULL, NULL, argv, environ);
	ok(err == ENOENT && runs == 1 &&
	   strcmp(last_run_path, "/nonexistent-pfs-b/x") == 0 &&
	   pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_BUILDER && no_zombies(),
	   "no candidate exists: the last one still runs once, for the actions (%d, %d runs, %s)",
	   err, runs, last_run_path);
	if (saved)
		setenv("PATH", saved, 1);
	else
		unsetenv("PATH");
	free(saved);
}

int main(void)
{
	char *argv[] = { "x", NULL };
	int before, err, status = -1, pidfd = -1, leaked, nofd_fails;
	siginfo_t si;
	pid_t pid;

	real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (!real_syscall)
		abort();
	unsetenv("PIDFDSPAWN_BACKEND");
	unsetenv("PIDFDSPAWN_TRACE_FD");	/* not a real builder: untraced */
	tap_plan(18);
	pid = fork();
	if (pid == 0)
		_exit(nofd_cases());
	nofd_fails = wait_status(pid);

	ok(pidfdspawn_probe() & PIDFDSPAWN_FEAT_BUILDER,
	   "the fake kernel has a builder (probe 0x%x)", pidfdspawn_probe());

	/*
	 * The builder API: a request this builder cannot serve (it has no
	 * "setsid") is EOPNOTSUPP, told apart from a bad argument (EINVAL)
	 * and from no builder at all (ENOSYS), before any builder exists.
	 */
	{
		struct pidfdspawn_builder *b = pidfdspawn_builder_new();
		int opened = builders_opened, r;

		runs = 0;
		pidfdspawn_builder_set_path(b, "/bin/true");
		pidfdspawn_builder_set_argv(b, argv);
		pidfdspawn_builder_set_setsid(b);
		pid = -42;
		r = pidfdspawn_builder_run(b, &pid, NULL);
		err = r < 0 ? errno : 0;
		ok(r < 0 && err == EOPNOTSUPP && pid == -42 && runs == 0 &&
		   builders_opened == opened,
		   "builder API: setsid on a builder without it is EOPNOTSUPP, "
		   "before any builder or run (%s, %d runs)", strerror(err), runs);
		pidfdspawn_builder_free(b);
	}

	eintr_runs = 2;
	runs = 0;
	err = spawn_ok(&status);
	ok(err == 0 && status == 0 && runs == 3,
	   "two runs interrupted before a task existed are retried (err %d, status %d, %d runs)",
	   err, status, runs);
	ok(pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_BUILDER,
	   "that spawn used the builder (%s)",
	   pidfdspawn_backend_name(pidfdspawn_last_backend()));
	eintr_runs = 0;	/* whatever happened, the next cases start clean */

	before = count_fds();
	leaked = 0;
	for (int i = 0; i < 10; i++)
		if (spawn_ok(&status) != 0 || status != 0)
			leaked = -1000;
	leaked += count_fds() - before;
	ok(leaked == 0, "10 posix_spawns through the builder leave no fd behind (%d more)",
	   leaked);

	before = count_fds();
	err = pidfd_spawn(&pidfd, "/bin/true", NULL, NULL, argv, environ);
	ok(err == 0 && pidfd >= 0 &&
	   syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) == 0 &&
	   si.si_status == 0,
	   "pidfd_spawn returns the builder's fd as the child's pidfd (err %d)", err);
	if (pidfd >= 0)
		close(pidfd);
	ok(count_fds() == before, "pidfd_spawn: one fd, closed by the caller");

	before = count_fds();
	err = posix_spawn(&pid, "/nonexistent/prog", NULL, NULL, argv, environ);
	ok(err == ENOENT, "an exec failure in the child is returned (%d)", err);
	ok(no_zombies(), "the child whose exec failed was reaped");
	ok(count_fds() == before, "and its builder fd was closed (%d more)",
	   count_fds() - before);

	path_cases();

	ok(nofd_fails >= 0 && !(nofd_fails & 3),
	   "no fd: the fake's builder serves posix_spawn (%d)", nofd_fails);
	ok(nofd_fails >= 0 && !(nofd_fails & 4),
	   "no fd: posix_spawn opens no builder for it (%d)", nofd_fails);
	ok(nofd_fails >= 0 && !(nofd_fails & 24),
	   "no fd: an exec failure is returned and its child reaped (%d)",
	   nofd_fails);
	ok(nofd_fails >= 0 && !(nofd_fails & 32),
	   "no fd, pidfd: pidfd_spawn hands over the run's pidfd, none after a failed exec (%d)",
	   nofd_fails);
	ok(nofd_fails >= 0 && !(nofd_fails & 64),
	   "no fd, pidfd: pidfd_spawn opens no builder for it (%d)", nofd_fails);
	ok(nofd_fails >= 0 && !(nofd_fails & 128),
	   "no fd, pidfd: a builder of only a path runs with no builder fd (%d)",
	   nofd_fails);
	return tap_done();
}
