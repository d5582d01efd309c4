/* SPDX-License-Identifier: MIT */
/*
 * fuzz: a differential fuzzer for libpidfdspawn's posix_spawn family.
 *
 * From a seed it builds random posix_spawn/posix_spawnp requests (file
 * actions, attributes, PATH, argv/envp) and runs each one through glibc's
 * posix_spawn (looked up with dlsym in libc.so.6 itself, never the
 * interposed symbol; the request is built with glibc's own
 * posix_spawn_file_actions_* and posix_spawnattr_* functions) and through
 * the library (built with the library's functions, the backend forced per
 * request with PIDFDSPAWN_BACKEND, which the library reads at every call).
 * Every child is fuzz-child, which reports its whole state; the return
 * value, errno, the add-time results, the wait status, the report and the
 * parent's fd count must be the same.  Any difference is printed with the
 * seed and the index that reproduce it (--seed S --index I -v).
 *
 * Requests run in batches; each batch is a forked "parent" with its own
 * shape (fd table, rlimit, threads, signal state, ids, session and
 * terminal, scheduler, umask, cwd) derived from the seed and the batch
 * number, so one index reproduces alone.
 *
 * Output is TAP 13.  Exit 0 when every backend had no difference.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "pidfdspawn.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif
#ifndef SCHED_BATCH
#define SCHED_BATCH 3
#endif
#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif
#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif

#define BATCH 40		/* requests per forked parent */
#define MAXACT 1300
/* The kernel builder's limit: 64 KiB of 56-byte action records. */
#define BUILDER_MAX_ACTIONS 1170
#define SIDE_TIMEOUT 120
static long SHOW_PER_SIG = 3;	/* detailed differences per signature (FUZZ_SHOW) */	/* seconds, per side (TCG + KASAN is slow) */

/* ---- random numbers ---------------------------------------------------- */

static uint64_t rs;

static uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned rn(unsigned n)
{
	return n ? (unsigned)(rnd() % n) : 0;
}

static int chance(unsigned pct)
{
	return rn(100) < pct;
}

static void reseed(uint64_t seed, uint64_t what, uint64_t n)
{
	rs = seed * 0x100000001b3ULL ^ (what << 56) ^ n * 0xff51afd7ed558ccdULL;
	rnd();
}

/* ---- the two implementations ------------------------------------------- */

struct impl {
	const char *name;
	int (*fa_init)(posix_spawn_file_actions_t *);
	int (*fa_destroy)(posix_spawn_file_actions_t *);
	int (*addopen)(posix_spawn_file_actions_t *, int, const char *, int, mode_t);
	int (*addclose)(posix_spawn_file_actions_t *, int);
	int (*adddup2)(posix_spawn_file_actions_t *, int, int);
	int (*addchdir)(posix_spawn_file_actions_t *, const char *);
	int (*addfchdir)(posix_spawn_file_actions_t *, int);
	int (*addclosefrom)(posix_spawn_file_actions_t *, int);
	int (*addtcsetpgrp)(posix_spawn_file_actions_t *, int);
	int (*at_init)(posix_spawnattr_t *);
	int (*at_destroy)(posix_spawnattr_t *);
	int (*setflags)(posix_spawnattr_t *, short);
	int (*setpgroup)(posix_spawnattr_t *, pid_t);
	int (*setsigmask)(posix_spawnattr_t *, const sigset_t *);
	int (*setsigdefault)(posix_spawnattr_t *, const sigset_t *);
	int (*setschedpolicy)(posix_spawnattr_t *, int);
	int (*setschedparam)(posix_spawnattr_t *, const struct sched_param *);
	int (*spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);
	int (*spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		      const posix_spawnattr_t *, char *const[], char *const[]);
};

static struct impl glibc, lib = {
	"library",
	posix_spawn_file_actions_init, posix_spawn_file_actions_destroy,
	posix_spawn_file_actions_addopen, posix_spawn_file_actions_addclose,
	posix_spawn_file_actions_adddup2, posix_spawn_file_actions_addchdir_np,
	posix_spawn_file_actions_addfchdir_np,
	posix_spawn_file_actions_addclosefrom_np,
	posix_spawn_file_actions_addtcsetpgrp_np,
	posix_spawnattr_init, posix_spawnattr_destroy, posix_spawnattr_setflags,
	posix_spawnattr_setpgroup, posix_spawnattr_setsigmask,
	posix_spawnattr_setsigdefault, posix_spawnattr_setschedpolicy,
	posix_spawnattr_setschedparam, posix_spawn, posix_spawnp,
};

static void *need(void *h, const char *sym)
{
	void *p = dlsym(h, sym);

	if (!p) {
		printf("Bail out! libc.so.6 has no %s\n", sym);
		exit(1);
	}
	return p;
}

static void load_glibc(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	if (!h)
		h = dlopen("libc.so.6", RTLD_NOW);
	if (!h) {
		printf("Bail out! dlopen libc.so.6: %s\n", dlerror());
		exit(1);
	}
	glibc.name = "glibc";
#define G(field, sym) glibc.field = need(h, sym)
	G(fa_init, "posix_spawn_file_actions_init");
	G(fa_destroy, "posix_spawn_file_actions_destroy");
	G(addopen, "posix_spawn_file_actions_addopen");
	G(addclose, "posix_spawn_file_actions_addclose");
	G(adddup2, "posix_spawn_file_actions_adddup2");
	G(addchdir, "posix_spawn_file_actions_addchdir_np");
	G(addfchdir, "posix_spawn_file_actions_addfchdir_np");
	G(addclosefrom, "posix_spawn_file_actions_addclosefrom_np");
	G(addtcsetpgrp, "posix_spawn_file_actions_addtcsetpgrp_np");
	G(at_init, "posix_spawnattr_init");
	G(at_destroy, "posix_spawnattr_destroy");
	G(setflags, "posix_spawnattr_setflags");
	G(setpgroup, "posix_spawnattr_setpgroup");
	G(setsigmask, "posix_spawnattr_setsigmask");
	G(setsigdefault, "posix_spawnattr_setsigdefault");
	G(setschedpolicy, "posix_spawnattr_setschedpolicy");
	G(setschedparam, "posix_spawnattr_setschedparam");
	G(spawn, "posix_spawn");
	G(spawnp, "posix_spawnp");
#undef G
	if ((void *)glibc.spawn == (void *)posix_spawn) {
		printf("Bail out! dlsym gave the library's posix_spawn, not glibc's\n");
		exit(1);
	}
}

/* ---- options, global state --------------------------------------------- */

static uint64_t seed;
static long count = 1000, only_index = -1;
static int verbose;
static const char *backends[2];
static int nbackends;
static char root[PATH_MAX];	/* R: bins, per-batch dirs */
static char batchdir[PATH_MAX];	/* B */
static int ctl = -1;		/* to the main process */
static int base_nofile;		/* the soft RLIMIT_NOFILE we started with */
static int ctl_fd;		/* where ctl lives in a batch */
static int perturb;		/* FUZZ_PERTURB: prove the comparison fails */

static void say(const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (ctl >= 0) {
		for (int done = 0; done < n;) {
			ssize_t w = write(ctl, line + done, n - done);

			if (w <= 0)
				_exit(9);
			done += w;
		}
	} else {
		fputs(line, stdout);
		fflush(stdout);
	}
}

/* ---- text buffers ------------------------------------------------------- */

struct buf {
	char *p;
	size_t len, cap;
};

