/* SPDX-License-Identifier: MIT */
/*
 * File actions and attributes are glibc's objects: built by glibc's
 * functions (found in libc.so.6 with dlsym) and used by the library's, and
 * the reverse, for every action kind and attribute, each checked in the
 * state of the child that ran them.  Also destroy across the two: the
 * paths glibc strdup'd are freed by the library's destroy and the reverse
 * (the heap in use returns to where it was).
 */
#include <dlfcn.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>

#include "tap.h"

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

/* One implementation of the posix_spawn family. */
struct impl {
	const char *name;
	int (*fa_init)(posix_spawn_file_actions_t *);
	int (*fa_destroy)(posix_spawn_file_actions_t *);
	int (*adddup2)(posix_spawn_file_actions_t *, int, int);
	int (*addclose)(posix_spawn_file_actions_t *, int);
	int (*addopen)(posix_spawn_file_actions_t *, int, const char *, int,
		       mode_t);
	int (*addchdir)(posix_spawn_file_actions_t *, const char *);
	int (*addfchdir)(posix_spawn_file_actions_t *, int);
	int (*addclosefrom)(posix_spawn_file_actions_t *, int);
	int (*addtcsetpgrp)(posix_spawn_file_actions_t *, int);
	int (*at_init)(posix_spawnattr_t *);
	int (*at_destroy)(posix_spawnattr_t *);
	int (*setflags)(posix_spawnattr_t *, short);
	int (*getflags)(const posix_spawnattr_t *, short *);
	int (*setpgroup)(posix_spawnattr_t *, pid_t);
	int (*getpgroup)(const posix_spawnattr_t *, pid_t *);
	int (*setsigmask)(posix_spawnattr_t *, const sigset_t *);
	int (*getsigmask)(const posix_spawnattr_t *, sigset_t *);
	int (*setsigdefault)(posix_spawnattr_t *, const sigset_t *);
	int (*getsigdefault)(const posix_spawnattr_t *, sigset_t *);
	int (*setschedpolicy)(posix_spawnattr_t *, int);
	int (*getschedpolicy)(const posix_spawnattr_t *, int *);
	int (*setschedparam)(posix_spawnattr_t *, const struct sched_param *);
	int (*getschedparam)(const posix_spawnattr_t *, struct sched_param *);
	spawn_fn *spawn;
};

static const struct impl lib = {
	"library",
	posix_spawn_file_actions_init, posix_spawn_file_actions_destroy,
	posix_spawn_file_actions_adddup2, posix_spawn_file_actions_addclose,
	posix_spawn_file_actions_addopen, posix_spawn_file_actions_addchdir_np,
	posix_spawn_file_actions_addfchdir_np,
	posix_spawn_file_actions_addclosefrom_np,
	posix_spawn_file_actions_addtcsetpgrp_np,
	posix_spawnattr_init, posix_spawnattr_destroy,
	posix_spawnattr_setflags, posix_spawnattr_getflags,
	posix_spawnattr_setpgroup, posix_spawnattr_getpgroup,
	posix_spawnattr_setsigmask, posix_spawnattr_getsigmask,
	posix_spawnattr_setsigdefault, posix_spawnattr_getsigdefault,
	posix_spawnattr_setschedpolicy, posix_spawnattr_getschedpolicy,
	posix_spawnattr_setschedparam, posix_spawnattr_getschedparam,
	posix_spawn,
};

static struct impl gl = { .name = "glibc" };

static void *libc_sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p) {
		printf("Bail out! %s not in libc.so.6: %s\n", name, dlerror());
		exit(1);
	}
	return p;
}

