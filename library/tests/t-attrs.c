/* SPDX-License-Identifier: MIT */
/* posix_spawnattr_*: ABI layout, setters/getters, and each flag's effect. */
#include <stddef.h>
#include <sched.h>

#include "tap.h"

static char *helper_argv[] = { "helper", NULL };

static int run(const posix_spawnattr_t *attr, char *out, size_t size)
{
	int status = -1, err;

	err = spawn_capture(helper_path(), 0, NULL, attr, helper_argv, environ,
			    out, size, &status);
	return err ? err : (status ? -1 : 0);
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

	ok(sizeof(posix_spawnattr_t) == 336 && _Alignof(posix_spawnattr_t) == 8 &&
	   sizeof(posix_spawn_file_actions_t) == 80,
	   "glibc x86_64 type sizes (336, 80) and alignment");
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
	posix_spawnattr_destroy(&a);
}

static void test_ids_and_sched(void)
{
	posix_spawnattr_t a;
	struct sched_param sp = { .sched_priority = 0 };
	char out[8192];

	posix_spawnattr_init(&a);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_RESETIDS);
	ok(run(&a, out, sizeof(out)) == 0 &&
	   num(out, "euid") == num(out, "uid") && num(out, "egid") == num(out, "gid"),
	   "RESETIDS: effective ids equal real ids");
	ok_backend(NULL, &a, 0, "RESETIDS");

	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSCHEDULER);
	posix_spawnattr_setschedpolicy(&a, SCHED_OTHER);
	posix_spawnattr_setschedparam(&a, &sp);
	ok(run(&a, out, sizeof(out)) == 0 && num(out, "policy") == SCHED_OTHER,
	   "SETSCHEDULER applies the policy");
	ok_backend(NULL, &a, 0, "SETSCHEDULER");

	sp.sched_priority = 50;
	posix_spawnattr_setschedparam(&a, &sp);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSCHEDPARAM);
	ok(run(&a, out, sizeof(out)) == EINVAL,
	   "SETSCHEDPARAM with a priority invalid for SCHED_OTHER is EINVAL");

	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETCGROUP);
	posix_spawnattr_setcgroup_np(&a, open("/dev/null", O_RDONLY | O_CLOEXEC));
	ok(run(&a, out, sizeof(out)) != 0 && no_zombies(),
	   "SETCGROUP with an fd that is not a cgroup fails, nothing left");
	posix_spawnattr_destroy(&a);
}

int main(void)
{
	tap_plan(21);
	test_abi_and_accessors();
	test_signals();
	test_process_groups();
	test_ids_and_sched();
	return tap_done();
}
