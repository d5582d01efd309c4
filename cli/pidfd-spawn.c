/* SPDX-License-Identifier: MIT */
/*
 * pidfd-spawn: run a program through libpidfdspawn with posix_spawn file
 * actions and attributes from the command line, wait for it and exit with
 * its status (128 + signal when it was killed).  The options follow env(1)
 * where env has the same letter or name; exit statuses are env's.
 *
 * The child is spawned exactly once.  posix_spawn returns one error number
 * for the child's setup and its exec alike, so before spawning the command
 * replays the setup in the parent, without lasting effects (a simulated
 * descriptor table and working directory, permission checks, a scheduler
 * change tried on a short-lived thread), and reports a step that would fail
 * under its option's name.  A failure of the spawn itself is then the
 * program's, unless the program looks runnable and the error is not one an
 * exec gives.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidfdspawn.h"

#define NAME "pidfd-spawn"
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

extern char **environ;

/* Options without a short form. */
enum {
	OPT_STDIN = 256,
	OPT_STDOUT,
	OPT_STDERR,
	OPT_APPEND_STDOUT,
	OPT_APPEND_STDERR,
	OPT_CLOEXEC_DEFAULT,
	OPT_SCHED_POLICY,
	OPT_SCHED_PRIORITY,
	OPT_CGROUP,
	OPT_VERSION,
};

static const struct option longopts[] = {
	{ "argv0",		required_argument, NULL, 'a' },
	{ "ignore-environment",	no_argument,	   NULL, 'i' },
	{ "unset",		required_argument, NULL, 'u' },
	{ "set",		required_argument, NULL, 'E' },
	{ "chdir",		required_argument, NULL, 'C' },
	{ "fchdir",		required_argument, NULL, 'F' },
	{ "dup",		required_argument, NULL, 'd' },
	{ "close",		required_argument, NULL, 'x' },
	{ "close-from",		required_argument, NULL, 'c' },
	{ "stdin",		required_argument, NULL, OPT_STDIN },
	{ "stdout",		required_argument, NULL, OPT_STDOUT },
	{ "stderr",		required_argument, NULL, OPT_STDERR },
	{ "append-stdout",	required_argument, NULL, OPT_APPEND_STDOUT },
	{ "append-stderr",	required_argument, NULL, OPT_APPEND_STDERR },
	{ "cloexec-default",	no_argument,	   NULL, OPT_CLOEXEC_DEFAULT },
	{ "setsid",		no_argument,	   NULL, 's' },
	{ "pgroup",		required_argument, NULL, 'g' },
	{ "reset-ids",		no_argument,	   NULL, 'r' },
	{ "default-signal",	optional_argument, NULL, 'D' },
	{ "block-signal",	optional_argument, NULL, 'm' },
	{ "sched-policy",	required_argument, NULL, OPT_SCHED_POLICY },
	{ "sched-priority",	required_argument, NULL, OPT_SCHED_PRIORITY },
	{ "cgroup",		required_argument, NULL, OPT_CGROUP },
	{ "debug",		no_argument,	   NULL, 'v' },
	{ "verbose",		no_argument,	   NULL, 'v' },
	{ "help",		no_argument,	   NULL, 'h' },
	{ "version",		no_argument,	   NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};
/* '+': options end at the first operand, as env(1); ':': we say it. */
static const char shortopts[] = "+:a:iu:E:C:F:d:x:c:sg:rD:m:vh";

static void usage(void)
{
	printf(
"Usage: " NAME " [OPTION]... [NAME=VALUE]... [--] PROGRAM [ARG]...\n"
"Run PROGRAM through libpidfdspawn (the kernel's pidfd spawn builder, or\n"
"its fallback), wait for it and exit with its status.\n"
"\n"
"Environment (as env(1)):\n"
"  -i, --ignore-environment   start with an empty environment\n"
"  -u, --unset=NAME           remove NAME from the environment\n"
"  -E, --set=NAME=VALUE       set NAME to VALUE (also NAME=VALUE operands)\n"
"  -a, --argv0=ARG            pass ARG as the program's argv[0]\n"
"File actions, applied in the child in command-line order:\n"
"  -C, --chdir=DIR            change the working directory to DIR\n"
"  -F, --fchdir=FD            change to the directory open as FD\n"
"  -d, --dup=OLD:NEW          dup2 OLD onto NEW (OLD:OLD keeps a cloexec fd)\n"
"  -x, --close=FD             close FD\n"
"  -c, --close-from=FD        close every descriptor from FD up\n"
"      --stdin=FILE           open FILE for reading as standard input\n"
"      --stdout=FILE          create or truncate FILE as standard output\n"
"      --stderr=FILE          create or truncate FILE as standard error\n"
"      --append-stdout=FILE   append standard output to FILE\n"
"      --append-stderr=FILE   append standard error to FILE\n"
"      --cloexec-default      pass only descriptors 0-2 and those the file\n"
"                             actions place; close every other one at exec\n"
"Attributes:\n"
"  -s, --setsid               run the program in a new session\n"
"  -g, --pgroup=PGID          put it in process group PGID (0: a new one)\n"
"  -r, --reset-ids            reset the effective ids to the real ids\n"
"  -D, --default-signal[=SIG] reset SIG (default: all) to its default action\n"
"  -m, --block-signal[=SIG]   block SIG (default: all) in the program\n"
"      --sched-policy=POLICY  other, fifo or rr (see chrt(1))\n"
"      --sched-priority=N     the static priority for fifo and rr\n"
"      --cgroup=DIR           start it in the cgroup v2 directory DIR\n"
"Other:\n"
"  -v, --debug                report backend, pid and times on stderr\n"
"  -h, --help                 display this help and exit\n"
"      --version              output version information and exit\n"
"\n"
"SIG is a name (INT, SIGINT) or number; a comma-separated list is allowed.\n"
"Exit status: PROGRAM's; 128+N when killed by signal N; 125 when " NAME "\n"
"itself fails (a bad option, a setup step, no child); 126 when PROGRAM\n"
"cannot be run; 127 when it is not found.\n"
"PIDFDSPAWN_BACKEND=auto|builder|fallback forces a backend.\n");
}

static void __attribute__((noreturn)) usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" NAME " --help' for more information.\n", stderr);
	exit(125);
}