static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL,
			      b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (b->p && n >= 0 && (size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap * 2 + (size_t)n + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	b->len += (size_t)n;
}

/* ---- the parent's shape -------------------------------------------------- */

enum fixkind {
	FX_FILE_RD, FX_FILE_APPEND, FX_DIR, FX_PIPE_R, FX_PIPE_W, FX_NULL,
	FX_SOCK, FX_EVENTFD, FX_OPATH, FX_PTY_MASTER, FX_PTY_SLAVE, FX_NKINDS
};
static const char *const fixname[] = {
	"file", "append", "dir", "pipe-r", "pipe-w", "null", "sock", "eventfd",
	"opath", "ptm", "pts",
};

struct shape {
	int nofile;		/* soft RLIMIT_NOFILE in force */
	int low_nofile, full, free_slots;
	int nfix;
	struct { int fd, kind, cloexec; } fix[FX_NKINDS];
	int many;		/* extra inherited fds */
	int threads;
	int handlers, ignores, blocked;
	int ids;		/* 0, 1 = rgid 100, 2 = ruid and rgid 100 */
	int tty;
	int fifo_held;
	int cwd_sub;		/* cwd is B/d instead of B */
	int umask;
	int sched;
	int close0;
	int helper;		/* pid of a process group leader in our session */
	char pts[64];
	int spare[4], nspare;
	int dirfd_d;		/* a fixture fd on B/d, or -1 */
};

static struct shape sh;

static const int handled_sigs[] = { SIGUSR1, SIGTERM, SIGWINCH, 35, 40 };
static const int ignored_sigs[] = { SIGPIPE, SIGHUP, SIGUSR2, 45, SIGTSTP };
static const int blocked_sigs[] = { SIGINT, SIGQUIT, 50, SIGUSR1, SIGTERM };

static void on_signal(int sig)
{
	(void)sig;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void path_in(char *out, const char *dir, const char *name)
{
	snprintf(out, PATH_MAX, "%s/%s", dir, name);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		say("Bail out! cannot write %s: %s\n", path, strerror(errno));
		_exit(1);
	}
	close(fd);
	chmod(path, mode);
}

static const char ftext[] = "0123456789abcdefghijklmnopqrstuvwxyz\n";

/* Reset what a request may have changed in the batch directory. */
static void reset_fixture(void)
{
	static const char *const gone[] = {
		"new1", "new2", "d/new3", "d/new1", "gone", "report",
	};
	char p[PATH_MAX];
	struct stat st;
	int fd;

	for (size_t i = 0; i < sizeof(gone) / sizeof(*gone); i++) {
		path_in(p, batchdir, gone[i]);
		unlink(p);
	}
	for (int i = 0; i < 2; i++) {
		path_in(p, batchdir, i ? "ro" : "f");
		/* In place: the fixture fds on it keep their description. */
		if (stat(p, &st) == 0 && st.st_size == sizeof(ftext) - 1)
			continue;
		fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd >= 0) {
			(void)!write(fd, ftext, sizeof(ftext) - 1);
			close(fd);
		}
	}
}

static void place(int fd, int at, int cloexec)
{
	if (fd != at) {
		if (dup3(fd, at, cloexec ? O_CLOEXEC : 0) < 0) {
			say("Bail out! dup3 %d %d: %s\n", fd, at, strerror(errno));
			_exit(1);
		}
		close(fd);
	} else {
		fcntl(fd, F_SETFD, cloexec ? FD_CLOEXEC : 0);
	}
}

static int taken(int fd)
{
	return fd == ctl_fd || fcntl(fd, F_GETFD) >= 0;
}

static int free_fd_number(int lo, int hi)
{
	for (int tries = 0; tries < 1000; tries++) {
		int fd = lo + (int)rn((unsigned)(hi - lo));

		if (!taken(fd))
			return fd;
	}
	return -1;
}

static void spare_drop(void)
{
	for (int i = 0; i < sh.nspare; i++)
		close(sh.spare[i]);
}

static void spare_fill(void)
{
	for (int i = 0; i < sh.nspare; i++) {
		int t = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (t >= 0 && t != sh.spare[i]) {
			dup3(t, sh.spare[i], O_CLOEXEC);
			close(t);
		}
	}
}

static void describe_shape(struct buf *b)
{
	bprintf(b, "nofile=%d%s fds=", sh.nofile, sh.full ? " full" : "");
	for (int i = 0; i < sh.nfix; i++)
		bprintf(b, "%s%d:%s%s", i ? "," : "", sh.fix[i].fd,
			fixname[sh.fix[i].kind], sh.fix[i].cloexec ? "(ce)" : "");
	bprintf(b, " many=%d threads=%d handled=0x%x ignored=0x%x blocked=0x%x ids=%d tty=%d fifo_held=%d cwd=%s umask=0%o sched=%d close0=%d",
		sh.many, sh.threads, sh.handlers, sh.ignores, sh.blocked,
		sh.ids, sh.tty, sh.fifo_held, sh.cwd_sub ? "B/d" : "B",
		sh.umask, sh.sched, sh.close0);
}

/* Make this process (a fresh fork of main) the batch's parent. */
static void setup_shape(long b)
{
	char p[PATH_MAX];
	int fd, pfd[2], sv[2], i;

	memset(&sh, 0, sizeof(sh));
	sh.dirfd_d = -1;
	sh.helper = -1;
	reseed(seed, 1, (uint64_t)b);

	snprintf(batchdir, sizeof(batchdir), "%s/b%ld", root, b);
	if (mkdir(batchdir, 0777) && errno != EEXIST) {
		say("Bail out! mkdir %s: %s\n", batchdir, strerror(errno));
		_exit(1);
	}
	chmod(batchdir, 0777);
	path_in(p, batchdir, "d");
	mkdir(p, 0777);
	chmod(p, 0777);
	path_in(p, batchdir, "f");
	write_file(p, ftext, 0644);
	path_in(p, batchdir, "ro");
	write_file(p, ftext, 0400);
	path_in(p, batchdir, "fifo");
	mkfifo(p, 0666);
	path_in(p, batchdir, "link");
	symlink("f", p);
	path_in(p, batchdir, "dangle");
	symlink("gone", p);
	reset_fixture();

	sh.nofile = base_nofile;
	sh.tty = chance(25);
	sh.fifo_held = chance(30);
	sh.cwd_sub = chance(30);
	sh.umask = (int[]){ 022, 077, 0, 027 }[rn(4)];
	sh.close0 = chance(8);
	sh.sched = chance(70) ? 0 : 1 + (int)rn(3);
	if (getuid() == 0 && geteuid() == 0)
		sh.ids = chance(70) ? 0 : 1 + (int)rn(2);
	sh.threads = chance(70) ? 0 : 1 + (int)rn(4);
	sh.handlers = rn(32);
	sh.ignores = rn(32);
	sh.blocked = chance(50) ? 0 : (int)rn(32);
	sh.low_nofile = chance(20);
	sh.many = chance(15) ? 50 + (int)rn(300) : (chance(30) ? (int)rn(20) : 0);

	if (sh.close0)
		close(0);
	if (sh.tty) {
		int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

		if (m < 0 || grantpt(m) || unlockpt(m) || setsid() < 0 ||
		    ptsname_r(m, sh.pts, sizeof(sh.pts))) {
			sh.tty = 0;
			if (m >= 0)
				close(m);
		} else {
			int s = open(sh.pts, O_RDWR);	/* our controlling tty */

			if (s < 0) {
				sh.tty = 0;
				close(m);
			} else {
				fd = free_fd_number(3, 40);
				place(m, fd, chance(50));
				sh.fix[sh.nfix].fd = fd;
				sh.fix[sh.nfix].kind = FX_PTY_MASTER;
				sh.fix[sh.nfix].cloexec = fcntl(fd, F_GETFD) & 1;
				sh.nfix++;
				fd = free_fd_number(3, 40);
				place(s, fd, chance(30));
				sh.fix[sh.nfix].fd = fd;
				sh.fix[sh.nfix].kind = FX_PTY_SLAVE;
				sh.fix[sh.nfix].cloexec = fcntl(fd, F_GETFD) & 1;
				sh.nfix++;
			}
		}
	}
	for (i = 0; i < FX_PTY_MASTER; i++) {
		int ce = chance(35), hi = chance(15);

		if (!chance(75))
			continue;
		switch (i) {
		case FX_FILE_RD:
			path_in(p, batchdir, "f");
			fd = open(p, O_RDONLY);
			lseek(fd, 3, SEEK_SET);
			break;
		case FX_FILE_APPEND:
			path_in(p, batchdir, "d/log");
			fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0600);
			break;
		case FX_DIR:
			path_in(p, batchdir, "d");
			fd = open(p, O_RDONLY | O_DIRECTORY);
			break;
		case FX_PIPE_R:
		case FX_PIPE_W:
			if (pipe(pfd))
				continue;
			fd = pfd[i == FX_PIPE_W];
			/* the other end stays open, close-on-exec */
			fcntl(pfd[i != FX_PIPE_W], F_SETFD, FD_CLOEXEC);
			place(pfd[i != FX_PIPE_W], free_fd_number(200, 260), 1);
			break;
		case FX_NULL:
			fd = open("/dev/null", O_RDWR);
			break;
		case FX_SOCK:
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
				continue;
			fd = sv[0];
			place(sv[1], free_fd_number(200, 260), 1);
			break;
		case FX_EVENTFD:
			fd = eventfd(0, EFD_NONBLOCK);
			break;
		default:
			path_in(p, batchdir, "f");
			fd = open(p, O_PATH);
			break;
		}
		if (fd < 0)
			continue;
		{
			int at = hi ? free_fd_number(100, 1000) :
				 free_fd_number(3, 30);

			if (at < 0)
				continue;
			place(fd, at, ce);
			sh.fix[sh.nfix].fd = at;
			sh.fix[sh.nfix].kind = i;
			sh.fix[sh.nfix].cloexec = ce;
			if (i == FX_DIR)
				sh.dirfd_d = at;
			sh.nfix++;
		}
	}
	if (sh.fifo_held) {
		path_in(p, batchdir, "fifo");
		fd = open(p, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			place(fd, free_fd_number(300, 400), 1);
		else
			sh.fifo_held = 0;
	}
	for (i = 0; i < sh.many; i++) {
		int at = free_fd_number(3, 1000);

		fd = open(i % 3 ? "/dev/null" : batchdir,
			  O_RDONLY | (i % 5 == 0 ? O_CLOEXEC : 0));
		if (fd >= 0 && at >= 0)
			place(fd, at, i % 5 == 0);
		else if (fd >= 0)
			close(fd);
	}

	/* The helper: a process group leader in our session (SETPGROUP target). */
	sh.helper = fork();
	if (sh.helper == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setpgid(0, 0);
		for (;;)
			pause();
	}
	if (sh.helper > 0)
		setpgid(sh.helper, sh.helper);

	for (i = 0; i < 5; i++) {
		struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

		if (sh.handlers & (1 << i))
			sigaction(handled_sigs[i], &sa, NULL);
	}
	for (i = 0; i < 5; i++)
		if (sh.ignores & (1 << i))
			signal(ignored_sigs[i], SIG_IGN);
	{
		sigset_t set;

		sigemptyset(&set);
		for (i = 0; i < 5; i++)
			if (sh.blocked & (1 << i))
				sigaddset(&set, blocked_sigs[i]);
		sigprocmask(SIG_BLOCK, &set, NULL);
	}
	umask((mode_t)sh.umask);
	path_in(p, batchdir, sh.cwd_sub ? "d" : ".");
	if (chdir(p)) {
		say("Bail out! chdir %s: %s\n", p, strerror(errno));
		_exit(1);
	}
	switch (sh.sched) {
	case 1: {
		struct sched_param sp = { 0 };

		sched_setscheduler(0, SCHED_BATCH, &sp);
		break;
	}
	case 2:
		setpriority(PRIO_PROCESS, 0, 5);
		break;
	case 3: {
		struct sched_param sp = { 0 };

		setpriority(PRIO_PROCESS, 0, -3);
		sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp);
		break;
	}
	}
	if (sh.ids >= 1)
		setresgid(100, 0, 0);
	if (sh.ids >= 2)
		setresuid(100, 0, 0);

	if (sh.low_nofile) {
		struct rlimit rl;
		int open_now = 0;

		for (fd = 0; fd < 1024; fd++)
			open_now += fcntl(fd, F_GETFD) >= 0;
		/* low, but above the fixture fds (below 40) */
		sh.nofile = 40 + (int)rn(60);
		for (i = 0; i < sh.nfix; i++)
			if (sh.fix[i].fd >= sh.nofile)
				sh.fix[i].fd = sh.fix[i].fd; /* stays: above the limit */
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = (rlim_t)sh.nofile;
		setrlimit(RLIMIT_NOFILE, &rl);
		sh.full = open_now < sh.nofile - 6 && chance(40);
		if (sh.full) {
			/* Fill the table, leaving 0..2 slots free, plus spares. */
			sh.free_slots = (int)rn(3);
			while ((fd = open("/dev/null", O_RDONLY)) >= 0)
				;
			for (i = 0; i < sh.free_slots; i++) {
				int hi = sh.nofile - 1;

				while (hi > 2 && fcntl(hi, F_GETFD) < 0)
					hi--;
				close(hi);
			}
			/* spares: the parent's own bookkeeping needs fds */
			for (sh.nspare = 0; sh.nspare < 3; sh.nspare++) {
				int hi = sh.nofile - 1 - sh.free_slots - sh.nspare;

				while (hi > 2 && (fcntl(hi, F_GETFD) < 0 || hi == ctl_fd))
					hi--;
				sh.spare[sh.nspare] = hi;
				fcntl(hi, F_SETFD, FD_CLOEXEC);
			}
		}
	}
	for (i = 0; i < sh.threads; i++) {
		pthread_t t;
		pthread_attr_t a;

		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 64 * 1024);
		pthread_create(&t, &a, idle_thread, NULL);
		pthread_attr_destroy(&a);
	}
}

