/* SPDX-License-Identifier: MIT */
/* posix_spawnattr_*: ABI layout, setters/getters, and each flag's effect. */
#include <stddef.h>
#include <sched.h>
#include <sys/stat.h>

#include "tap.h"

static char *helper_argv[] = { "helper", NULL };

static int run_path(const char *path, const posix_spawnattr_t *attr,
		    char *out, size_t size)
{
	int status = -1, err;

	err = spawn_capture(path, 0, NULL, attr, helper_argv, environ,
			    out, size, &status);
	return err ? err : (status ? -1 : 0);
}

static int run(const posix_spawnattr_t *attr, char *out, size_t size)
{
	return run_path(helper_path(), attr, out, size);
}

static unsigned long long hex(const char *report, const char *key)
{
	char buf[64];

	return strtoull(report_get(report, key, buf, sizeof(buf)), NULL, 16);
}

static long num(const char *report, const char *key)
{
	char buf[64];

	return strtol(report_get(report, key, buf, sizeof(buf)), NULL, 10);
}

static void test_abi_and_accessors(void)
{
	posix_spawnattr_t a;
	struct sched_param sp = { .sched_priority = 0 }, sp2;
	sigset_t set, set2;
	short flags;
	pid_t pg;
	int v;

#if defined(__x86_64__) && defined(__LP64__)
	ok(sizeof(posix_spawnattr_t) == 336 && _Alignof(posix_spawnattr_t) == 8 &&
	   sizeof(posix_spawn_file_actions_t) == 80,
	   "glibc x86_64 type sizes (336, 80) and alignment");
#elif defined(__i386__)
	ok(sizeof(posix_spawnattr_t) == 336 && _Alignof(posix_spawnattr_t) == 4 &&
	   sizeof(posix_spawn_file_actions_t) == 76,
	   "glibc i386 type sizes (336, 76) and alignment");
#else
	skip(1, "type sizes checked on x86_64 and i386 only");
#endif
	posix_spawnattr_init(&a);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	posix_spawnattr_setsigmask(&a, &set);
	posix_spawnattr_getsigmask(&a, &set2);
	posix_spawnattr_setsigdefault(&a, &set);
	posix_spawnattr_setpgroup(&a, 1234);
	posix_spawnattr_getpgroup(&a, &pg);
	posix_spawnattr_setschedparam(&a, &sp);
	posix_spawnattr_getschedparam(&a, &sp2);
	posix_spawnattr_setcgroup_np(&a, 77);
	posix_spawnattr_getcgroup_np(&a, &v);
	ok(sigismember(&set2, SIGUSR2) == 1 && pg == 1234 && v == 77 &&
	   sp2.sched_priority == 0, "getters return what setters stored");
	ok(*(int *)((char *)&a + offsetof(posix_spawnattr_t, __pad)) == 77,
	   "the cgroup is stored where glibc 2.39 keeps __cgroup");
	ok(posix_spawnattr_setflags(&a, 0x200) == EINVAL &&
	   posix_spawnattr_setflags(&a, POSIX_SPAWN_SETCGROUP) == 0 &&
	   posix_spawnattr_getflags(&a, &flags) == 0 &&
	   flags == POSIX_SPAWN_SETCGROUP, "setflags rejects unknown flags only");
	ok(posix_spawnattr_setschedpolicy(&a, 12345) == EINVAL &&
	   posix_spawnattr_setschedpolicy(&a, SCHED_RR) == 0 &&
	   posix_spawnattr_getschedpolicy(&a, &v) == 0 && v == SCHED_RR,
	   "setschedpolicy accepts OTHER/FIFO/RR only");
	posix_spawnattr_destroy(&a);
}