static void load_glibc(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	if (!h) {
		printf("Bail out! dlopen libc.so.6: %s\n", dlerror());
		exit(1);
	}
#define G(field, name) (*(void **)&gl.field = libc_sym(h, name))
	G(fa_init, "posix_spawn_file_actions_init");
	G(fa_destroy, "posix_spawn_file_actions_destroy");
	G(adddup2, "posix_spawn_file_actions_adddup2");
	G(addclose, "posix_spawn_file_actions_addclose");
	G(addopen, "posix_spawn_file_actions_addopen");
	G(addchdir, "posix_spawn_file_actions_addchdir_np");
	G(addfchdir, "posix_spawn_file_actions_addfchdir_np");
	G(addclosefrom, "posix_spawn_file_actions_addclosefrom_np");
	G(addtcsetpgrp, "posix_spawn_file_actions_addtcsetpgrp_np");
	G(at_init, "posix_spawnattr_init");
	G(at_destroy, "posix_spawnattr_destroy");
	G(setflags, "posix_spawnattr_setflags");
	G(getflags, "posix_spawnattr_getflags");
	G(setpgroup, "posix_spawnattr_setpgroup");
	G(getpgroup, "posix_spawnattr_getpgroup");
	G(setsigmask, "posix_spawnattr_setsigmask");
	G(getsigmask, "posix_spawnattr_getsigmask");
	G(setsigdefault, "posix_spawnattr_setsigdefault");
	G(getsigdefault, "posix_spawnattr_getsigdefault");
	G(setschedpolicy, "posix_spawnattr_setschedpolicy");
	G(getschedpolicy, "posix_spawnattr_getschedpolicy");
	G(setschedparam, "posix_spawnattr_setschedparam");
	G(getschedparam, "posix_spawnattr_getschedparam");
	G(spawn, "posix_spawn");
#undef G
	/* The library's own, not glibc's, must be what the plain names are. */
	if ((void *)gl.spawn == (void *)posix_spawn ||
	    (void *)gl.adddup2 == (void *)posix_spawn_file_actions_adddup2) {
		printf("Bail out! libc's functions are the library's\n");
		exit(1);
	}
}

static char *helper_argv[] = { "helper", NULL };
static int cap[2] = { -1, -1 };

/* A list from @b whose first action puts a fresh pipe on stdout. */
static void list_init(const struct impl *b, posix_spawn_file_actions_t *fa)
{
	if (pipe2(cap, O_CLOEXEC) < 0)
		abort();
	b->fa_init(fa);
	b->adddup2(fa, cap[1], 1);
}

/* Spawn the helper with @s; its report in @out; the error or -1/status. */
static int run_with(const struct impl *s, posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attr, char *out, size_t size)
{
	size_t used = 0;
	ssize_t n;
	pid_t pid;
	int err, st;

	err = s->spawn(&pid, helper_path(), fa, attr, helper_argv, environ);
	close(cap[1]);
	while (!err && used + 1 < size &&
	       (n = read(cap[0], out + used, size - 1 - used)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		used += (size_t)n;
	}
	out[used] = '\0';
	close(cap[0]);
	if (err)
		return err;
	st = wait_status(pid);
	return st ? -1 - st : 0;
}

static long num(const char *report, const char *key)
{
	char buf[64];

	return strtol(report_get(report, key, buf, sizeof(buf)), NULL, 0);
}

static unsigned long long hex(const char *report, const char *key)
{
	char buf[64];

	return strtoull(report_get(report, key, buf, sizeof(buf)), NULL, 16);
}

static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

static char dir[64];
static int open_pty(char *name, size_t size)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
	    ptsname_r(m, name, size) != 0) {
		if (m >= 0)
			close(m);
		return -1;
	}
	return m;
}