/* ---- requests -------------------------------------------------------- */

enum akind { A_OPEN, A_CLOSE, A_DUP2, A_CHDIR, A_FCHDIR, A_CLOSEFROM, A_TCSETPGRP };

struct action {
	int kind, fd, newfd, oflag;
	mode_t mode;
	const char *path, *pname;
};

struct request {
	int spawnp, use_fa, use_attr, want_pid, in_thread;
	int nact;
	struct action act[MAXACT];
	int set_flags, set_pgroup, set_mask, set_def, set_policy, set_param;
	short flags;
	pid_t pgroup;
	sigset_t mask, def;
	int policy;
	struct sched_param param;
	const char *file, *fname;
	int path_set;
	char path[12000];
	char *argv[10], *envp[12];
	char strs[4][6000];
	struct buf desc;
};

static struct request rq;

/* Paths, by short name (for descriptions) and full value. */
struct pathc {
	const char *name;
	char path[PATH_MAX + 200];
	int creat_ok, fifo, rel_creat, trunc_ok;
};
static struct pathc opaths[32];
static int nopaths;
static char longpath[5200];

static void add_opath(const char *name, const char *value, int creat_ok,
		      int fifo, int rel_creat, int trunc_ok)
{
	struct pathc *p = &opaths[nopaths++];

	p->name = name;
	snprintf(p->path, sizeof(p->path), "%s", value);
	p->creat_ok = creat_ok;
	p->fifo = fifo;
	p->rel_creat = rel_creat;
	p->trunc_ok = trunc_ok;
}

static void make_paths(void)
{
	char p[PATH_MAX];

	nopaths = 0;
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = 0;
#define B(name) (path_in(p, batchdir, name), p)
	add_opath("B/f", B("f"), 1, 0, 0, 1);
	add_opath("B/d", B("d"), 1, 0, 0, 1);
	add_opath("B/fifo", B("fifo"), 1, 1, 0, 1);
	add_opath("B/new1", B("new1"), 1, 0, 0, 1);
	add_opath("B/new2", B("new2"), 1, 0, 0, 1);
	add_opath("B/d/new3", B("d/new3"), 1, 0, 0, 1);
	add_opath("B/link", B("link"), 1, 0, 0, 1);
	add_opath("B/dangle", B("dangle"), 1, 0, 0, 1);
	add_opath("B/ro", B("ro"), 1, 0, 0, 1);
	add_opath("B/nodir/x", B("nodir/x"), 1, 0, 0, 1);
	add_opath("B/f/x", B("f/x"), 1, 0, 0, 1);
	add_opath("/dev/null", "/dev/null", 1, 0, 0, 1);
	add_opath("/dev/tty", "/dev/tty", 1, 0, 0, 1);
	add_opath("\"\"", "", 1, 0, 0, 1);
	add_opath("LONG", longpath, 1, 0, 0, 1);
	add_opath("f", "f", 0, 0, 0, 0);
	add_opath("d", "d", 0, 0, 0, 0);
	add_opath("fifo", "fifo", 0, 1, 0, 0);
	add_opath("new1", "new1", 0, 0, 1, 0);
	add_opath(".", ".", 0, 0, 0, 0);
	add_opath("..", "..", 0, 0, 0, 0);
	if (sh.tty)
		add_opath("PTS", sh.pts, 1, 0, 0, 1);
#undef B
}

/* An fd number worth trying: fixture fds, std fds, free ones, limits. */
static int pick_fd(void)
{
	switch (rn(12)) {
	case 0: case 1: case 2: case 3:
		if (sh.nfix)
			return sh.fix[rn((unsigned)sh.nfix)].fd;
		/* fallthrough */
	case 4:
		return (int)rn(3);
	case 5: case 6:
		return 3 + (int)rn(12);
	case 7:
		return 15 + (int)rn(50);
	case 8:
		return sh.nofile - 1 + (int)rn(3);	/* at and above the limit */
	case 9:
		return (int[]){ -1, -2, INT_MAX, 1024, 65536, 1023 }[rn(6)];
	case 10:
		return sh.many ? (int)rn(1000) : (int)rn(40);
	default:
		return sh.nfix ? sh.fix[rn((unsigned)sh.nfix)].fd : 5;
	}
}