/* A setup step that failed or would fail: one line, exit 125. */
static void __attribute__((noreturn)) fail(const char *opt, const char *arg,
					   int err, const char *why)
{
	fprintf(stderr, NAME ": %s%s%s: %s%s%s%s\n", opt, arg ? " " : "",
		arg ? arg : "", strerror(err), why ? " (" : "",
		why ? why : "", why ? ")" : "");
	exit(125);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs(NAME ": out of memory\n", stderr);
		exit(125);
	}
	return p;
}

/* ---- Parsing ----------------------------------------------------------- */

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_signal(const char *s)
{
	int sig;

	if (parse_int(s, &sig) == 0)
		return sig > 0 && sig < NSIG ? sig : -1;
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (sig = 1; sig < NSIG; sig++) {
		const char *name = sigabbrev_np(sig);

		if (name && strcasecmp(s, name) == 0)
			return sig;
	}
	return -1;
}

/* SIG[,SIG...] into @set, or every signal when @list is NULL. */
static void add_signals(sigset_t *set, const char *opt, const char *list)
{
	char *copy, *tok, *save = NULL;

	if (!list) {
		sigfillset(set);
		return;
	}
	if (!*list)
		usage_error("%s: invalid signal ''", opt);
	copy = xrealloc(NULL, strlen(list) + 1);
	strcpy(copy, list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int sig = parse_signal(tok);

		if (sig < 0 || sigaddset(set, sig) < 0)
			usage_error("%s: invalid signal '%s'", opt, tok);
	}
	free(copy);
}

