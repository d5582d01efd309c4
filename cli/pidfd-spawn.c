/* SPDX-License-Identifier: MIT */
/*
 * pidfd-spawn: run a program through libpidfdspawn with posix_spawn file
 * actions and attributes from the command line, wait for it and exit with
 * its status (128 + signal when it was killed).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidfdspawn.h"

extern char **environ;

/* One option that becomes a file action or an attribute of the child. */
struct step {
	int opt;		/* 'd', 'x', 'c', 'C', 'F'; 's', 'g', 'r', 'S', 'm' */
	const char *arg;
	int a, b;
};

struct options {
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char **envp;
	size_t nenv;
	int verbose;
	/* In command-line order, for telling which one failed. */
	struct step *actions, *attrs;
	int nr_actions, nr_attrs;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pidfd-spawn [options] [--] program [args...]\n"
"  -d OLD:NEW    dup2 OLD onto NEW in the child (OLD:OLD keeps a cloexec fd)\n"
"  -x FD         close FD in the child\n"
"  -c FROM       close every fd from FROM up (closefrom)\n"
"  -C DIR        change directory to DIR in the child\n"
"  -F FD         change directory to the directory open as FD\n"
"  -i            start from an empty environment\n"
"  -E VAR=VALUE  set VAR to VALUE in the environment (replacing it)\n"
"  -s            new session (POSIX_SPAWN_SETSID)\n"
"  -g PGID       process group PGID, 0 = own group (SETPGROUP)\n"
"  -r            reset effective ids to real ids (RESETIDS)\n"
"  -S SIG        reset SIG to its default action (SETSIGDEF); repeatable\n"
"  -m SIG        block SIG in the child (SETSIGMASK, empty otherwise)\n"
"  -v            report backend, pid and time taken on stderr\n"
"  -h, --help    this help\n"
"Exit status: the program's; 128+N when killed by signal N; 125 when a\n"
"file action or attribute failed in the child, no child could be made, or\n"
"for a usage error; 126 when the program could not be run, 127 when it\n"
"was not found.\n"
"Environment: PIDFDSPAWN_BACKEND=auto|builder|fallback forces a backend.\n");
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 0x7fffffff)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_signal(const char *s)
{
	int sig;

	if (parse_int(s, &sig) == 0 && sig > 0 && sig < NSIG)
		return sig;
	for (sig = 1; sig < NSIG; sig++) {
		const char *name = sigabbrev_np(sig);

		if (name && (strcmp(s, name) == 0 ||
			     (strncmp(s, "SIG", 3) == 0 && strcmp(s + 3, name) == 0)))
			return sig;
	}
	return -1;
}

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "pidfd-spawn: %s: %s\n", what, arg);
	exit(125);
}

static void check(int err, const char *what, const char *arg)
{
	if (err) {
		fprintf(stderr, "pidfd-spawn: %s %s: %s\n", what, arg, strerror(err));
		exit(125);
	}
}

static void add_env(struct options *o, char *entry)
{
	o->envp = realloc(o->envp, (o->nenv + 2) * sizeof(char *));
	if (!o->envp)
		die("out of memory", "environment");
	o->envp[o->nenv++] = entry;
	o->envp[o->nenv] = NULL;
}

/* -E NAME=VALUE: replaces every NAME= already there, as env(1) does. */
static void set_env(struct options *o, char *entry)
{
	size_t len = (size_t)(strchr(entry, '=') - entry) + 1, kept = 0;
	int placed = 0;

	for (size_t i = 0; i < o->nenv; i++) {
		if (strncmp(o->envp[i], entry, len) != 0)
			o->envp[kept++] = o->envp[i];
		else if (!placed++)
			o->envp[kept++] = entry;
	}
	o->nenv = kept;
	if (o->envp)
		o->envp[kept] = NULL;
	if (!placed)
		add_env(o, entry);
}

static void add_step(struct step **list, int *n, int opt, const char *arg,
		     int a, int b)
{
	*list = realloc(*list, (size_t)(*n + 1) * sizeof(**list));
	if (!*list)
		die("out of memory", "options");
	(*list)[(*n)++] = (struct step){ .opt = opt, .arg = arg, .a = a, .b = b };
}