static void test_signals(void)
{
	posix_spawnattr_t a;
	sigset_t set, old;
	char out[8192];

	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);

	ok(run(NULL, out, sizeof(out)) == 0 &&
	   (hex(out, "sigmask") & (1ULL << SIGHUP)) &&
	   (hex(out, "sigign") & (1ULL << SIGUSR1)),
	   "by default the child inherits the mask and ignored signals");

	posix_spawnattr_init(&a);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	posix_spawnattr_setsigmask(&a, &set);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	posix_spawnattr_setsigdefault(&a, &set);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	ok(run(&a, out, sizeof(out)) == 0 &&
	   hex(out, "sigmask") == (1ULL << SIGTERM),
	   "SETSIGMASK sets the child's mask exactly");
	ok_backend(NULL, &a, 0, "SETSIGMASK|SETSIGDEF");
	ok(!(hex(out, "sigign") & (1ULL << SIGUSR1)) &&
	   (hex(out, "sigign") & (1ULL << SIGUSR2)),
	   "SETSIGDEF resets the listed ignored signal, not the others");

	sigemptyset(&set);
	sigaddset(&set, SIGKILL);
	sigaddset(&set, SIGSTOP);
	sigaddset(&set, SIGTERM);
	posix_spawnattr_setsigmask(&a, &set);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSIGMASK);
	ok(run(&a, out, sizeof(out)) == 0 &&
	   hex(out, "sigmask") == (1ULL << SIGTERM),
	   "SIGKILL and SIGSTOP in the SETSIGMASK set are ignored (%llx)",
	   hex(out, "sigmask"));
	ok_backend(NULL, &a, 0, "SETSIGMASK");

	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSIGDEF);
	ok(run(&a, out, sizeof(out)) == 0 &&
	   hex(out, "sigmask") == (1ULL << SIGHUP) &&
	   !(hex(out, "sigign") & (1ULL << SIGUSR1)),
	   "without SETSIGMASK the child gets the caller's mask (%llx)",
	   hex(out, "sigmask"));
	ok_backend(NULL, &a, 0, "SETSIGDEF");
	posix_spawnattr_destroy(&a);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

static void test_process_groups(void)
{
	posix_spawnattr_t a;
	char out[8192];

	posix_spawnattr_init(&a);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&a, 0);
	ok(run(&a, out, sizeof(out)) == 0 && num(out, "pgid") == num(out, "pid"),
	   "SETPGROUP with pgid 0 makes the child a group leader");
	ok_backend(NULL, &a, 0, "SETPGROUP");

	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSID);
	ok(run(&a, out, sizeof(out)) == 0 && num(out, "sid") == num(out, "pid"),
	   "SETSID makes the child a session leader");
	ok_backend(NULL, &a, 0, "SETSID");

	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&a, 1);	/* init's group: not ours */
	ok(run(&a, out, sizeof(out)) == EPERM,
	   "SETPGROUP into a foreign group is EPERM");
	ok(no_zombies(), "the failed child was reaped");
	posix_spawnattr_setpgroup(&a, -1);
	ok(run(&a, out, sizeof(out)) == EINVAL && no_zombies(),
	   "SETPGROUP with a negative group is EINVAL, as setpgid says");
	posix_spawnattr_destroy(&a);
}

/* 0 when this process may make itself SCHED_FIFO, else the errno. */
static int fifo_permitted(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(sched_setscheduler(0, SCHED_FIFO, &sp) < 0 ? errno : 0);
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return EIO;
	return WEXITSTATUS(st);
}