/* One file action, in command-line order. */
struct step {
	int opt;		/* the getopt value */
	const char *name;	/* the long option, for messages */
	const char *arg;
	int a, b;		/* fds */
	int oflag;		/* for opens */
};

struct options {
	struct step *steps;
	int nr_steps;
	/* Environment edits in order: "NAME" to unset, "NAME=VALUE" to set. */
	char **edits;
	int nr_edits;
	int empty_env;
	const char *argv0;
	int verbose;
	int setsid, resetids, have_pgroup, cloexec_default;
	pid_t pgroup;
	int set_sigdef, set_sigmask;
	sigset_t sigdef, sigmask;
	int policy;		/* -1: unchanged */
	int priority;		/* -1: none given */
	const char *cgroup_dir;
	int cgroup_fd;
	/* What is handed to the library. */
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char **envp;
	size_t nenv;
};

static void add_step(struct options *o, int opt, const char *name,
		     const char *arg, int a, int b, int oflag)
{
	o->steps = xrealloc(o->steps, (size_t)(o->nr_steps + 1) * sizeof(*o->steps));
	o->steps[o->nr_steps++] = (struct step){
		.opt = opt, .name = name, .arg = arg, .a = a, .b = b,
		.oflag = oflag,
	};
}

static int parse_fd(const char *opt, const char *s)
{
	int fd;

	if (parse_int(s, &fd))
		usage_error("%s: invalid file descriptor '%s'", opt, s);
	return fd;
}

static int parse_policy(const char *s)
{
	static const struct { const char *name; int policy; } p[] = {
		{ "other", SCHED_OTHER }, { "fifo", SCHED_FIFO },
		{ "rr", SCHED_RR },
	};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (strcasecmp(s, p[i].name) == 0 ||
		    (strncasecmp(s, "SCHED_", 6) == 0 &&
		     strcasecmp(s + 6, p[i].name) == 0))
			return p[i].policy;
	usage_error("--sched-policy: invalid policy '%s' (other, fifo, rr)", s);
}

static void add_edit(struct options *o, char *edit)
{
	o->edits = xrealloc(o->edits, (size_t)(o->nr_edits + 1) * sizeof(char *));
	o->edits[o->nr_edits++] = edit;
}

/* The option getopt just refused, in one line. */
static void __attribute__((noreturn)) bad_option(int argc, char **argv, int ret)
{
	const char *tok = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	if (strncmp(tok, "--", 2) == 0) {
		if (ret == ':')
			usage_error("option '%s' requires an argument", tok);
		if (optopt && strchr(tok, '='))
			usage_error("option '%.*s' doesn't allow an argument",
				    (int)(strchr(tok, '=') - tok), tok);
		usage_error("unrecognized option '%s'", tok);
	}
	if (ret == ':')
		usage_error("option requires an argument -- '%c'", optopt);
	usage_error("invalid option -- '%c'", optopt);
}