static const struct { int flag; const char *name; } oflags[] = {
	{ O_CREAT, "CREAT" }, { O_EXCL, "EXCL" }, { O_TRUNC, "TRUNC" },
	{ O_APPEND, "APPEND" }, { O_NONBLOCK, "NONBLOCK" }, { O_CLOEXEC, "CLOEXEC" },
	{ O_NOCTTY, "NOCTTY" }, { O_DIRECTORY, "DIRECTORY" }, { O_NOFOLLOW, "NOFOLLOW" },
	{ O_PATH, "PATH" }, { O_SYNC, "SYNC" }, { O_DSYNC, "DSYNC" },
	{ O_NOATIME, "NOATIME" }, { O_TMPFILE, "TMPFILE" }, { 0x10000000, "0x10000000" },
};

/* cwd model for relative O_CREAT: 0 unknown, 1 B, 2 B/d */
static int cwd_model;

static void gen_open(struct action *a)
{
	struct pathc *p = &opaths[rn((unsigned)nopaths)];
	int fl = (int[]){ O_RDONLY, O_WRONLY, O_RDWR, 3 }[rn(8) < 5 ? rn(3) : rn(4)];
	unsigned i, nfl = rn(4);

	for (i = 0; i < nfl; i++) {
		int f = oflags[rn(sizeof(oflags) / sizeof(*oflags))].flag;

		if (f == O_TMPFILE && !chance(30))
			continue;
		fl |= f;
	}
	if (fl & O_CREAT) {
		int ok = p->creat_ok ||
			 (p->rel_creat && cwd_model != 0);

		if (!ok)
			fl &= ~O_CREAT;
	}
	if ((fl & O_TMPFILE) == O_TMPFILE && !p->creat_ok)
		fl &= ~O_TMPFILE | O_DIRECTORY;
	if (!p->trunc_ok && !p->fifo)
		fl &= ~O_TRUNC;
	if (p->fifo && !sh.fifo_held && (fl & O_ACCMODE) != O_RDWR &&
	    !(fl & O_PATH))
		fl |= O_NONBLOCK;
	if (p->fifo && !sh.fifo_held && (fl & O_ACCMODE) == O_WRONLY &&
	    !(fl & O_NONBLOCK))
		fl |= O_NONBLOCK;
	a->kind = A_OPEN;
	a->fd = pick_fd();
	a->path = p->path;
	a->pname = p->name;
	a->oflag = fl;
	a->mode = chance(80) ? (mode_t)(int[]){ 0644, 0600, 0777, 0 }[rn(4)] :
		  (mode_t)rn(0200000);
}

static void gen_chdir(struct action *a)
{
	static const char *const names[] = {
		"B/d", "B", "d", "..", "/", "\"\"", "B/f", "B/nodir", "LONG", ".", "R",
	};
	static char vals[11][PATH_MAX];
	unsigned k = rn(11);

	path_in(vals[0], batchdir, "d");
	snprintf(vals[1], PATH_MAX, "%s", batchdir);
	strcpy(vals[2], "d");
	strcpy(vals[3], "..");
	strcpy(vals[4], "/");
	vals[5][0] = 0;
	path_in(vals[6], batchdir, "f");
	path_in(vals[7], batchdir, "nodir");
	snprintf(vals[8], PATH_MAX, "%.*s", PATH_MAX - 1, longpath);
	strcpy(vals[9], ".");
	snprintf(vals[10], PATH_MAX, "%s", root);
	a->kind = A_CHDIR;
	a->path = vals[k];
	a->pname = names[k];
	switch (k) {
	case 0: cwd_model = 2; break;
	case 1: cwd_model = 1; break;
	case 2: cwd_model = cwd_model == 1 ? 2 : 0; break;
	case 3: cwd_model = cwd_model == 2 ? 1 : 0; break;
	case 4: case 10: cwd_model = 0; break;
	default: break;	/* fails or stays */
	}
}

static void sig_random(sigset_t *s)
{
	sigemptyset(s);
	switch (rn(6)) {
	case 0:
		return;
	case 1:
		sigfillset(s);
		return;
	case 2:	/* every bit, also 32/33, SIGKILL, SIGSTOP and beyond 64 */
		memset(s, 0xff, sizeof(*s));
		return;
	default:
		for (unsigned i = 0, n = 1 + rn(6); i < n; i++) {
			int sig = (int)(rn(3) ? (int[]){ SIGUSR1, SIGUSR2, SIGTERM, SIGPIPE,
				SIGHUP, SIGINT, SIGCHLD, SIGWINCH, SIGTSTP, SIGTTOU, 35, 40, 45,
				50 }[rn(14)] : 1 + (int)rn(64));

			/* raw bits: glibc's sigaddset refuses 32 and 33 */
			((unsigned long *)s)[0] |= 1UL << (sig - 1);
		}
	}
}

static void append_str(char *dst, size_t cap, unsigned kind)
{
	switch (kind % 6) {
	case 0: snprintf(dst, cap, "%s", ""); break;
	case 1: snprintf(dst, cap, "arg with spaces\t\x01\xff"); break;
	case 2: memset(dst, 'a', cap - 1); dst[cap - 1] = 0; break;
	case 3: snprintf(dst, cap, "-v=%u", rn(1000)); break;
	case 4: snprintf(dst, cap, "=");  break;
	default: snprintf(dst, cap, "x%u", rn(100000)); break;
	}
}