static void test_sched(void)
{
	posix_spawnattr_t a;
	struct sched_param sp = { .sched_priority = 0 };
	char out[8192];
	int err, fifo;

	posix_spawnattr_init(&a);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSCHEDULER);
	posix_spawnattr_setschedpolicy(&a, SCHED_OTHER);
	posix_spawnattr_setschedparam(&a, &sp);
	ok(run(&a, out, sizeof(out)) == 0 && num(out, "policy") == SCHED_OTHER,
	   "SETSCHEDULER applies the policy");
	ok_backend(NULL, &a, 0, "SETSCHEDULER");

	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSCHEDPARAM);
	ok(run(&a, out, sizeof(out)) == 0 && num(out, "policy") == SCHED_OTHER &&
	   num(out, "priority") == 0,
	   "SETSCHEDPARAM alone keeps the policy and sets the priority");
	ok_backend(NULL, &a, 0, "SETSCHEDPARAM");

	sp.sched_priority = 50;
	posix_spawnattr_setschedparam(&a, &sp);
	ok(run(&a, out, sizeof(out)) == EINVAL,
	   "SETSCHEDPARAM with a priority invalid for SCHED_OTHER is EINVAL");
	ok(no_zombies(), "the failed child was reaped");

	/* A real-time policy: root (CAP_SYS_NICE) gets it, others EPERM. */
	fifo = fifo_permitted();
	sp.sched_priority = 10;
	posix_spawnattr_setschedparam(&a, &sp);
	posix_spawnattr_setschedpolicy(&a, SCHED_FIFO);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSCHEDULER |
				 POSIX_SPAWN_SETSCHEDPARAM);
	err = run(&a, out, sizeof(out));
	if (fifo == 0)
		ok(err == 0 && num(out, "policy") == SCHED_FIFO &&
		   num(out, "priority") == 10,
		   "SETSCHEDULER SCHED_FIFO priority 10 (%d, policy %ld, priority %ld)",
		   err, num(out, "policy"), num(out, "priority"));
	else
		ok(err == fifo, "SETSCHEDULER SCHED_FIFO without the privilege "
		   "fails like sched_setscheduler (%d, expected %d)", err, fifo);
	ok_backend(NULL, &a, 0, "SETSCHEDULER SCHED_FIFO");

	sp.sched_priority = 0;
	posix_spawnattr_setschedparam(&a, &sp);
	posix_spawnattr_setschedpolicy(&a, SCHED_RR);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSCHEDULER);
	ok(run(&a, out, sizeof(out)) == EINVAL && no_zombies(),
	   "SETSCHEDULER SCHED_RR with priority 0 is EINVAL");
	posix_spawnattr_destroy(&a);
}

static void test_resetids(void)
{
	posix_spawnattr_t a;
	char out[8192], dir[64], copy[96] = "";
	const char *what;
	int differ = 0, err;

	posix_spawnattr_init(&a);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_RESETIDS);
	ok(run(&a, out, sizeof(out)) == 0 &&
	   num(out, "euid") == num(out, "uid") && num(out, "egid") == num(out, "gid"),
	   "RESETIDS: effective ids equal real ids");
	ok_backend(NULL, &a, 0, "RESETIDS");

	/*
	 * As root: real ids nobody, effective ids still root.  The child
	 * then runs as uid 65534: it execs the helper's public copy.
	 */
	err = public_helper(dir, sizeof(dir), copy, sizeof(copy), &what);
	ok(err == 0, "a copy of the helper that uid 65534 can run: %s (%s: %s)",
	   copy, what, err ? strerror(err) : "done");
	if (geteuid() == 0 && setresgid(65534, 0, 0) == 0) {
		if (setresuid(65534, 0, 0) == 0)
			differ = 1;
		else if (setresgid(0, 0, 0) < 0)
			abort();	/* cannot go back: stop here */
	}
	if (differ) {
		int e1 = run_path(copy, NULL, out, sizeof(out));
		long euid = num(out, "euid"), egid = num(out, "egid");
		int e2 = run_path(copy, &a, out, sizeof(out));

		if (setresuid(0, 0, 0) < 0 || setresgid(0, 0, 0) < 0)
			abort();	/* cannot go back: stop here */
		ok(e1 == 0 && euid == 0 && egid == 0,
		   "real ids 65534, effective 0: the child keeps euid/egid 0");
		if (e2 > 0)
			diag("uid 65534 could not run %s: %s", copy, strerror(e2));
		ok(e2 == 0 && num(out, "uid") == 65534 && num(out, "euid") == 65534 &&
		   num(out, "gid") == 65534 && num(out, "egid") == 65534,
		   "RESETIDS drops the child's euid/egid to the real ids (%ld/%ld)",
		   num(out, "euid"), num(out, "egid"));
	} else {
		diag("not root: the ids cannot be made to differ");
		ok(run(&a, out, sizeof(out)) == 0 && num(out, "euid") == (long)geteuid(),
		   "RESETIDS with equal ids (not root) keeps euid %d", (int)geteuid());
		ok(num(out, "egid") == (long)getegid(),
		   "RESETIDS with equal ids (not root) keeps egid %d", (int)getegid());
	}
	ok(getuid() == geteuid() && getgid() == getegid(), "the caller's ids are back");
	if (dir[0] && strcmp(dir, "/tmp/pfs-attrs-XXXXXX") != 0) {
		unlink(copy);
		rmdir(dir);
	}
	posix_spawnattr_destroy(&a);
}