static void parse(struct options *o, int argc, char **argv)
{
	static const char *const redirects[] = {
		[OPT_STDIN - OPT_STDIN] = "--stdin",
		[OPT_STDOUT - OPT_STDIN] = "--stdout",
		[OPT_STDERR - OPT_STDIN] = "--stderr",
		[OPT_APPEND_STDOUT - OPT_STDIN] = "--append-stdout",
		[OPT_APPEND_STDERR - OPT_STDIN] = "--append-stderr",
	};
	const char *name;
	int opt, idx, a, b;
	char *colon, *end;

	o->policy = -1;
	o->priority = -1;
	o->cgroup_fd = -1;
	sigemptyset(&o->sigdef);
	sigemptyset(&o->sigmask);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		/* Messages name the long form whichever form was used. */
		name = opt >= OPT_STDIN && opt <= OPT_APPEND_STDERR ?
		       redirects[opt - OPT_STDIN] : NULL;
		switch (opt) {
		case 'a':
			o->argv0 = optarg;
			break;
		case 'i':
			o->empty_env = 1;
			break;
		case 'u':
			if (!*optarg || strchr(optarg, '='))
				usage_error("cannot unset '%s': %s", optarg,
					    strerror(EINVAL));
			add_edit(o, optarg);
			break;
		case 'E':
			if (!strchr(optarg, '=') || *optarg == '=')
				usage_error("--set: invalid assignment '%s' "
					    "(want NAME=VALUE)", optarg);
			add_edit(o, optarg);
			break;
		case 'C':
			add_step(o, opt, "--chdir", optarg, 0, 0, 0);
			break;
		case 'F':
			add_step(o, opt, "--fchdir", optarg,
				 parse_fd("--fchdir", optarg), 0, 0);
			break;
		case 'd':
			colon = strchr(optarg, ':');
			if (!colon)
				usage_error("--dup: invalid argument '%s' "
					    "(want OLD:NEW)", optarg);
			*colon = '\0';
			a = parse_int(optarg, &a) ? -1 : a;
			b = parse_int(colon + 1, &b) ? -1 : b;
			*colon = ':';
			if (a < 0 || b < 0)
				usage_error("--dup: invalid argument '%s' "
					    "(want OLD:NEW)", optarg);
			add_step(o, opt, "--dup", optarg, a, b, 0);
			break;
		case 'x':
			add_step(o, opt, "--close", optarg,
				 parse_fd("--close", optarg), 0, 0);
			break;
		case 'c':
			add_step(o, opt, "--close-from", optarg,
				 parse_fd("--close-from", optarg), 0, 0);
			break;
		case OPT_STDIN:
			add_step(o, opt, name, optarg, 0, 0, O_RDONLY);
			break;
		case OPT_STDOUT:
		case OPT_STDERR:
			add_step(o, opt, name, optarg, opt == OPT_STDOUT ? 1 : 2,
				 0, O_WRONLY | O_CREAT | O_TRUNC);
			break;
		case OPT_APPEND_STDOUT:
		case OPT_APPEND_STDERR:
			add_step(o, opt, name, optarg,
				 opt == OPT_APPEND_STDOUT ? 1 : 2, 0,
				 O_WRONLY | O_CREAT | O_APPEND);
			break;
		case OPT_CLOEXEC_DEFAULT:
			o->cloexec_default = 1;
			break;
		case 's':
			o->setsid = 1;
			break;
		case 'g':
			if (parse_int(optarg, &a))
				usage_error("--pgroup: invalid process group '%s'",
					    optarg);
			o->have_pgroup = 1;
			o->pgroup = a;
			break;
		case 'r':
			o->resetids = 1;
			break;
		case 'D':
			o->set_sigdef = 1;
			add_signals(&o->sigdef, "--default-signal", optarg);
			break;
		case 'm':
			o->set_sigmask = 1;
			add_signals(&o->sigmask, "--block-signal", optarg);
			break;
		case OPT_SCHED_POLICY:
			o->policy = parse_policy(optarg);
			break;
		case OPT_SCHED_PRIORITY:
			errno = 0;
			a = (int)strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || a < 0)
				usage_error("--sched-priority: invalid priority '%s'",
					    optarg);
			o->priority = a;
			break;
		case OPT_CGROUP:
			o->cgroup_dir = optarg;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			usage();
			exit(0);
		case OPT_VERSION:
			printf(NAME " (libpidfdspawn) %s\n", pidfdspawn_version());
			exit(0);
		default:
			bad_option(argc, argv, opt);
		}
	}
	/* NAME=VALUE operands before the program, as env(1). */
	while (optind < argc && strchr(argv[optind], '=') && *argv[optind] != '=')
		add_edit(o, argv[optind++]);
	if (optind >= argc)
		usage_error("no program given");
}

/* ---- The child's environment ------------------------------------------ */

static void env_append(struct options *o, char *entry)
{
	o->envp = xrealloc(o->envp, (o->nenv + 2) * sizeof(char *));
	o->envp[o->nenv++] = entry;
	o->envp[o->nenv] = NULL;
}