/* Every action kind built by @b, run by @s, destroyed by @s. */
static void actions_across(const struct impl *b, const struct impl *s)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char out[8192], cwd[128], pts[128];
	int keep = open("/dev/null", O_RDONLY);	/* inheritable */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int high, m, err;
	size_t before;

	/* dup2 */
	list_init(b, &fa);
	b->adddup2(&fa, keep, 40);
	err = run_with(s, &fa, NULL, out, sizeof(out));
	ok(err == 0 && has_fd(out, 40) && has_fd(out, keep),
	   "%s adddup2, %s posix_spawn: the child has fd 40 (%d)", b->name,
	   s->name, err);
	s->fa_destroy(&fa);

	/* close */
	list_init(b, &fa);
	b->addclose(&fa, keep);
	err = run_with(s, &fa, NULL, out, sizeof(out));
	ok(err == 0 && !has_fd(out, keep) && has_fd(out, 1),
	   "%s addclose, %s posix_spawn: fd %d is closed (%d)", b->name,
	   s->name, keep, err);
	s->fa_destroy(&fa);

	/* open + chdir, then destroy by the other side frees both paths */
	before = heap_in_use();
	list_init(b, &fa);
	b->addopen(&fa, 41, "/dev/null", O_RDONLY, 0);
	b->addchdir(&fa, dir);
	err = run_with(s, &fa, NULL, out, sizeof(out));
	ok(err == 0 && has_fd(out, 41) &&
	   strcmp(report_get(out, "cwd", cwd, sizeof(cwd)), dir) == 0,
	   "%s addopen+addchdir_np, %s posix_spawn: fd 41 open, cwd %s (%d)",
	   b->name, s->name, cwd, err);
	s->fa_destroy(&fa);
	ok(heap_in_use() == before,
	   "%s destroy frees %s's list and paths (%zu -> %zu bytes in use)",
	   s->name, b->name, before, heap_in_use());

	/* an open that fails reports its error */
	list_init(b, &fa);
	b->addopen(&fa, 41, "/nonexistent/x", O_RDONLY, 0);
	err = run_with(s, &fa, NULL, out, sizeof(out));
	ok(err == ENOENT && no_zombies(),
	   "%s addopen of a missing file, %s posix_spawn: ENOENT (%d)",
	   b->name, s->name, err);
	s->fa_destroy(&fa);

	/* fchdir */
	list_init(b, &fa);
	b->addfchdir(&fa, dfd);
	err = run_with(s, &fa, NULL, out, sizeof(out));
	ok(err == 0 && strcmp(report_get(out, "cwd", cwd, sizeof(cwd)), dir) == 0,
	   "%s addfchdir_np, %s posix_spawn: cwd %s (%d)", b->name, s->name,
	   cwd, err);
	s->fa_destroy(&fa);

	/* fchdir(-1): accepted by both, EBADF at spawn time */
	list_init(b, &fa);
	err = b->addfchdir(&fa, -1);
	ok(err == 0 && run_with(s, &fa, NULL, out, sizeof(out)) == EBADF &&
	   no_zombies(),
	   "%s addfchdir_np(-1) accepted, %s posix_spawn: EBADF", b->name,
	   s->name);
	s->fa_destroy(&fa);

	/* closefrom */
	high = fcntl(keep, F_DUPFD, 60);
	list_init(b, &fa);
	b->addclosefrom(&fa, 50);
	err = run_with(s, &fa, NULL, out, sizeof(out));
	ok(err == 0 && high >= 60 && !has_fd(out, high) && has_fd(out, keep),
	   "%s addclosefrom_np(50), %s posix_spawn: fd %d closed, fd %d kept (%d)",
	   b->name, s->name, high, keep, err);
	s->fa_destroy(&fa);
	close(high);

	/* tcsetpgrp in a new session on a pty */
	m = open_pty(pts, sizeof(pts));
	b->at_init(&attr);
	b->setflags(&attr, POSIX_SPAWN_SETSID);
	list_init(b, &fa);
	b->addopen(&fa, 20, pts, O_RDWR, 0);
	b->addtcsetpgrp(&fa, 20);
	err = m < 0 ? -100 : run_with(s, &fa, &attr, out, sizeof(out));
	ok(err == 0 && num(out, "tpgid") == num(out, "pid") &&
	   num(out, "sid") == num(out, "pid"),
	   "%s SETSID+addopen(pty)+addtcsetpgrp_np, %s posix_spawn: foreground "
	   "group is the child's (%d, tpgid %ld, pid %ld)", b->name, s->name,
	   err, num(out, "tpgid"), num(out, "pid"));
	s->fa_destroy(&fa);
	s->at_destroy(&attr);
	if (m >= 0)
		close(m);

	close(keep);
	close(dfd);
}