static void gen_request(long idx)
{
	static char bins[7][PATH_MAX];
	static char report_env[PATH_MAX + 16];
	static const char *const pelem_names[] = {
		"R/bin1", "R/bin2", "R/bin3", "R/bin4", "R/bin5", "R/bin6",
		"R/missing", "\"\"", "B/f", "/", ".", "../bin1", "LONG", "bin2",
	};
	struct buf *d = &rq.desc;
	unsigned i, n;

	reseed(seed, 2, (uint64_t)idx);
	d->len = 0;
	if (d->p)
		d->p[0] = 0;
	for (i = 1; i <= 6; i++)
		snprintf(bins[i], PATH_MAX, "%s/bin%u", root, i);

	rq.spawnp = chance(35);
	rq.want_pid = chance(92);
	rq.in_thread = sh.threads && chance(25);
	rq.use_fa = chance(85);
	rq.use_attr = chance(70);

	/* the program */
	if (rq.spawnp) {
		static const char *const names[] = {
			"fuzz-child", "fuzz-child", "fuzz-child", "fuzz-alt", "missing",
			"\"\"", "ABS", "../bin1/fuzz-child", "NAME_MAX+", "fuzz-child/",
		};
		static char abs[PATH_MAX], big[300];
		unsigned k = rn(10);

		snprintf(abs, sizeof(abs), "%s/fuzz-child", bins[1]);
		memset(big, 'n', sizeof(big) - 1);
		big[sizeof(big) - 1] = 0;
		rq.fname = names[k];
		rq.file = k == 5 ? "" : k == 6 ? abs : k == 8 ? big : names[k];
		/* PATH */
		rq.path_set = !chance(5);
		rq.path[0] = 0;
		if (rq.path_set) {
			char *o = rq.path;
			size_t left = sizeof(rq.path);

			n = chance(60) ? 1 + rn(3) : 1 + rn(7);
			bprintf(d, "PATH=");
			for (i = 0; i < n; i++) {
				unsigned e = chance(40) ? (chance(50) ? 0 : 1) : rn(14);
				const char *v;
				char tmp[PATH_MAX];

				switch (e) {
				case 0: case 1: case 2: case 3: case 4: case 5:
					v = bins[e + 1];
					break;
				case 6: snprintf(tmp, sizeof(tmp), "%s/missing", root); v = tmp; break;
				case 7: v = ""; break;
				case 8: path_in(tmp, batchdir, "f"); v = tmp; break;
				case 12: v = longpath; break;
				default: v = pelem_names[e]; break;
				}
				int w = snprintf(o, left, "%s%s", i ? ":" : "", v);

				if (w < 0 || (size_t)w >= left)
					break;
				o += w;
				left -= (size_t)w;
				bprintf(d, "%s%s", i ? ":" : "", pelem_names[e]);
			}
			if (chance(5)) {
				snprintf(o, left, ":");
				bprintf(d, ":");
			}
			bprintf(d, " ");
		} else {
			bprintf(d, "PATH-unset ");
		}
		bprintf(d, "posix_spawnp(%s)", rq.fname);
	} else {
		static const char *const names[] = {
			"R/bin1/fuzz-child", "R/bin2/fuzz-alt", "R/bin3/fuzz-child(dir)",
			"R/bin4/fuzz-child(0644)", "R/bin5/fuzz-child(no#!)",
			"R/bin6/fuzz-child(#!)", "R/missing", "../bin1/fuzz-child",
			"fuzz-child", "\"\"", "B/f/x", "LONG",
		};
		static char val[PATH_MAX];
		unsigned k = chance(60) ? 0 : rn(12);

		switch (k) {
		case 0: snprintf(val, sizeof(val), "%s/fuzz-child", bins[1]); break;
		case 1: snprintf(val, sizeof(val), "%s/fuzz-alt", bins[2]); break;
		case 2: case 3: case 4: case 5:
			snprintf(val, sizeof(val), "%s/fuzz-child", bins[k + 1]); break;
		case 6: snprintf(val, sizeof(val), "%s/missing", root); break;
		case 7: case 8: snprintf(val, sizeof(val), "%s", names[k]); break;
		case 9: val[0] = 0; break;
		case 10: path_in(val, batchdir, "f/x"); break;
		default: snprintf(val, sizeof(val), "%.*s", PATH_MAX - 1, longpath); break;
		}
		rq.file = val;
		rq.fname = names[k];
		bprintf(d, "posix_spawn(%s)", rq.fname);
	}

	/* file actions */
	rq.nact = 0;
	cwd_model = sh.cwd_sub ? 2 : 1;
	if (rq.use_fa) {
		if (chance(1)) {
			n = BUILDER_MAX_ACTIONS + 1 + rn(100);
		} else {
			n = chance(20) ? 0 : 1 + rn(chance(70) ? 4 : 10);
		}
		bprintf(d, " fa=[");
		for (i = 0; i < n; i++) {
			struct action *a = &rq.act[rq.nact++];

			memset(a, 0, sizeof(*a));
			if (n > 100 && i < n - 2) {
				a->kind = A_CLOSE;
				a->fd = 3 + (int)rn(20);
				if (i < 3 || i == n - 3)
					bprintf(d, "close(%d) ", a->fd);
				else if (i == 3)
					bprintf(d, "...%u closes... ", n - 5);
				continue;
			}
			switch (rn(20)) {
			case 0: case 1: case 2: case 3: case 4:
				gen_open(a);
				bprintf(d, "open(%d,%s,0x%x,0%o) ", a->fd, a->pname,
					a->oflag, (unsigned)a->mode);
				break;
			case 5: case 6: case 7:
				a->kind = A_CLOSE;
				a->fd = pick_fd();
				bprintf(d, "close(%d) ", a->fd);
				break;
			case 8: case 9: case 10: case 11: case 12:
				a->kind = A_DUP2;
				a->fd = pick_fd();
				a->newfd = chance(15) ? a->fd : pick_fd();
				bprintf(d, "dup2(%d,%d) ", a->fd, a->newfd);
				break;
			case 13: case 14:
				gen_chdir(a);
				bprintf(d, "chdir(%s) ", a->pname);
				break;
			case 15: case 16:
				a->kind = A_FCHDIR;
				a->fd = chance(50) && sh.dirfd_d >= 0 ? sh.dirfd_d : pick_fd();
				cwd_model = 0;
				bprintf(d, "fchdir(%d) ", a->fd);
				break;
			case 17: case 18:
				a->kind = A_CLOSEFROM;
				a->fd = chance(70) ? 3 + (int)rn(30) : pick_fd();
				bprintf(d, "closefrom(%d) ", a->fd);
				break;
			default:
				a->kind = A_TCSETPGRP;
				a->fd = pick_fd();
				bprintf(d, "tcsetpgrp(%d) ", a->fd);
				break;
			}
		}
		if (d->len && d->p[d->len - 1] == ' ')
			d->p[--d->len] = 0;
		bprintf(d, "]");
	} else {
		bprintf(d, " fa=NULL");
	}

	/* attributes */
	rq.set_flags = rq.set_pgroup = rq.set_mask = rq.set_def = 0;
	rq.set_policy = rq.set_param = 0;
	if (rq.use_attr) {
		static const short known[] = {
			POSIX_SPAWN_RESETIDS, POSIX_SPAWN_SETPGROUP,
			POSIX_SPAWN_SETSIGDEF, POSIX_SPAWN_SETSIGMASK,
			POSIX_SPAWN_SETSCHEDPARAM, POSIX_SPAWN_SETSCHEDULER,
			POSIX_SPAWN_USEVFORK, POSIX_SPAWN_SETSID,
		};
		rq.flags = 0;
		for (i = 0; i < 8; i++)
			if (chance(25))
				rq.flags |= known[i];
		/*
		 * An invalid bit now and then.  Not 0x100 (SETCGROUP: glibc
		 * 2.39's, the library follows 2.39) nor 0x4000 (the library's
		 * documented CLOEXEC_DEFAULT_NP extension).
		 */
		if (chance(4)) {
			short bad = (short)(1 << (9 + rn(7)));

			if (bad != 0x4000)
				rq.flags |= bad;
		}
		rq.set_flags = chance(90);
		bprintf(d, " attr={");
		if (rq.set_flags)
			bprintf(d, "flags=0x%x ", (unsigned)(unsigned short)rq.flags);
		if (chance(50)) {
			rq.set_pgroup = 1;
			switch (rn(7)) {
			case 0: case 1: rq.pgroup = 0; break;
			case 2: rq.pgroup = sh.helper; break;
			case 3: rq.pgroup = getpgrp(); break;
			case 4: rq.pgroup = 1; break;
			case 5: rq.pgroup = -1; break;
			default: rq.pgroup = 999999; break;
			}
			bprintf(d, "pgroup=%s ",
				rq.pgroup == sh.helper && sh.helper > 0 ? "helper" :
				rq.pgroup == getpgrp() && rq.pgroup > 1 ? "own" :
				rq.pgroup == 0 ? "0" : rq.pgroup == 1 ? "1" :
				rq.pgroup < 0 ? "-1" : "999999");
		}
		if (chance(50)) {
			rq.set_mask = 1;
			sig_random(&rq.mask);
			bprintf(d, "sigmask=0x%lx ", ((unsigned long *)&rq.mask)[0]);
		}
		if (chance(50)) {
			rq.set_def = 1;
			sig_random(&rq.def);
			bprintf(d, "sigdefault=0x%lx ", ((unsigned long *)&rq.def)[0]);
		}
		if (chance(35)) {
			rq.set_policy = 1;
			rq.policy = (int[]){ SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH,
				SCHED_IDLE, 6, 7, -1, SCHED_FIFO | SCHED_RESET_ON_FORK,
				SCHED_OTHER | SCHED_RESET_ON_FORK }[rn(10)];
			bprintf(d, "policy=0x%x ", (unsigned)rq.policy);
		}
		if (chance(35)) {
			rq.set_param = 1;
			rq.param.sched_priority = (int[]){ 0, 0, 1, 50, 99, 100, -1 }[rn(7)];
			bprintf(d, "prio=%d ", rq.param.sched_priority);
		}
		if (d->p[d->len - 1] == ' ')
			d->p[--d->len] = 0;
		bprintf(d, "}");
	} else {
		bprintf(d, " attr=NULL");
	}

	/* argv, envp */
	snprintf(report_env, sizeof(report_env), "FUZZ_REPORT=%s/report", batchdir);
	n = chance(5) ? 0 : 1 + rn(4);
	for (i = 0; i < n; i++) {
		if (i == 0 && chance(70)) {
			snprintf(rq.strs[0], sizeof(rq.strs[0]), "fuzz-child");
		} else {
			append_str(rq.strs[i], chance(5) ? sizeof(rq.strs[i]) : 64, rn(6));
		}
		rq.argv[i] = rq.strs[i];
	}
	rq.argv[n] = NULL;
	bprintf(d, " argc=%u", n);
	{
		static char env[8][6000];
		unsigned m = 0, k, ne = rn(5);

		for (k = 0; k < ne; k++) {
			switch (rn(6)) {
			case 0: snprintf(env[k], sizeof(env[k]), "A=1"); break;
			case 1: snprintf(env[k], sizeof(env[k]), "EMPTY="); break;
			case 2: snprintf(env[k], sizeof(env[k]), "NOEQUALS"); break;
			case 3: snprintf(env[k], sizeof(env[k]), "PATH=/nowhere"); break;
			case 4: snprintf(env[k], sizeof(env[k]), "A=dup"); break;
			default:
				memset(env[k], 'v', sizeof(env[k]) - 1);
				memcpy(env[k], "BIG=", 4);
				env[k][sizeof(env[k]) - 1] = 0;
				break;
			}
			rq.envp[m++] = env[k];
			if (k == 1)
				rq.envp[m++] = report_env;
		}
		if (ne < 2)
			rq.envp[m++] = report_env;
		rq.envp[m] = NULL;
		bprintf(d, " envc=%u", m);
	}
	if (rq.in_thread)
		bprintf(d, " from-thread");
	if (!rq.want_pid)
		bprintf(d, " pid=NULL");
}