/* The file actions of steps [0, n) into @fa. */
static void build_actions(posix_spawn_file_actions_t *fa,
			  const struct step *st, int n)
{
	posix_spawn_file_actions_init(fa);
	for (int i = 0; i < n; i++) {
		const struct step *s = &st[i];
		int err = 0;

		switch (s->opt) {
		case 'd':
			err = posix_spawn_file_actions_adddup2(fa, s->a, s->b);
			break;
		case 'x':
			err = posix_spawn_file_actions_addclose(fa, s->a);
			break;
		case 'c':
			err = posix_spawn_file_actions_addclosefrom_np(fa, s->a);
			break;
		case 'C':
			err = posix_spawn_file_actions_addchdir_np(fa, s->arg);
			break;
		case 'F':
			err = posix_spawn_file_actions_addfchdir_np(fa, s->a);
			break;
		}
		if (err) {
			char opt[3] = { '-', (char)s->opt, 0 };

			check(err, opt, s->arg);
		}
	}
}

/* The attributes of steps [0, n) into @attr. */
static void build_attr(posix_spawnattr_t *attr, const struct step *st, int n)
{
	sigset_t sigdef, sigmask;
	short flags = 0;

	posix_spawnattr_init(attr);
	sigemptyset(&sigdef);
	sigemptyset(&sigmask);
	for (int i = 0; i < n; i++) {
		switch (st[i].opt) {
		case 's':
			flags |= POSIX_SPAWN_SETSID;
			break;
		case 'g':
			flags |= POSIX_SPAWN_SETPGROUP;
			posix_spawnattr_setpgroup(attr, st[i].a);
			break;
		case 'r':
			flags |= POSIX_SPAWN_RESETIDS;
			break;
		case 'S':
			flags |= POSIX_SPAWN_SETSIGDEF;
			sigaddset(&sigdef, st[i].a);
			break;
		case 'm':
			flags |= POSIX_SPAWN_SETSIGMASK;
			sigaddset(&sigmask, st[i].a);
			break;
		}
	}
	posix_spawnattr_setsigdefault(attr, &sigdef);
	posix_spawnattr_setsigmask(attr, &sigmask);
	check(posix_spawnattr_setflags(attr, flags), "flags", "");
}

