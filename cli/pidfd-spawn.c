/* SPDX-License-Identifier: MIT */
/*
 * pidfd-spawn: run a program through libpidfdspawn with posix_spawn file
 * actions and attributes from the command line, wait for it and exit with
 * its status (128 + signal when it was killed).
 */
#include <errno.h>
#include <getopt.h>
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

struct options {
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	short flags;
	sigset_t sigdef, sigmask;
	char **envp;
	size_t nenv;
	int verbose;
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
"  -E VAR=VALUE  add VAR=VALUE to the environment\n"
"  -s            new session (POSIX_SPAWN_SETSID)\n"
"  -g PGID       process group PGID, 0 = own group (SETPGROUP)\n"
"  -r            reset effective ids to real ids (RESETIDS)\n"
"  -S SIG        reset SIG to its default action (SETSIGDEF); repeatable\n"
"  -m SIG        block SIG in the child (SETSIGMASK, empty otherwise)\n"
"  -v            report backend, pid and time taken on stderr\n"
"  -h            this help\n"
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

static void parse(struct options *o, int argc, char **argv)
{
	int opt, a, b, empty_env = 0;
	char **extra = calloc((size_t)argc + 1, sizeof(char *));
	size_t nextra = 0;

	posix_spawn_file_actions_init(&o->fa);
	posix_spawnattr_init(&o->attr);
	sigemptyset(&o->sigdef);
	sigemptyset(&o->sigmask);
	while ((opt = getopt(argc, argv, "+d:x:c:C:F:iE:sg:rS:m:vh")) != -1) {
		switch (opt) {
		case 'd':
			if (sscanf(optarg, "%d:%d", &a, &b) != 2)
				die("bad -d (want OLD:NEW)", optarg);
			check(posix_spawn_file_actions_adddup2(&o->fa, a, b), "-d", optarg);
			break;
		case 'x':
			if (parse_int(optarg, &a))
				die("bad fd", optarg);
			check(posix_spawn_file_actions_addclose(&o->fa, a), "-x", optarg);
			break;
		case 'c':
			if (parse_int(optarg, &a))
				die("bad fd", optarg);
			check(posix_spawn_file_actions_addclosefrom_np(&o->fa, a), "-c", optarg);
			break;
		case 'C':
			check(posix_spawn_file_actions_addchdir_np(&o->fa, optarg), "-C", optarg);
			break;
		case 'F':
			if (parse_int(optarg, &a))
				die("bad fd", optarg);
			check(posix_spawn_file_actions_addfchdir_np(&o->fa, a), "-F", optarg);
			break;
		case 'i':
			empty_env = 1;
			break;
		case 'E':
			if (!strchr(optarg, '='))
				die("bad -E (want VAR=VALUE)", optarg);
			extra[nextra++] = optarg;
			break;
		case 's':
			o->flags |= POSIX_SPAWN_SETSID;
			break;
		case 'g':
			if (parse_int(optarg, &a))
				die("bad process group", optarg);
			o->flags |= POSIX_SPAWN_SETPGROUP;
			posix_spawnattr_setpgroup(&o->attr, a);
			break;
		case 'r':
			o->flags |= POSIX_SPAWN_RESETIDS;
			break;
		case 'S':
		case 'm':
			if ((a = parse_signal(optarg)) < 0)
				die("bad signal", optarg);
			sigaddset(opt == 'S' ? &o->sigdef : &o->sigmask, a);
			o->flags |= opt == 'S' ? POSIX_SPAWN_SETSIGDEF : POSIX_SPAWN_SETSIGMASK;
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
	posix_spawnattr_setsigdefault(&o->attr, &o->sigdef);
	posix_spawnattr_setsigmask(&o->attr, &o->sigmask);
	check(posix_spawnattr_setflags(&o->attr, o->flags), "flags", "");
	if (!empty_env)
		for (char **e = environ; *e; e++)
			add_env(o, *e);
	for (size_t i = 0; i < nextra; i++)
		add_env(o, extra[i]);
	if (!o->envp)
		add_env(o, NULL);
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
	if (err) {
		fprintf(stderr, "pidfd-spawn: %s: %s\n", argv[optind], strerror(err));
		return err == ENOENT ? 127 : 126;
	}
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