/* A list grown by both sides in turn (glibc grows by 8, the library by x2). */
static void mixed_list(const struct impl *s)
{
	posix_spawn_file_actions_t fa;
	char out[8192], cwd[128];
	int keep = open("/dev/null", O_RDONLY);
	size_t before = heap_in_use();
	int err;

	if (pipe2(cap, O_CLOEXEC) < 0)
		abort();
	gl.fa_init(&fa);
	lib.adddup2(&fa, cap[1], 1);
	for (int i = 0; i < 20; i++) {
		const struct impl *b = i % 2 ? &gl : &lib;

		b->addopen(&fa, 70 + i, "/dev/null", O_RDONLY, 0);
		b->addclose(&fa, 70 + i - (i % 3 == 0));
	}
	gl.addchdir(&fa, "/");
	lib.addchdir(&fa, dir);
	gl.addclose(&fa, keep);
	err = run_with(s, &fa, NULL, out, sizeof(out));
	/* fds 70, 73, ..., 88 stay open; the others were closed again */
	ok(err == 0 && !has_fd(out, keep) && has_fd(out, 70) &&
	   !has_fd(out, 71) && has_fd(out, 88) && !has_fd(out, 89) &&
	   strcmp(report_get(out, "cwd", cwd, sizeof(cwd)), dir) == 0,
	   "a list built by both in turn (44 actions), %s posix_spawn: all "
	   "applied in order (%d)", s->name, err);
	(s == &lib ? gl : lib).fa_destroy(&fa);
	ok(heap_in_use() == before, "... and freed by the other's destroy "
	   "(%zu -> %zu bytes in use)", before, heap_in_use());
	close(keep);
}

static int set_has(unsigned long long bits, int sig)
{
	return (bits >> sig) & 1;
}

/* Every attribute set by @b, read back and spawned with by @s. */
static void attrs_across(const struct impl *b, const struct impl *s)
{
	struct sched_param sp = { .sched_priority = 3 }, gsp;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t mask, def, got;
	short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
		      POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSCHEDULER, gflags;
	char out[8192];
	pid_t pgrp;
	int policy, err, rt;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigemptyset(&def);
	sigaddset(&def, SIGUSR2);
	b->at_init(&attr);
	b->setflags(&attr, flags);
	b->setpgroup(&attr, 0);
	b->setsigmask(&attr, &mask);
	b->setsigdefault(&attr, &def);
	b->setschedpolicy(&attr, SCHED_RR);
	b->setschedparam(&attr, &sp);

	ok(s->getflags(&attr, &gflags) == 0 && gflags == flags &&
	   s->getpgroup(&attr, &pgrp) == 0 && pgrp == 0 &&
	   s->getsigmask(&attr, &got) == 0 && sigismember(&got, SIGUSR1) == 1 &&
	   sigismember(&got, SIGUSR2) == 0 &&
	   s->getsigdefault(&attr, &got) == 0 && sigismember(&got, SIGUSR2) == 1 &&
	   s->getschedpolicy(&attr, &policy) == 0 && policy == SCHED_RR &&
	   s->getschedparam(&attr, &gsp) == 0 && gsp.sched_priority == 3,
	   "%s setters, %s getters: the same flags, pgroup, masks and scheduler",
	   b->name, s->name);

	/* A realtime policy needs privilege: without it, leave it out. */
	rt = sched_get_priority_max(SCHED_RR) >= 3 && geteuid() == 0;
	if (!rt)
		b->setflags(&attr, flags & ~POSIX_SPAWN_SETSCHEDULER);
	signal(SIGUSR2, SIG_IGN);
	list_init(b, &fa);
	err = run_with(s, &fa, &attr, out, sizeof(out));
	signal(SIGUSR2, SIG_DFL);
	ok(err == 0 && num(out, "pgid") == num(out, "pid") &&
	   set_has(hex(out, "sigmask"), SIGUSR1) &&
	   !set_has(hex(out, "sigign"), SIGUSR2) &&
	   (!rt || (num(out, "policy") == SCHED_RR &&
		    num(out, "priority") == 3)),
	   "%s attributes, %s posix_spawn: own group, SIGUSR1 blocked, SIGUSR2 "
	   "default, %s (%d, pgid %ld pid %ld mask %llx policy %ld)", b->name,
	   s->name, rt ? "SCHED_RR 3" : "scheduler not checked (no privilege)",
	   err, num(out, "pgid"), num(out, "pid"), hex(out, "sigmask"),
	   num(out, "policy"));
	s->fa_destroy(&fa);
	s->at_destroy(&attr);

	b->at_init(&attr);
	b->setflags(&attr, POSIX_SPAWN_SETSID);
	list_init(b, &fa);
	err = run_with(s, &fa, &attr, out, sizeof(out));
	ok(err == 0 && num(out, "sid") == num(out, "pid"),
	   "%s SETSID, %s posix_spawn: a new session (%d)", b->name, s->name,
	   err);
	s->fa_destroy(&fa);
	s->at_destroy(&attr);
}