/* Drop every NAME=... (@len: the length of "NAME="); where the first was. */
static size_t env_remove(struct options *o, const char *entry, size_t len)
{
	size_t kept = 0, first = (size_t)-1;

	for (size_t i = 0; i < o->nenv; i++) {
		if (strncmp(o->envp[i], entry, len) == 0) {
			if (first == (size_t)-1)
				first = kept;
			continue;
		}
		o->envp[kept++] = o->envp[i];
	}
	o->nenv = kept;
	o->envp[kept] = NULL;
	return first;
}

static void build_env(struct options *o)
{
	env_append(o, NULL);	/* the array exists, empty */
	o->nenv = 0;
	if (!o->empty_env)
		for (char **e = environ; *e; e++)
			env_append(o, *e);
	for (int i = 0; i < o->nr_edits; i++) {
		char *edit = o->edits[i], *eq = strchr(edit, '=');

		if (!eq) {
			char key[strlen(edit) + 2];

			snprintf(key, sizeof(key), "%s=", edit);
			env_remove(o, key, strlen(key));
			continue;
		}
		/* A set replaces the first NAME= in place, as env(1). */
		size_t at = env_remove(o, edit, (size_t)(eq - edit) + 1);

		env_append(o, edit);
		if (at != (size_t)-1) {
			memmove(&o->envp[at + 1], &o->envp[at],
				(o->nenv - 1 - at) * sizeof(char *));
			o->envp[at] = edit;
		}
	}
}

/* The child's PATH, or NULL when it has none. */
static const char *child_path(const struct options *o)
{
	for (size_t i = 0; i < o->nenv; i++)
		if (strncmp(o->envp[i], "PATH=", 5) == 0)
			return o->envp[i] + 5;
	return NULL;
}

/* ---- What goes to the library ------------------------------------------ */

static void build_request(struct options *o)
{
	posix_spawn_file_actions_t *fa = &o->fa;
	short flags = 0;
	int err = 0;

	posix_spawn_file_actions_init(fa);
	/*
	 * --cloexec-default passes only what the actions place: place the
	 * standard descriptors first (later actions may still change them).
	 */
	for (int fd = 0; fd < 3 && o->cloexec_default; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			posix_spawn_file_actions_adddup2(fa, fd, fd);
	for (int i = 0; i < o->nr_steps && !err; i++) {
		const struct step *s = &o->steps[i];

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
		default:	/* the redirections */
			err = posix_spawn_file_actions_addopen(fa, s->a, s->arg,
							       s->oflag, 0666);
			break;
		}
		if (err)
			fail(s->name, s->arg, err, NULL);
	}

	posix_spawnattr_init(&o->attr);
	if (o->setsid)
		flags |= POSIX_SPAWN_SETSID;
	if (o->have_pgroup) {
		flags |= POSIX_SPAWN_SETPGROUP;
		posix_spawnattr_setpgroup(&o->attr, o->pgroup);
	}
	if (o->resetids)
		flags |= POSIX_SPAWN_RESETIDS;
	if (o->set_sigdef) {
		flags |= POSIX_SPAWN_SETSIGDEF;
		posix_spawnattr_setsigdefault(&o->attr, &o->sigdef);
	}
	if (o->set_sigmask) {
		/* As env(1): in addition to what is blocked already. */
		sigset_t mask;

		sigprocmask(SIG_BLOCK, NULL, &mask);
		sigorset(&mask, &mask, &o->sigmask);
		flags |= POSIX_SPAWN_SETSIGMASK;
		posix_spawnattr_setsigmask(&o->attr, &mask);
	}
	if (o->policy >= 0 || o->priority >= 0) {
		struct sched_param sp = { .sched_priority =
					  o->priority < 0 ? 0 : o->priority };

		if (o->policy >= 0) {
			flags |= POSIX_SPAWN_SETSCHEDULER;
			err = posix_spawnattr_setschedpolicy(&o->attr, o->policy);
			if (err)
				fail("--sched-policy", NULL, err, NULL);
		}
		flags |= POSIX_SPAWN_SETSCHEDPARAM;
		err = posix_spawnattr_setschedparam(&o->attr, &sp);
		if (err)
			fail("--sched-priority", NULL, err, NULL);
	}
	if (o->cgroup_fd >= 0) {
		flags |= POSIX_SPAWN_SETCGROUP;
		posix_spawnattr_setcgroup_np(&o->attr, o->cgroup_fd);
	}
	if (o->cloexec_default)
		flags |= POSIX_SPAWN_CLOEXEC_DEFAULT_NP;
	err = posix_spawnattr_setflags(&o->attr, flags);
	if (err)
		fail("attributes", NULL, err, NULL);
}