/* The first cgroup2 mount point, or "" . */
static void cgroup2_mount(char *buf, size_t size)
{
	char line[4096], mnt[PATH_MAX], fstype[64];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (sep && sscanf(sep, " - %63s", fstype) == 1 &&
		    strcmp(fstype, "cgroup2") == 0 &&
		    sscanf(line, "%*d %*d %*s %*s %4095s", mnt) == 1) {
			snprintf(buf, size, "%s", mnt);
			break;
		}
	}
	if (f)
		fclose(f);
}

static void test_cgroup(void)
{
	posix_spawnattr_t a;
	char out[8192], mnt[PATH_MAX], dir[PATH_MAX + 64], name[64], buf[PATH_MAX];
	int dfd, err;

	posix_spawnattr_init(&a);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETCGROUP);
	cgroup2_mount(mnt, sizeof(mnt));
	snprintf(name, sizeof(name), "pfs-attrs-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/%s", mnt, name);
	if (mnt[0] && mkdir(dir, 0755) == 0) {
		size_t n = strlen(name), len;

		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		posix_spawnattr_setcgroup_np(&a, dfd);
		err = run(&a, out, sizeof(out));
		report_get(out, "cgroup", buf, sizeof(buf));
		len = strlen(buf);
		ok(err == 0 && len > n && buf[len - n - 1] == '/' &&
		   strcmp(buf + len - n, name) == 0,
		   "SETCGROUP starts the child in that cgroup (%d, %s)", err, buf);
		ok_backend(NULL, &a, 0, "SETCGROUP");
		close(dfd);
		ok(rmdir(dir) == 0, "the cgroup is empty again after the child");
	} else {
		diag("no cgroup2 directory could be created under '%s': %s", mnt,
		     strerror(errno));
		dfd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		posix_spawnattr_setcgroup_np(&a, dfd);
		ok(run(&a, out, sizeof(out)) == EBADF,
		   "SETCGROUP with a directory that is not a cgroup is EBADF");
		ok_backend(NULL, &a, 0, "SETCGROUP");
		close(dfd);
		ok(no_zombies(), "nothing left behind");
	}

	posix_spawnattr_setcgroup_np(&a, open("/dev/null", O_RDONLY | O_CLOEXEC));
	ok(run(&a, out, sizeof(out)) != 0 && no_zombies(),
	   "SETCGROUP with an fd that is not a cgroup fails, nothing left");
	posix_spawnattr_setcgroup_np(&a, -1);
	ok(run(&a, out, sizeof(out)) == EINVAL && no_zombies(),
	   "SETCGROUP with fd -1 is EINVAL, as clone3 says");
	posix_spawnattr_destroy(&a);
}

int main(void)
{
	tap_plan(40);
	test_abi_and_accessors();
	test_signals();
	test_process_groups();
	test_sched();
	test_resetids();
	test_cgroup();
	return tap_done();
}