/*
 * The extensions glibc 2.36 lacks: the cgroup lives where glibc 2.39 keeps
 * __cgroup (the first int of __pad), which older glibc never reads; a
 * glibc-initialised object has no cgroup; glibc's posix_spawn takes an
 * object carrying them (it ignores flags it does not know).
 */
static void extensions(void)
{
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t fa;
	char out[8192];
	int cg = -1, err;
	short flags;

	memset(&attr, 0xff, sizeof(attr));
	gl.at_init(&attr);
	err = posix_spawnattr_getcgroup_np(&attr, &cg);
	ok(err == 0 && cg == 0, "glibc init: the library reads no cgroup (%d)",
	   cg);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setcgroup_np(&attr, 1234);
	ok(attr.__pad[0] == 1234 && attr.__policy == 0,
	   "the cgroup is stored in __pad[0], glibc 2.39's __cgroup");
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID |
				 POSIX_SPAWN_CLOEXEC_DEFAULT_NP);
	list_init(&lib, &fa);
	err = run_with(&gl, &fa, &attr, out, sizeof(out));
	flags = 0;
	gl.getflags(&attr, &flags);
	ok(flags == (POSIX_SPAWN_SETSID | POSIX_SPAWN_CLOEXEC_DEFAULT_NP) &&
	   err == 0 && num(out, "sid") == num(out, "pid"),
	   "glibc reads an object with the library's extensions: flags 0x%x, "
	   "spawn %d", flags, err);
	gl.fa_destroy(&fa);
}

int main(int argc, char **argv)
{
	const struct impl *sides[2] = { &lib, &gl };
	const char *tun = getenv("GLIBC_TUNABLES");

	/*
	 * mallinfo2() counts chunks parked in the thread cache as in use:
	 * run without it so that the heap checks see every free().
	 */
	if (argc > 0 && (!tun || !strstr(tun, "tcache_count=0"))) {
		setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
		execv("/proc/self/exe", argv);
		printf("Bail out! re-exec: %s\n", strerror(errno));
		return 1;
	}

	load_glibc();
	snprintf(dir, sizeof(dir), "/tmp/pfs-compat-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	tap_plan(2 * 2 * 9 + 2 * 2 + 2 * 2 * 3 + 3);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			actions_across(sides[i], sides[j]);
	mixed_list(&lib);
	mixed_list(&gl);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			attrs_across(sides[i], sides[j]);
	extensions();
	rmdir(dir);
	return tap_done();
}