/* ---- The child's setup, replayed in the parent ------------------------- */

/* A descriptor as the child's file actions leave it. */
struct fdsim {
	int fd;
	int open;
	int src;	/* the parent's fd it copies, -1: opened by an action */
};

struct sim {
	struct fdsim *fds;
	int nr;
	int closed_from;	/* every inherited fd from here is closed */
	int cwd;		/* the child's directory; -1: unknown */
};

static struct fdsim *sim_find(struct sim *s, int fd)
{
	for (int i = 0; i < s->nr; i++)
		if (s->fds[i].fd == fd)
			return &s->fds[i];
	return NULL;
}

static void sim_set(struct sim *s, int fd, int open, int src)
{
	struct fdsim *f = sim_find(s, fd);

	if (!f) {
		s->fds = xrealloc(s->fds, (size_t)(s->nr + 1) * sizeof(*s->fds));
		f = &s->fds[s->nr++];
	}
	*f = (struct fdsim){ .fd = fd, .open = open, .src = src };
}

/* Whether @fd is open in the child; *src the parent's fd it copies. */
static int sim_open(struct sim *s, int fd, int *src)
{
	struct fdsim *f = sim_find(s, fd);

	if (f) {
		*src = f->src;
		return f->open;
	}
	*src = fd;
	return fd < s->closed_from && fcntl(fd, F_GETFD) != -1;
}

static void sim_cwd(struct sim *s, int fd)
{
	if (s->cwd >= 0 && s->cwd != AT_FDCWD)
		close(s->cwd);
	s->cwd = fd;
}

/*
 * Whether the child could open @path with @oflag: 0 or the error, found
 * without creating or truncating anything (a FIFO is opened non-blocking).
 */
static int check_open(int dir, const char *path, int oflag)
{
	int fd = openat(dir, path, (oflag & O_ACCMODE) | O_NONBLOCK |
			O_NOCTTY | O_CLOEXEC), err;
	char parent[PATH_MAX];
	const char *slash;

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = errno;
	if (err == ENXIO)	/* a FIFO without a reader yet */
		return 0;
	if (err != ENOENT || !(oflag & O_CREAT))
		return err;
	/* A new file: its directory must exist and take it. */
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == path)
		snprintf(parent, sizeof(parent), "/");
	else
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	fd = openat(dir, parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) < 0 ? errno : 0;
	close(fd);
	return err;
}

/* What a scheduler change does on a thread of our own: 0 or the error. */
struct sched_try {
	int policy, set_policy;
	struct sched_param sp;
	int err;
};

static void *sched_thread(void *arg)
{
	struct sched_try *t = arg;
	int r = t->set_policy ? sched_setscheduler(0, t->policy, &t->sp) :
				sched_setparam(0, &t->sp);

	t->err = r < 0 ? errno : 0;
	return NULL;
}