/* ---- running one side ---------------------------------------------------- */

struct spawn_call {
	const struct impl *im;
	posix_spawn_file_actions_t *fa;
	posix_spawnattr_t *at;
	pid_t pid;
	int ret, err;
};

static void *do_call(void *arg)
{
	struct spawn_call *c = arg;
	pid_t *pp = rq.want_pid ? &c->pid : NULL;

	errno = 4242;
	if (rq.spawnp)
		c->ret = c->im->spawnp(pp, rq.file, c->fa, c->at, rq.argv, rq.envp);
	else
		c->ret = c->im->spawn(pp, rq.file, c->fa, c->at, rq.argv, rq.envp);
	c->err = errno;
	return NULL;
}

static int count_fds(void)
{
	char dbuf[4096];
	int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;

	if (dfd < 0)
		return -errno;
	for (;;) {
		long got = syscall(SYS_getdents64, dfd, dbuf, sizeof(dbuf)), pos = 0;

		if (got <= 0)
			break;
		while (pos < got) {
			n += dbuf[pos + 19] != '.';
			pos += *(unsigned short *)(dbuf + pos + 16);
		}
	}
	close(dfd);
	return n - 1;
}

static char *read_report(size_t *len)
{
	char p[PATH_MAX];
	struct buf b = { 0 };
	char chunk[65536];
	ssize_t n;
	int fd;

	path_in(p, batchdir, "report");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		bprintf(&b, "report: err%d\n", errno);
		*len = b.len;
		return b.p;
	}
	bprintf(&b, "%s", "");
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		if ((size_t)n + b.len + 1 > b.cap) {
			b.cap = (b.cap + (size_t)n) * 2;
			b.p = realloc(b.p, b.cap);
		}
		memcpy(b.p + b.len, chunk, (size_t)n);
		b.len += (size_t)n;
		b.p[b.len] = 0;
	}
	close(fd);
	unlink(p);
	*len = b.len;
	return b.p;
}

/* What legitimately differs between two children: O_TMPFILE inodes. */
static void normalise(struct buf *b)
{
	char *s = b->p;

	while ((s = strstr(s, "/#")) != NULL) {
		char *e = s + 2;

		while (*e >= '0' && *e <= '9')
			e++;
		if (e > s + 2 && strncmp(e, " (deleted)", 10) == 0) {
			s[2] = 'N';
			memmove(s + 3, e, strlen(e) + 1);
			b->len = strlen(b->p);
		}
		s += 2;
	}
}

static int run_side(const struct impl *im, const char *backend, struct buf *out)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	struct spawn_call c = { .im = im, .pid = -1 };
	int fds0, fds1, r, i, status = -1;
	pid_t w = 0;

	out->len = 0;
	bprintf(out, "%s", "");
	spare_drop();
	reset_fixture();
	fds0 = count_fds();
	spare_fill();

	if (rq.use_fa) {
		r = im->fa_init(&fa);
		bprintf(out, "fa_init %d\n", r);
		for (i = 0; i < rq.nact; i++) {
			const struct action *a = &rq.act[i];

			switch (a->kind) {
			case A_OPEN:
				r = im->addopen(&fa, a->fd, a->path, a->oflag, a->mode);
				break;
			case A_CLOSE:
				/* FUZZ_PERTURB: the library side drops a trailing close */
				if (perturb && backend && i == rq.nact - 1)
					r = 0;
				else
					r = im->addclose(&fa, a->fd);
				break;
			case A_DUP2:
				r = im->adddup2(&fa, a->fd, a->newfd);
				break;
			case A_CHDIR:
				r = im->addchdir(&fa, a->path);
				break;
			case A_FCHDIR:
				r = im->addfchdir(&fa, a->fd);
				break;
			case A_CLOSEFROM:
				r = im->addclosefrom(&fa, a->fd);
				break;
			default:
				r = im->addtcsetpgrp(&fa, a->fd);
				break;
			}
			if (r || rq.nact < 100)
				bprintf(out, "action %d: %d\n", i, r);
		}
		c.fa = &fa;
	}
	if (rq.use_attr) {
		r = im->at_init(&at);
		bprintf(out, "attr_init %d\n", r);
		if (rq.set_flags)
			bprintf(out, "setflags %d\n", im->setflags(&at, rq.flags));
		if (rq.set_pgroup)
			bprintf(out, "setpgroup %d\n", im->setpgroup(&at, rq.pgroup));
		if (rq.set_mask)
			bprintf(out, "setsigmask %d\n", im->setsigmask(&at, &rq.mask));
		if (rq.set_def)
			bprintf(out, "setsigdefault %d\n", im->setsigdefault(&at, &rq.def));
		if (rq.set_policy)
			bprintf(out, "setschedpolicy %d\n", im->setschedpolicy(&at, rq.policy));
		if (rq.set_param)
			bprintf(out, "setschedparam %d\n", im->setschedparam(&at, &rq.param));
		c.at = &at;
	}

	if (backend)
		setenv("PIDFDSPAWN_BACKEND", backend, 1);
	if (rq.spawnp) {
		if (rq.path_set)
			setenv("PATH", rq.path, 1);
		else
			unsetenv("PATH");
	}
	alarm(SIDE_TIMEOUT);
	if (rq.in_thread) {
		pthread_t t;

		if (pthread_create(&t, NULL, do_call, &c) == 0)
			pthread_join(t, NULL);
		else
			bprintf(out, "thread: cannot create\n");
	} else {
		do_call(&c);
	}
	unsetenv("PIDFDSPAWN_BACKEND");
	setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);

	bprintf(out, "ret %d (%s) errno %d\n", c.ret, strerror(c.ret), c.err);
	if (c.ret == 0) {
		if (rq.want_pid)
			w = waitpid(c.pid, &status, 0);
		else
			while ((w = waitpid(-1, &status, 0)) == sh.helper && w > 0)
				;
		bprintf(out, "wait %s status 0x%x\n",
			w < 0 ? "failed" : (rq.want_pid && w != c.pid) ? "other" : "ok",
			status);
	} else {
		/* a failed spawn leaves no child behind */
		w = waitpid(-1, &status, WNOHANG);
		if (w > 0 && w != sh.helper)
			bprintf(out, "stray child reaped, status 0x%x\n", status);
	}
	alarm(0);
	if (rq.use_attr)
		bprintf(out, "attr_destroy %d\n", im->at_destroy(&at));
	if (rq.use_fa)
		bprintf(out, "fa_destroy %d\n", im->fa_destroy(&fa));

	if (sh.tty) {
		sigset_t s, old;

		sigemptyset(&s);
		sigaddset(&s, SIGTTOU);
		pthread_sigmask(SIG_BLOCK, &s, &old);
		for (i = 0; i < sh.nfix; i++)
			if (sh.fix[i].kind == FX_PTY_SLAVE)
				tcsetpgrp(sh.fix[i].fd, getpgrp());
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	spare_drop();
	fds1 = count_fds();
	if (fds1 != fds0)
		bprintf(out, "parent fds: %d before, %d after\n", fds0, fds1);
	if (c.ret == 0) {
		size_t len;
		char *rep = read_report(&len);

		bprintf(out, "%s", rep);
		free(rep);
	}
	spare_fill();
	normalise(out);
	return 0;
}

/* Does text hold exactly this line? */
static int has_line(const char *text, const char *line, size_t l)
{
	while (*text) {
		const char *e = strchr(text, '\n');
		size_t tl = e ? (size_t)(e - text) : strlen(text);

		if (tl == l && memcmp(text, line, l) == 0)
			return 1;
		text += tl + (e ? 1 : 0);
	}
	return 0;
}

/*
 * The differing lines' keys ("ret", "sigdisp", "fd", "status SigIgn", ...),
 * sorted and unique: a difference's signature.  With show, the lines too.
 */
