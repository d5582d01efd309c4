/* SPDX-License-Identifier: MIT */
/*
 * The caller's signal handlers never run in the child, even for a signal
 * that reaches the child between its creation and its exec (issue 20,
 * "Tests that cannot fail": without CLONE_CLEAR_SIGHAND, or without the
 * child's own reset where clone3 is missing, the caller's handler runs in
 * the child when the child unblocks signals before execve).
 *
 * Deterministic: the child's first file action opens a FIFO for reading
 * and blocks there; a thread of the caller finds the child, sends it
 * SIGURG (whose default action is to ignore it), and only then opens the
 * FIFO's write end.  The handler writes to a pipe when it runs in another
 * process; the pipe must stay empty.  Each case runs in a forked process
 * (the handler, the environment and the seccomp filter stay there).
 *
 * The builder's child is an embryonic task until its exec: hidden from
 * /proc, and its setup runs with every signal blocked (as glibc's child),
 * so a signal sent then is delivered to the new program, with the default
 * disposition.  When no child shows up in /proc, the forked process (a
 * process group of its own) signals its group instead, and a case that
 * went through the builder must end as glibc's own posix_spawn (dlsym in
 * libc.so.6) ends under the same procedure on the same kernel: spawned,
 * the same wait status, the handler never run in the child.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "tap.h"
#include "seccomp.h"

static pid_t owner;			/* the process that installed the handler */
static int ran[2];			/* the handler writes here outside it */
static char fifo[PATH_MAX];

static void on_urg(int sig)
{
	(void)sig;
	if (getpid() != owner)
		(void)!write(ran[1], "H", 1);
}

/* A child of @parent, or 0 (scans /proc: no CONFIG_PROC_CHILDREN needed). */
static pid_t find_child(pid_t parent)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		char path[300], buf[512], *p;
		int fd, ppid;
		ssize_t n;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		p = strrchr(buf, ')');	/* comm may hold anything */
		if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == parent)
			found = atoi(e->d_name);
	}
	closedir(d);
	return found;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

struct poke { pid_t parent; int signalled; };	/* 1: the child, 2: the group */

/* Signal the child blocked in open(fifo), then let it go on. */
static void *poker(void *arg)
{
	struct poke *pk = arg;
	pid_t child = 0;
	int fd = -1;

	for (int i = 0; i < 200 && !child; i++) {
		child = find_child(pk->parent);
		if (!child)
			sleep_ms(10);
	}
	if (child && kill(child, SIGURG) == 0)
		pk->signalled = 1;
	else if (!child && kill(0, SIGURG) == 0)
		pk->signalled = 2;	/* hidden (embryonic): its process group */
	/* A reader must be there: then this open cannot block. */
	for (int i = 0; i < 1000 && fd < 0; i++) {
		fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			sleep_ms(10);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * In the forked process: spawn the helper with the FIFO as its first file
 * action and report "err status signalled handler" on @report.
 */
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static void one_spawn(int report, const char *mode, int no_clone3, int use_glibc)
{
	static const struct pfs_rule rules[] = {
		{ SYS_clone3, PFS_RET_ERRNO(ENOSYS), -1, 0 },
	};
	/* SA_RESTART: a group signal must not interrupt the caller's call. */
	struct sigaction sa = { .sa_handler = on_urg, .sa_flags = SA_RESTART };
	spawn_fn spawn = posix_spawn;
	char *argv[] = { "helper", "0", NULL }, c;
	struct poke pk = { .parent = getpid() };
	posix_spawn_file_actions_t fa;
	int err, status = -1, handler = 0, builder;
	pthread_t t;
	pid_t pid;

	owner = getpid();
	if (use_glibc) {
		void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

		spawn = libc ? (spawn_fn)dlsym(libc, "posix_spawn") : NULL;
		if (!spawn) {
			dprintf(report, "no glibc posix_spawn\n");
			return;
		}
	}
	/* Out of the guest hook's trace: a forced fallback here is wanted. */
	unsetenv("PIDFDSPAWN_TRACE_FD");
	if (mode)
		setenv("PIDFDSPAWN_BACKEND", mode, 1);
	if (no_clone3 && pfs_seccomp(rules, 1) < 0) {
		dprintf(report, "seccomp failed: %s\n", strerror(errno));
		return;
	}
	if (pipe2(ran, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    sigaction(SIGURG, &sa, NULL) < 0)
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 9, fifo, O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (pthread_create(&t, NULL, poker, &pk) != 0)
		return;
	err = spawn(&pid, helper_path(), &fa, NULL, argv, environ);
	builder = !use_glibc &&
		  pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_BUILDER;
	pthread_join(t, NULL);
	if (!err)
		status = wait_status(pid);
	while (read(ran[0], &c, 1) == 1)
		handler++;
	dprintf(report, "%d %d %d %d %d\n", err, status, pk.signalled, handler,
		builder);
}

struct outcome { int err, status, signalled, handler, builder; };

static struct outcome run_forked(const char *what, const char *mode,
				 int no_clone3, int use_glibc)
{
	struct outcome o = { -1, -1, 0, -1, 0 };
	char line[256] = "";
	int p[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		setpgid(0, 0);	/* a group signal reaches only this case */
		one_spawn(p[1], mode, no_clone3, use_glibc);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = '\0';
	close(p[0]);
	wait_status(pid);
	if (sscanf(line, "%d %d %d %d %d", &o.err, &o.status, &o.signalled,
		   &o.handler, &o.builder) != 5)
		diag("%s: the forked process said: %s", what, line);
	return o;
}

static void run_case(const char *what, const char *mode, int no_clone3)
{
	struct outcome o = run_forked(what, mode, no_clone3, 0), g;

	if (!o.builder) {
		ok(o.err == 0 && o.status == 0 && o.signalled == 1,
		   "%s: the child got SIGURG while blocked, then ran (err %d, status %d, signalled %d)",
		   what, o.err, o.status, o.signalled);
		ok(o.handler == 0, "%s: the caller's handler did not run in the child (%d times)",
		   what, o.handler);
		return;
	}
	/* The builder: as glibc's posix_spawn on this kernel. */
	g = run_forked("glibc", NULL, 0, 1);
	diag("%s: builder: err %d status 0x%x signalled %d; glibc: err %d status 0x%x signalled %d",
	     what, o.err, o.status, o.signalled, g.err, g.status, g.signalled);
	ok(o.err == 0 && o.signalled && g.err == 0 && g.signalled && o.status == g.status,
	   "%s (builder): SIGURG sent during the setup, spawned, ends as glibc's child (status 0x%x, glibc 0x%x)",
	   what, o.status, g.status);
	ok(o.handler == 0 && g.handler == 0,
	   "%s (builder): the caller's handler did not run in the child (%d times; glibc %d)",
	   what, o.handler, g.handler);
}

int main(void)
{
	char dir[] = "/tmp/pfs-mut-signals-XXXXXX";

	tap_plan(6);
	if (!mkdtemp(dir))
		abort();
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	if (mkfifo(fifo, 0600) < 0)
		abort();
	run_case("default backend", NULL, 0);
	run_case("fallback (clone3, CLONE_CLEAR_SIGHAND)", "fallback", 0);
	run_case("fallback without clone3 (the child resets)", "fallback", 1);
	unlink(fifo);
	rmdir(dir);
	return tap_done();
}