static void check_sched(const struct options *o)
{
	struct sched_try t = {
		.policy = o->policy,
		.set_policy = o->policy >= 0,
		.sp.sched_priority = o->priority < 0 ? 0 : o->priority,
	};
	int policy = o->policy >= 0 ? o->policy :
		     sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
	int min = sched_get_priority_min(policy);
	int max = sched_get_priority_max(policy);
	pthread_t th;
	char range[64];

	if (t.sp.sched_priority < min || t.sp.sched_priority > max) {
		snprintf(range, sizeof(range), "this policy takes %d to %d",
			 min, max);
		if (o->priority >= 0) {
			char arg[16];

			snprintf(arg, sizeof(arg), "%d", o->priority);
			fail("--sched-priority", arg, EINVAL, range);
		}
		fail("--sched-policy", NULL, EINVAL,
		     "give a --sched-priority");
	}
	/* sched_setscheduler(0) changes the calling thread only. */
	if (pthread_create(&th, NULL, sched_thread, &t) != 0)
		return;
	pthread_join(th, NULL);
	if (t.err)
		fail(o->policy >= 0 ? "--sched-policy" : "--sched-priority",
		     NULL, t.err, NULL);
}

static void check_cgroup(struct options *o)
{
	struct statfs sf;
	int fd = open(o->cgroup_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		fail("--cgroup", o->cgroup_dir, errno, NULL);
	if (fstatfs(fd, &sf) < 0)
		fail("--cgroup", o->cgroup_dir, errno, NULL);
	if (sf.f_type != CGROUP2_SUPER_MAGIC)
		fail("--cgroup", o->cgroup_dir, EBADF,
		     "not a cgroup v2 directory");
	if (faccessat(fd, "cgroup.procs", W_OK, AT_EACCESS) < 0)
		fail("--cgroup", o->cgroup_dir, errno, "its cgroup.procs");
	o->cgroup_fd = fd;
}

/*
 * Replay the child's setup in the library's order (scheduler, session,
 * process group, then the file actions in command-line order) and stop
 * at the first step that would fail.  @cwd_out gets the child's final
 * directory (-1: unknown) for finding the program afterwards.
 */
static void check_setup(struct options *o, int *cwd_out)
{
	struct sim s = { .closed_from = INT_MAX, .cwd = AT_FDCWD };
	int src, fd, err;

	if (o->policy >= 0 || o->priority >= 0)
		check_sched(o);
	if (o->have_pgroup) {
		char arg[16];

		snprintf(arg, sizeof(arg), "%d", (int)o->pgroup);
		if (o->setsid)
			fail("--pgroup", arg, EPERM,
			     "a new session's leader keeps its group");
		if (o->pgroup && kill(-o->pgroup, 0) < 0 && errno == ESRCH)
			fail("--pgroup", arg, EPERM, "no such process group");
		if (o->pgroup && getsid(o->pgroup) >= 0 &&
		    getsid(o->pgroup) != getsid(0))
			fail("--pgroup", arg, EPERM, "in another session");
	}
	for (int i = 0; i < o->nr_steps; i++) {
		const struct step *st = &o->steps[i];

		switch (st->opt) {
		case 'd':
			if (!sim_open(&s, st->a, &src))
				fail(st->name, st->arg, EBADF, NULL);
			sim_set(&s, st->b, 1, src);
			break;
		case 'x':
			sim_set(&s, st->a, 0, -1);
			break;
		case 'c':
			for (int j = 0; j < s.nr; j++)
				if (s.fds[j].fd >= st->a)
					s.fds[j].open = 0;
			if (st->a < s.closed_from)
				s.closed_from = st->a;
			break;
		case 'C':
			if (s.cwd == -1)
				break;
			fd = openat(s.cwd, st->arg, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 || faccessat(fd, ".", X_OK, AT_EACCESS) < 0)
				fail(st->name, st->arg, errno, NULL);
			sim_cwd(&s, fd);
			break;
		case 'F':
			if (!sim_open(&s, st->a, &src))
				fail(st->name, st->arg, EBADF, NULL);
			if (src < 0) {		/* a file an action opened */
				sim_cwd(&s, -1);
				break;
			}
			fd = openat(src, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 && errno == ENOTDIR)
				fail(st->name, st->arg, ENOTDIR, NULL);
			if (fd >= 0 && faccessat(fd, ".", X_OK, AT_EACCESS) < 0)
				fail(st->name, st->arg, errno, NULL);
			sim_cwd(&s, fd);
			break;
		default:
			if (s.cwd != -1 &&
			    (err = check_open(s.cwd, st->arg, st->oflag)) != 0)
				fail(st->name, st->arg, err, NULL);
			sim_set(&s, st->a, 1, -1);
			break;
		}
	}
	free(s.fds);
	*cwd_out = s.cwd;
}

/*
 * The error an exec of @prog would give, looked up as the child does:
 * in @path when @prog has no slash (execvp's rules), from directory
 * @cwd.  0 when a runnable file was found.
 */
static int check_program(int cwd, const char *prog, const char *path)
{
	char cand[PATH_MAX];
	int seen_eacces = 0;
	struct stat st;

	if (cwd == -1)
		return -1;
	if (strchr(prog, '/') || !*prog) {
		if (!*prog)
			return ENOENT;
		if (faccessat(cwd, prog, X_OK, AT_EACCESS) < 0)
			return errno;
		if (fstatat(cwd, prog, &st, 0) == 0 && !S_ISREG(st.st_mode))
			return EACCES;
		return 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; ) {
		size_t n = strcspn(p, ":");

		snprintf(cand, sizeof(cand), "%.*s%s%s", (int)n, p,
			 n ? "/" : "", prog);
		if (faccessat(cwd, cand, X_OK, AT_EACCESS) == 0) {
			if (fstatat(cwd, cand, &st, 0) == 0 &&
			    S_ISREG(st.st_mode))
				return 0;
			seen_eacces = 1;
		} else if (errno == EACCES) {
			seen_eacces = 1;
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	return seen_eacces ? EACCES : ENOENT;
}

/* ---- Running ----------------------------------------------------------- */

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

/*
 * The spawn failed with @err although the setup checked out: the
 * program's error (126, 127) when a lookup of the program agrees or
 * finds it runnable; otherwise no child could be made or set up (125).
 */
static int spawn_failed(const char *prog, int cwd, const char *path, int err)
{
	int lookup = check_program(cwd, prog, path);

	if (err != EAGAIN && (lookup == err || lookup == 0)) {
		fprintf(stderr, NAME ": %s: %s\n", prog, strerror(err));
		return err == ENOENT ? 127 : 126;
	}
	fprintf(stderr, NAME ": cannot %s the child: %s\n",
		err == EAGAIN || err == ENOMEM ? "create" : "set up",
		strerror(err));
	return 125;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct timespec t0, t1;
	siginfo_t si = { 0 };
	const char *path, *prog;
	char **args;
	int pidfd, err, cwd;

	parse(&o, argc, argv);
	build_env(&o);
	if (o.cgroup_dir)
		check_cgroup(&o);
	build_request(&o);
	check_setup(&o, &cwd);

	/* The child's PATH governs the search, as with env(1). */
	path = child_path(&o);
	if (path)
		setenv("PATH", path, 1);
	else
		unsetenv("PATH");

	prog = argv[optind];
	args = argv + optind;
	if (o.argv0)
		args[0] = (char *)o.argv0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = pidfd_spawnp(&pidfd, prog, &o.fa, &o.attr, args, o.envp);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o.verbose)
		fprintf(stderr, NAME ": backend=%s pid=%d spawn_us=%.0f\n",
			pidfdspawn_backend_name(pidfdspawn_last_backend()),
			err ? -1 : pid_of_pidfd(pidfd), elapsed_us(&t0, &t1));
	if (err)
		return spawn_failed(prog, cwd, path, err);
	while (syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, NAME ": waitid: %s\n", strerror(errno));
			return 125;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o.verbose)
		fprintf(stderr, NAME ": pid %d %s %d after %.0f us\n", si.si_pid,
			si.si_code == CLD_EXITED ? "exited with" : "killed by signal",
			si.si_status, elapsed_us(&t0, &t1));
	return si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
}