static void diff_lines(const char *a, const char *b, struct buf *sig, int show)
{
	char keys[16][40];
	int nkeys = 0, shown = 0;

	for (int pass = 0; pass < 2; pass++) {
		const char *x = pass ? b : a, *y = pass ? a : b;

		while (*x) {
			const char *e = strchr(x, '\n');
			size_t l = e ? (size_t)(e - x) : strlen(x), kl;
			char key[40];
			int k;

			if (!has_line(y, x, l)) {
				if (show && shown++ < 14)
					say("#   %-8s %.*s\n", pass ? "library:" : "glibc:",
					    (int)(l > 300 ? 300 : l), x);
				kl = strcspn(x, " \n");
				if (!strncmp(x, "status ", 7) || !strncmp(x, "action ", 7))
					kl += 1 + strcspn(x + kl + 1, " :\n");
				if (kl >= sizeof(key))
					kl = sizeof(key) - 1;
				memcpy(key, x, kl);
				key[kl] = 0;
				for (k = 0; k < nkeys && strcmp(keys[k], key); k++)
					;
				if (k == nkeys && nkeys < 16)
					strcpy(keys[nkeys++], key);
			}
			x += l + (e ? 1 : 0);
		}
	}
	for (int i = 1; i < nkeys; i++)
		for (int j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
			char t[40];

			strcpy(t, keys[j]);
			strcpy(keys[j], keys[j - 1]);
			strcpy(keys[j - 1], t);
		}
	for (int i = 0; i < nkeys; i++)
		bprintf(sig, "%s%s", i ? "," : "", keys[i]);
}

/*
 * Waivers (FUZZ_WAIVE=name,name): known differences, named, that a run may
 * choose not to fail on while they are being fixed.  Each one is a
 * normalisation applied to both sides; requests that differ only because
 * of it are counted as waived and printed as such, never silently.
 *   errno      errno after the call (glibc's failed posix_spawn leaves
 *              errno set to the error it returns)
 *   sig32-33   the dispositions of signals 32 and 33 (glibc's children
 *              inherit them as SIG_IGN)
 *   open-cloexec  the child's line for the target fd of an open action
 *              with O_CLOEXEC (glibc's open + dup2 clears close-on-exec
 *              unless open() returned the target itself; the library's
 *              target keeps O_CLOEXEC, as the kernel builder's OPEN does).
 *              Still needed, for both backends (seed 1796422736 index 218
 *              without it: open(56, PTS, O_RDWR|O_CLOEXEC), glibc's child
 *              has fd 56, the library's not).  It is not about flag bits
 *              open(2) ignores (0x10000000 in oflags[] below): since
 *              issue 20 the library passes those to the builder's OPEN,
 *              which ignores them as open(2) does, so they need no waiver
 *              and the forced builder no longer refuses them (ENOTSUP).
 *   builder-limit  a request with more file actions than the kernel
 *              builder takes (64 KiB of 56-byte records: 1170), which the
 *              forced builder backend refuses with E2BIG before any child
 *              exists.  glibc has no such limit; the automatic backend
 *              serves the request with the fallback.  Only that refusal,
 *              of that backend, beyond that count, is waived.
 *   builder-fd   a parent whose descriptor table is full, where the forced
 *              builder backend finds no number for the builder's own fd
 *              (at the hard limit, or none above every number the actions
 *              name) and fails with EMFILE before any child exists.
 *              glibc needs no descriptor; the automatic backend serves the
 *              request with the fallback.  Only that refusal, of that
 *              backend, in a full parent, is waived.
 */
static char waive[256];

static int waived(const char *name)
{
	size_t l = strlen(name);

	for (const char *w = waive; (w = strstr(w, name)); w += l)
		if ((w == waive || w[-1] == ',') && (w[l] == ',' || !w[l]))
			return 1;
	return 0;
}

static void apply_waivers(struct buf *b)
{
	char *s;

	if (waived("errno") && (s = strstr(b->p, ") errno ")) != NULL) {
		char *e = s += 8;

		while (*e >= '0' && *e <= '9')
			e++;
		if (e > s) {
			*s = '-';
			memmove(s + 1, e, strlen(e) + 1);
			b->len = strlen(b->p);
		}
	}
	if (waived("open-cloexec")) {
		for (int i = 0; i < rq.nact; i++) {
			const struct action *a = &rq.act[i];
			char key[32];

			if (a->kind != A_OPEN || !(a->oflag & O_CLOEXEC))
				continue;
			snprintf(key, sizeof(key), "\nfd %d ", a->fd);
			while ((s = strstr(b->p, key)) != NULL) {
				char *e = strchr(s + 1, '\n');

				if (!e)
					e = s + strlen(s);
				memmove(s, e, strlen(e) + 1);
			}
		}
		b->len = strlen(b->p);
	}
	if (waived("sig32-33")) {
		if ((s = strstr(b->p, "\nsigdisp ")) != NULL) {
			s[9 + 31] = '?';
			s[9 + 32] = '?';
		}
		if ((s = strstr(b->p, "\nstatus SigIgn:\\x09")) != NULL) {
			/* 16 hex digits; signals 32 and 33 are bits 31 and 32 */
			char *h = s + 19;
			unsigned long long v = strtoull(h, NULL, 16);
			char tmp[17];

			v &= ~(3ULL << 31);
			snprintf(tmp, sizeof(tmp), "%016llx", v);
			memcpy(h, tmp, 16);
		}
	}
}

/* Whether the library's report @out says the spawn returned @err. */
static int reported_ret(const char *out, int err)
{
	char key[32];
	const char *s;

	snprintf(key, sizeof(key), "ret %d (", err);
	s = strstr(out, key);
	return s && (s == out || s[-1] == '\n');
}

/*
 * The forced builder's own limits (builder-limit, builder-fd): @backend
 * refused this request for its size, or found no fd for its builder in a
 * full parent.
 */
static int builder_refusal_waived(const char *backend, const char *out)
{
	if (strcmp(backend, "builder"))
		return 0;
	if (waived("builder-limit") && rq.nact > BUILDER_MAX_ACTIONS &&
	    reported_ret(out, E2BIG))
		return 1;
	return waived("builder-fd") && sh.full && reported_ret(out, EMFILE);
}

/* One request: glibc, then each backend.  Bitmasks of differing and waived backends. */
static int run_request(long idx, int *waived_mask)
{
	struct buf g = { 0 }, l = { 0 }, sd = { 0 }, sig = { 0 };
	int bad = 0;

	gen_request(idx);
	run_side(&glibc, NULL, &g);
	if (verbose)
		say("# request %ld: %s\n# --- glibc:\n%s", idx, rq.desc.p, g.p);
	for (int k = 0; k < nbackends; k++) {
		run_side(&lib, backends[k], &l);
		if (verbose)
			say("# --- library (%s):\n%s", backends[k], l.p);
		if (strcmp(g.p, l.p) == 0)
			continue;
		if (builder_refusal_waived(backends[k], l.p)) {
			*waived_mask |= 1 << k;
			continue;
		}
		if (*waive) {
			struct buf gw = { 0 };

			bprintf(&gw, "%s", g.p);
			apply_waivers(&gw);
			apply_waivers(&l);
			if (strcmp(gw.p, l.p) == 0) {
				*waived_mask |= 1 << k;
				free(gw.p);
				continue;
			}
			free(gw.p);
		}
		bad |= 1 << k;
		sig.len = 0;
		{
			struct buf gw = { 0 };

			bprintf(&gw, "%s", g.p);
			if (*waive)
				apply_waivers(&gw);
			diff_lines(gw.p, l.p, &sig, 0);
			free(gw.p);
		}
		describe_shape(&sd);
		say("D %s|%s\n", backends[k], sig.p);
		say("# DIFF backend=%s seed=%llu index=%ld [%s]: %s\n#   parent: %s\n"
		    "#   reproduce: tests/fuzz/run --seed %llu --index %ld --backend %s -v\n",
		    backends[k], (unsigned long long)seed, idx, sig.p, rq.desc.p, sd.p,
		    (unsigned long long)seed, idx, backends[k]);
		sd.len = 0;
		if (*waive) {
			struct buf gw = { 0 };

			bprintf(&gw, "%s", g.p);
			apply_waivers(&gw);
			diff_lines(gw.p, l.p, &sig, 1);
			free(gw.p);
		} else {
			diff_lines(g.p, l.p, &sig, 1);
		}
		say("E\n");
	}
	free(g.p);
	free(l.p);
	free(sd.p);
	free(sig.p);
	return bad;
}