static void parse(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, a, b, empty_env = 0;
	char **extra = calloc((size_t)argc + 1, sizeof(char *));
	size_t nextra = 0;

	while ((opt = getopt_long(argc, argv, "+d:x:c:C:F:iE:sg:rS:m:vh",
				  longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (sscanf(optarg, "%d:%d", &a, &b) != 2)
				die("bad -d (want OLD:NEW)", optarg);
			add_step(&o->actions, &o->nr_actions, opt, optarg, a, b);
			break;
		case 'x':
		case 'c':
		case 'F':
			if (parse_int(optarg, &a))
				die("bad fd", optarg);
			add_step(&o->actions, &o->nr_actions, opt, optarg, a, 0);
			break;
		case 'C':
			add_step(&o->actions, &o->nr_actions, opt, optarg, 0, 0);
			break;
		case 'i':
			empty_env = 1;
			break;
		case 'E':
			if (!strchr(optarg, '=') || *optarg == '=')
				die("bad -E (want VAR=VALUE)", optarg);
			extra[nextra++] = optarg;
			break;
		case 's':
		case 'r':
			add_step(&o->attrs, &o->nr_attrs, opt, NULL, 0, 0);
			break;
		case 'g':
			if (parse_int(optarg, &a))
				die("bad process group", optarg);
			add_step(&o->attrs, &o->nr_attrs, opt, optarg, a, 0);
			break;
		case 'S':
		case 'm':
			if ((a = parse_signal(optarg)) < 0)
				die("bad signal", optarg);
			add_step(&o->attrs, &o->nr_attrs, opt, optarg, a, 0);
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(125);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		exit(125);
	}
	build_actions(&o->fa, o->actions, o->nr_actions);
	build_attr(&o->attr, o->attrs, o->nr_attrs);
	if (!empty_env)
		for (char **e = environ; *e; e++)
			add_env(o, *e);
	for (size_t i = 0; i < nextra; i++)
		set_env(o, extra[i]);
	if (!o->envp)
		add_env(o, NULL);
}

/*
 * Whether the child's setup (the attributes of the first @nattrs
 * attribute options, the first @nactions file actions) succeeds: 0 when
 * the exec is reached, else the setup's error.  posix_spawn returns one
 * error number for the setup and the exec alike, so the setup is run
 * with a program whose exec fails in a known way: "/" (a directory:
 * EACCES); when that is the answer, the setup itself may have failed
 * with EACCES, and "/dev/null/" (ENOTDIR, or ENOENT) decides.  The
 * options have no effect that outlives the child.
 */
static int setup_error(const struct options *o, int nattrs, int nactions)
{
	static const char *const probes[] = { "/", "/dev/null/" };
	char *argv[] = { "pidfd-spawn-probe", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int err[2];

	build_actions(&fa, o->actions, nactions);
	build_attr(&attr, o->attrs, nattrs);
	for (int i = 0; i < 2; i++) {
		pid_t pid;

		err[i] = posix_spawn(&pid, probes[i], &fa, &attr, argv, o->envp);
		if (!err[i])
			waitpid(pid, NULL, 0);	/* cannot happen: not programs */
		if (i == 0 && err[0] != EACCES)
			break;
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (err[0] != EACCES)
		return err[0];
	return err[1] == EACCES ? EACCES : 0;
}

static const char *step_name(const struct step *s, char *buf, size_t size)
{
	snprintf(buf, size, "-%c%s%s", s->opt, s->arg ? " " : "",
		 s->arg ? s->arg : "");
	return buf;
}

/*
 * The spawn failed with @err: blame the option whose setup step failed
 * (exit 125, as env(1) for its own -C), the program (126, 127), or,
 * when no child can be made even without the options, the command
 * itself (125, as env(1) when it fails).
 */
static int spawn_failed(const struct options *o, const char *prog, int err)
{
	char name[PATH_MAX + 8];

	if (setup_error(o, o->nr_attrs, o->nr_actions) == 0) {
		fprintf(stderr, "pidfd-spawn: %s: %s\n", prog, strerror(err));
		return err == ENOENT ? 127 : 126;
	}
	/*
	 * Without any option the probe fails too: no child can be made at
	 * all (EAGAIN at RLIMIT_NPROC, ENOMEM): the command's own failure,
	 * not an option's.
	 */
	if ((o->nr_attrs || o->nr_actions) && setup_error(o, 0, 0) != 0) {
		fprintf(stderr, "pidfd-spawn: cannot spawn a child: %s\n",
			strerror(err));
		return 125;
	}
	/* The attributes come first in the child, then the file actions. */
	for (int i = 1; i <= o->nr_attrs; i++) {
		if (setup_error(o, i, 0) == 0)
			continue;
		fprintf(stderr, "pidfd-spawn: attribute %s: %s\n",
			step_name(&o->attrs[i - 1], name, sizeof(name)),
			strerror(err));
		return 125;
	}
	for (int i = 1; i <= o->nr_actions; i++) {
		if (setup_error(o, o->nr_attrs, i) == 0)
			continue;
		fprintf(stderr, "pidfd-spawn: file action %s: %s\n",
			step_name(&o->actions[i - 1], name, sizeof(name)),
			strerror(err));
		return 125;
	}
	fprintf(stderr, "pidfd-spawn: cannot spawn a child: %s\n",
		strerror(err));
	return 125;
}

/* The pid a pidfd refers to, from /proc/self/fdinfo. */
static int pid_of_pidfd(int pidfd)
{
	char path[64], line[256];
	int pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

static double elapsed_us(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e6 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct timespec t0, t1;
	siginfo_t si = { 0 };
	int pidfd, err;

	parse(&o, argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = pidfd_spawnp(&pidfd, argv[optind], &o.fa, &o.attr, argv + optind,
			   o.envp);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o.verbose)
		fprintf(stderr, "pidfd-spawn: backend=%s pid=%d spawn_us=%.0f\n",
			pidfdspawn_backend_name(pidfdspawn_last_backend()),
			err ? -1 : pid_of_pidfd(pidfd), elapsed_us(&t0, &t1));
	if (err)
		return spawn_failed(&o, argv[optind], err);
	while (syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) < 0) {
		if (errno != EINTR) {
			perror("pidfd-spawn: waitid");
			return 125;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o.verbose)
		fprintf(stderr, "pidfd-spawn: pid %d %s %d after %.0f us\n", si.si_pid,
			si.si_code == CLD_EXITED ? "exited with" : "killed by signal",
			si.si_status, elapsed_us(&t0, &t1));
	return si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
}