/* ---- main: batches in forked parents -------------------------------------- */

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char chunk[65536];
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC), out;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, chunk, sizeof(chunk))) > 0)
		if (write(out, chunk, (size_t)n) != n)
			n = -1;
	close(in);
	close(out);
	chmod(to, mode);
	return n < 0 ? -1 : 0;
}

static void make_root(const char *child)
{
	char p[PATH_MAX], q[PATH_MAX + 64];
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	chmod(root, 0755);
	for (int i = 1; i <= 6; i++) {
		snprintf(p, sizeof(p), "%s/bin%d", root, i);
		mkdir(p, 0755);
		chmod(p, 0755);
	}
	snprintf(p, sizeof(p), "%s/bin1/fuzz-child", root);
	if (copy_file(child, p, 0755)) {
		printf("Bail out! cannot copy %s\n", child);
		exit(1);
	}
	snprintf(p, sizeof(p), "%s/bin2/fuzz-child", root);
	copy_file(child, p, 0755);
	snprintf(p, sizeof(p), "%s/bin2/fuzz-alt", root);
	copy_file(child, p, 0755);
	snprintf(p, sizeof(p), "%s/bin3/fuzz-child", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/bin4/fuzz-child", root);
	copy_file(child, p, 0644);
	snprintf(p, sizeof(p), "%s/bin5/fuzz-child", root);
	write_file(p, "echo no interpreter line\n", 0755);
	snprintf(p, sizeof(p), "%s/bin6/fuzz-child", root);
	snprintf(q, sizeof(q), "#!%s/bin1/fuzz-child\n", root);
	write_file(p, q, 0755);
}

static void remove_tree(const char *path)
{
	pid_t p = fork();

	if (p == 0) {
		execlp("rm", "rm", "-rf", path, (char *)NULL);
		_exit(127);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
}

static void run_batch(long b, long first, long last)
{
	setup_shape(b);
	make_paths();
	if (verbose) {
		struct buf sd = { 0 };

		describe_shape(&sd);
		say("# batch %ld parent: %s\n", b, sd.p);
		free(sd.p);
	}
	for (long i = first; i < last; i++) {
		int bad;

		int w = 0;

		say("S %ld\n", i);
		bad = run_request(i, &w);
		say("R %ld %d %d\n", i, bad, w);
	}
	if (sh.helper > 0) {
		kill(sh.helper, SIGKILL);
		waitpid(sh.helper, NULL, 0);
	}
	_exit(0);
}

static void usage(void)
{
	fprintf(stderr, "usage: fuzz [--seed S] [--count N] [--index I] [--backend builder|fallback|both] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], child[PATH_MAX];
	const char *backend = "both";
	long diffs[2] = { 0, 0 }, nwaived[2] = { 0, 0 }, done = 0, harness = 0,
	     last_started = -1;
	struct { char name[200]; long count, first; } sigs[64];
	int nsigs = 0, showing = 1, wv;
	struct timespec t0, t1;
	struct rlimit rl;
	int skip_builder = 0, i;
	ssize_t n;

	seed = (uint64_t)time(NULL);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--index") && i + 1 < argc)
			only_index = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
			backend = argv[++i];
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else
			usage();
	}
	perturb = getenv("FUZZ_PERTURB") && *getenv("FUZZ_PERTURB");
	if (getenv("FUZZ_SHOW"))
		SHOW_PER_SIG = atol(getenv("FUZZ_SHOW"));
	if (getenv("FUZZ_WAIVE"))
		snprintf(waive, sizeof(waive), "%s", getenv("FUZZ_WAIVE"));
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	load_glibc();
	if (!strcmp(backend, "both") || !strcmp(backend, "fallback"))
		backends[nbackends++] = "fallback";
	if (!strcmp(backend, "both") || !strcmp(backend, "builder")) {
		if (pidfdspawn_probe() & PIDFDSPAWN_FEAT_BUILDER)
			backends[nbackends++] = "builder";
		else
			skip_builder = 1;
	}
	if (!nbackends && !skip_builder)
		usage();

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return 1;
	self[n] = 0;
	snprintf(child, sizeof(child), "%s", self);
	strcpy(strrchr(child, '/') + 1, "fuzz-child");
	make_root(child);
	getrlimit(RLIMIT_NOFILE, &rl);
	base_nofile = rl.rlim_cur > 1 << 20 ? 1 << 20 : (int)rl.rlim_cur;
	ctl_fd = base_nofile > 1022 ? 1021 : base_nofile - 1;

	printf("# seed %llu, %ld requests, backends:%s%s%s\n",
	       (unsigned long long)seed, only_index >= 0 ? 1 : count,
	       nbackends > 0 ? " " : "", nbackends > 0 ? backends[0] : "",
	       nbackends > 1 ? " builder" : "");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (nbackends)
	for (long b = 0; b * BATCH < (only_index >= 0 ? only_index + 1 : count); b++) {
		long first = b * BATCH, last = first + BATCH;
		int pfd[2], status;
		pid_t pid;
		FILE *f;
		char line[16384];

		if (only_index >= 0) {
			if (only_index >= last)
				continue;
			first = only_index;
			last = only_index + 1;
		} else if (last > count) {
			last = count;
		}
		if (pipe2(pfd, O_CLOEXEC))
			return 1;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			close(pfd[0]);
			if (dup3(pfd[1], ctl_fd, O_CLOEXEC) < 0)
				_exit(1);
			close(pfd[1]);
			ctl = ctl_fd;
			run_batch(b, first, last);
		}
		close(pfd[1]);
		f = fdopen(pfd[0], "r");
		last_started = -1;
		while (fgets(line, sizeof(line), f)) {
			long idx;
			int bad;

			if (sscanf(line, "S %ld", &idx) == 1) {
				last_started = idx;
			} else if (sscanf(line, "R %ld %d %d", &idx, &bad, &wv) == 3) {
				done++;
				last_started = -1;
				for (int k = 0; k < nbackends; k++) {
					diffs[k] += (bad >> k) & 1;
					nwaived[k] += (wv >> k) & 1;
				}
			} else if (!strncmp(line, "D ", 2)) {
				int k;

				line[strcspn(line, "\n")] = 0;
				for (k = 0; k < nsigs && strcmp(sigs[k].name, line + 2); k++)
					;
				if (k == nsigs && nsigs < 64) {
					snprintf(sigs[k].name, sizeof(sigs[k].name), "%s", line + 2);
					sigs[k].first = -1;
					nsigs++;
				}
				showing = k < 64 && ++sigs[k].count <= SHOW_PER_SIG;
				if (k < 64 && sigs[k].first < 0)
					sigs[k].first = last_started;
			} else if (!strcmp(line, "E\n")) {
				showing = 1;
			} else if (showing) {
				fputs(line, stdout);
			}
		}
		fclose(f);
		waitpid(pid, &status, 0);
		if (last_started >= 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			harness++;
			printf("# HARNESS batch %ld (parent pid %d) ended with status 0x%x during request %ld:"
			       " a hang (SIGALRM after %ds) or a crash; reproduce: tests/fuzz/run --seed %llu --index %ld -v\n",
			       b, (int)pid, status, last_started, SIDE_TIMEOUT,
			       (unsigned long long)seed, last_started);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	remove_tree(root);

	{
		double secs = (double)(t1.tv_sec - t0.tv_sec) +
			      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		int t = 0;

		for (int k = 0; k < nsigs; k++)
			printf("# difference [%s]: %ld requests, first at index %ld%s\n",
			       sigs[k].name, sigs[k].count, sigs[k].first,
			       sigs[k].count > SHOW_PER_SIG ? " (details of the first few above)" : "");
		for (int k = 0; k < nbackends; k++) {
			if (*waive)
				printf("# %s: %ld requests differed only in what FUZZ_WAIVE=%s waives\n",
				       backends[k], nwaived[k], waive);
			printf("%s %d - %s: %ld differences from glibc in %ld requests (seed %llu)\n",
			       diffs[k] ? "not ok" : "ok", ++t, backends[k], diffs[k],
			       done, (unsigned long long)seed);
		}
		if (skip_builder)
			printf("ok %d - builder: differences from glibc # SKIP no spawn builder in this kernel\n", ++t);
		printf("%s %d - every request finished (no hang, no crash of a parent: %ld)\n",
		       harness ? "not ok" : "ok", ++t, harness);
		printf("# %ld requests in %.1f s: %.1f requests/s (%d spawns each)\n",
		       done, secs, secs > 0 ? (double)done / secs : 0.0, 1 + nbackends);
		printf("1..%d\n", t);
		return (diffs[0] || diffs[1] || harness) ? 1 : 0;
	}
}
