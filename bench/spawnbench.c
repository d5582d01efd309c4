/*
 * spawnbench: how long each spawn method takes, in the spirit of Josh Triplett's
 * spawnbench.  For every sample the parent reads CLOCK_MONOTONIC_RAW just before the
 * spawn call; the tiny static child writes its own reading as its first action, and the
 * parent reads the clock again once the child is reaped.  That gives two measures:
 *   latency    spawn call -> the child's first instruction
 *   roundtrip  spawn call -> exit -> reaped by waitpid()
 * Methods run interleaved (each round runs every method once, starting one further along
 * each time).  The parent is shaped first: extra inheritable fds, touched anonymous
 * memory, idle threads.  Where children keep only 0-2 (--fds, --close), most methods make
 * the everyday request: the timestamp pipe, opened again above the extra fds, dup2'ed onto
 * the child's fd 1, then close 3..~0U (methods.c).  After the samples one more, untimed
 * child per method, bench-fdcheck, checks the fds the method gave it (only 0-2 when they
 * are to be kept, and which fd 1).
 * With --pair, a twin process without the extra fds runs its rounds in lockstep with this
 * one, so that both parents see the same moments of a noisy host.
 * Output is a tab-separated table on stdout (see usage()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "methods.h"

#define BASELINE "posix_spawn"

struct options {
	const char *parent;	/* label for the table */
	const char *child;
	const char *helper;
	const char *fdcheck;
	const char *library;
	const char *alt_library;
	const char *accel;
	const char *only;	/* comma-separated method names, or NULL for all */
	const char *pair;	/* --pair: the small twin's parent name, or NULL */
	long fds, rss_mib, threads, rounds, warmup;
	int close;		/* --close: children keep only 0-2 even without --fds */
};

struct samples {
	int64_t *latency_ns;
	int64_t *roundtrip_ns;
	long n;
	const char *skip_reason;	/* set when the method is not available here */
	int selected;
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: spawnbench [options]\n"
		"  --parent NAME    label of this parent shape (default: small)\n"
		"  --fds N          open N extra inheritable fds; children keep only 0-2: most\n"
		"                   methods dup2 a pipe opened after the fds onto fd 1, then\n"
		"                   close 3..~0U (the everyday request; see --list)\n"
		"  --close          children keep only 0-2 (close 3..~0U) even without --fds,\n"
		"                   the same spawn request as with --fds\n"
		"  --pair NAME      with --fds: fork a twin parent NAME, shaped the same but\n"
		"                   without the extra fds and with --close (the same request);\n"
		"                   the two alternate round by round and both tables are printed\n"
		"  --rss MIB        map and touch MIB MiB of anonymous memory (4 KiB pages)\n"
		"  --threads N      start N idle threads first\n"
		"  --rounds N       measured rounds, every method once per round (default 200)\n"
		"  --warmup N       unmeasured rounds before those (default 20)\n"
		"  --methods A,B    run only these methods (default: all but the opt-in ones:\n"
		"                   pidfd_spawn_run-close, lib-builder-alt, lib-fallback-alt;\n"
		"                   pidfd_spawn_run-leadclose runs only with --fds or --close,\n"
		"                   n/a in other parents)\n"
		"  --child PATH     timestamp child (default: bench-child beside this program)\n"
		"  --helper PATH    floor helper (default: bench-helper beside this program)\n"
		"  --fdcheck PATH   the fd-checking child run once per method after the samples\n"
		"                   (default: bench-fdcheck beside this program)\n"
		"  --library PATH   libpidfdspawn to load for the lib-* methods\n"
		"                   (default: libpidfdspawn.so.0 beside this program)\n"
		"  --alt-library PATH  another build of it, for the opt-in lib-*-alt methods\n"
		"                   (a library change measured side by side with its base)\n"
		"  --accel NAME     accelerator to print with the environment (default: unknown)\n"
		"  --list           print the methods a run without --methods makes, and exit\n"
		"  --list-opt-in    print the opt-in methods (only run when --methods names them)\n"
		"  --tsc-khz        print this machine's TSC rate in kHz and exit (bench/run hands\n"
		"                   it to the guest kernel, which cannot calibrate its TSC under TCG)\n"
		"Output: '#' lines describe the environment and parent, then one row per\n"
		"method and measure: parent fds rss_mib threads method measure n median_us\n"
		"p10_us p90_us ratio note (ratio = median / " BASELINE "'s median; 'n/a' when the\n"
		"method cannot run here, with the reason as the note).\n");
}

static void die(const char *what, int err)
{
	fprintf(stderr, "spawnbench: %s: %s\n", what, strerror(err));
	exit(1);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The TSC rate against CLOCK_MONOTONIC_RAW over a quarter of a second. */
static long measure_tsc_khz(void)
{
	int64_t start = now_ns(), end;
	uint64_t tsc_start = __builtin_ia32_rdtsc(), tsc_end;
	struct timespec quarter = { 0, 250000000 };

	nanosleep(&quarter, NULL);
	end = now_ns();
	tsc_end = __builtin_ia32_rdtsc();
	return (long)((double)(tsc_end - tsc_start) * 1e6 / (double)(end - start));
}

static long parse_count(const char *opt, const char *text)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (errno || end == text || *end || value < 0) {
		fprintf(stderr, "spawnbench: %s needs a count >= 0, not '%s'\n", opt, text);
		exit(2);
	}
	return value;
}

/* A file beside this program, for the default child and helper. */
static char *beside_self(const char *name)
{
	static char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash, *path;

	if (n < 0)
		die("readlink /proc/self/exe", errno);
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	if (asprintf(&path, "%s/%s", self, name) < 0)
		die("asprintf", ENOMEM);
	return path;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "parent", required_argument, NULL, 'p' }, { "fds", required_argument, NULL, 'f' },
		{ "rss", required_argument, NULL, 'm' },    { "threads", required_argument, NULL, 't' },
		{ "rounds", required_argument, NULL, 'r' }, { "warmup", required_argument, NULL, 'w' },
		{ "methods", required_argument, NULL, 'M' }, { "child", required_argument, NULL, 'c' },
		{ "helper", required_argument, NULL, 'H' }, { "accel", required_argument, NULL, 'a' },
		{ "library", required_argument, NULL, 'L' },
		{ "alt-library", required_argument, NULL, 'A' }, { "fdcheck", required_argument, NULL, 'F' },
		{ "close", no_argument, NULL, 'C' },	    { "pair", required_argument, NULL, 'P' },
		{ "list", no_argument, NULL, 'l' },
		{ "list-opt-in", no_argument, NULL, 'O' },	    { "tsc-khz", no_argument, NULL, 'T' },	    { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ .parent = "small", .accel = "unknown", .rounds = 200, .warmup = 20 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': o->parent = optarg; break;
		case 'f': o->fds = parse_count("--fds", optarg); break;
		case 'm': o->rss_mib = parse_count("--rss", optarg); break;
		case 't': o->threads = parse_count("--threads", optarg); break;
		case 'r': o->rounds = parse_count("--rounds", optarg); break;
		case 'w': o->warmup = parse_count("--warmup", optarg); break;
		case 'M': o->only = optarg; break;
		case 'c': o->child = optarg; break;
		case 'H': o->helper = optarg; break;
		case 'a': o->accel = optarg; break;
		case 'L': o->library = optarg; break;
		case 'A': o->alt_library = optarg; break;
		case 'F': o->fdcheck = optarg; break;
		case 'C': o->close = 1; break;
		case 'P': o->pair = optarg; break;
		case 'l':
		case 'O':
			/* --list: the methods a run without --methods makes. */
			for (unsigned int i = 0; i < nr_methods; i++)
				if (methods[i].opt_in == (c == 'O'))
					printf("%s\t%s\n", methods[i].name, methods[i].what);
			exit(0);
		case 'T': printf("%ld\n", measure_tsc_khz()); exit(0);
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind != argc || o->rounds == 0) {
		usage(stderr);
		exit(2);
	}
	if (o->pair && o->fds == 0) {
		fprintf(stderr, "spawnbench: --pair needs --fds (the twin differs only in them)\n");
		exit(2);
	}
	if (!o->child)
		o->child = beside_self("bench-child");
	if (!o->helper)
		o->helper = beside_self("bench-helper");
	if (!o->fdcheck)
		o->fdcheck = beside_self("bench-fdcheck");
	if (!o->library)
		o->library = beside_self("libpidfdspawn.so.0");
}

static int name_in_list(const char *name, const char *list)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *comma = strchrnul(p, ',');

		if ((size_t)(comma - p) == len && !strncmp(p, name, len))
			return 1;
		p = *comma ? comma + 1 : comma;
	}
	return 0;
}

static void check_method_names(const char *list)
{
	char *copy = strdup(list), *save = NULL;

	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		unsigned int i;

		for (i = 0; i < nr_methods && strcmp(methods[i].name, name); i++)
			;
		if (i == nr_methods) {
			fprintf(stderr, "spawnbench: unknown method '%s' (see --list)\n", name);
			exit(2);
		}
	}
	free(copy);
}

/* ---- shaping the parent */

static void raise_fd_limit(long fds)
{
	struct rlimit lim;
	rlim_t want = (rlim_t)fds + 256;

	if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
		die("getrlimit", errno);
	if (lim.rlim_cur >= want)
		return;
	lim.rlim_cur = want;
	if (lim.rlim_max < want)
		lim.rlim_max = want;
	if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
		die("raising RLIMIT_NOFILE for --fds (needs root or a higher hard limit)", errno);
}

/* Open distinct inheritable files, as a real process with many fds has. */
static void open_inheritable_fds(long count)
{
	raise_fd_limit(count);
	for (long i = 0; i < count; i++)
		if (open("/dev/null", O_RDONLY) < 0)
			die("opening the extra fds", errno);
}

static void touch_memory(long mib)
{
	size_t size = (size_t)mib << 20;
	char *mem;

	if (!size)
		return;
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mapping --rss memory", errno);
	madvise(mem, size, MADV_NOHUGEPAGE); /* 4 KiB pages, like a typical heap */
	for (size_t off = 0; off < size; off += 4096)
		mem[off] = 1;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void start_threads(long count)
{
	for (long i = 0; i < count; i++) {
		pthread_t thread;
		int err = pthread_create(&thread, NULL, idle_thread, NULL);

		if (err)
			die("starting --threads", err);
	}
}

/*
 * Children write their timestamps to fd 1, so fd 1 becomes a pipe's write end in the
 * parent too; the table goes to a saved copy of the original stdout.
 */
static FILE *redirect_stdout_to_pipe(int *read_fd)
{
	int pipefd[2];
	int saved = fcntl(1, F_DUPFD_CLOEXEC, 3);
	FILE *out;

	if (saved < 0 || pipe2(pipefd, O_CLOEXEC) != 0)
		die("setting up the timestamp pipe", errno);
	fflush(stdout);
	if (dup2(pipefd[1], 1) != 1)
		die("dup2 onto stdout", errno);
	close(pipefd[1]);
	*read_fd = pipefd[0];
	out = fdopen(saved, "w");
	if (!out)
		die("fdopen", errno);
	return out;
}

/*
 * The everyday request's pipe: the timestamp pipe's write end opened again, as its own
 * open file (O_NONBLOCK, which bench-fdcheck can see on the child's fd 1, so the dup2 is
 * checked; close-on-exec), once the parent is shaped: the lowest free fd, above the
 * extra fds, where a real parent's pipe would be.  The timestamp still reaches the pipe.
 */
static int open_stdout_pipe_again(void)
{
	int fd = open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		die("opening the timestamp pipe again (/proc/self/fd/1) for the everyday request",
		    errno);
	return fd;
}

/* ---- the lockstep twin (--pair) */

/*
 * Two processes take turns: each round of one starts when the other finished its round,
 * so neither runs while the other measures and both meet the host's load at the same
 * times.  A token byte goes back and forth on a socket pair (close-on-exec: no child
 * sees it; MSG_NOSIGNAL: a gone partner is an error, not a SIGPIPE).  The twin sends the
 * first token once it is shaped.
 */
struct lockstep {
	int sock;		/* this process's end of the socket pair, or -1 without --pair */
	pid_t twin;		/* in the first process: the twin to wait for */
};

static void fork_twin(struct options *o, struct lockstep *ls)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		die("creating the lockstep socket pair", errno);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("forking the --pair twin", errno);
	if (pid == 0) {
		o->parent = o->pair;
		o->pair = NULL;
		o->fds = 0;
		o->close = 1;
		ls->sock = sv[1];
		ls->twin = 0;
		close(sv[0]);
		return;
	}
	ls->sock = sv[0];
	ls->twin = pid;
	close(sv[1]);
}

static void lockstep_wait(const struct lockstep *ls)
{
	char token;
	ssize_t n;

	if (ls->sock < 0)
		return;
	while ((n = recv(ls->sock, &token, 1, 0)) < 0 && errno == EINTR)
		;
	if (n != 1) {
		fprintf(stderr, "spawnbench: the --pair process ended early\n");
		exit(1);
	}
}

static void lockstep_pass(const struct lockstep *ls)
{
	if (ls->sock >= 0 && send(ls->sock, "t", 1, MSG_NOSIGNAL) != 1)
		die("passing the lockstep token to the --pair process", errno);
}

/* The first process prints after its twin, whose exit status must be 0. */
static void wait_for_twin(const struct lockstep *ls)
{
	int status;

	if (ls->twin <= 0)
		return;
	if (waitpid(ls->twin, &status, 0) != ls->twin)
		die("waiting for the --pair twin", errno);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "spawnbench: the --pair twin failed (status 0x%x)\n", status);
		exit(1);
	}
}

/* ---- measuring */

static int64_t read_child_stamp(int fd)
{
	struct timespec stamp;

	if (read(fd, &stamp, sizeof(stamp)) != sizeof(stamp))
		return -1;
	return (int64_t)stamp.tv_sec * 1000000000 + stamp.tv_nsec;
}

/* One spawn with the method; stores both measures, or exits with a clear message. */
static void sample(const struct method *m, const struct spawn_job *job, int64_t *latency,
		   int64_t *roundtrip)
{
	struct spawned child = { .pid = -1, .fd = -1 };
	int64_t start, reaped, stamp;
	int err, status;

	if (m->prepare && (err = m->prepare(job)) != 0)
		die(m->name, -err);
	start = now_ns();
	err = m->spawn(job, &child);
	if (err)
		die(m->name, -err);
	if (waitpid(child.pid, &status, 0) != child.pid)
		die("waitpid", errno);
	reaped = now_ns();
	if (child.fd >= 0)
		close(child.fd);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "spawnbench: %s: child ended with status 0x%x\n", m->name, status);
		exit(1);
	}
	if (m->start_from_pipe)
		start = read_child_stamp(job->ts_read_fd);
	stamp = read_child_stamp(job->ts_read_fd);
	if (start < 0 || stamp < start || stamp > reaped) {
		fprintf(stderr, "spawnbench: %s: no valid timestamp from the child\n", m->name);
		exit(1);
	}
	*latency = stamp - start;
	*roundtrip = reaped - start;
}

static void progress(const struct options *o, long round, long total)
{
	fprintf(stderr, "  [%s] round %ld/%ld (%ld%%)\n", o->parent, round, total,
		round * 100 / total);
}

static void run_rounds(const struct options *o, const struct spawn_job *job, struct samples *s,
		       const struct lockstep *ls)
{
	long total = o->warmup + o->rounds, step = total / 4 ? total / 4 : 1;
	int64_t ignore_latency, ignore_roundtrip;

	for (long round = 0; round < total; round++) {
		lockstep_wait(ls);
		for (unsigned int k = 0; k < nr_methods; k++) {
			unsigned int i = (unsigned int)((round + k) % nr_methods);
			struct samples *si = &s[i];

			if (!si->selected || si->skip_reason)
				continue;
			if (round < o->warmup) {
				sample(&methods[i], job, &ignore_latency, &ignore_roundtrip);
				continue;
			}
			sample(&methods[i], job, &si->latency_ns[si->n], &si->roundtrip_ns[si->n]);
			si->n++;
		}
		lockstep_pass(ls);
		if ((round + 1) % step == 0 || round + 1 == total)
			progress(o, round + 1, total);
	}
}

/* ---- checking the children's fds */

#define FDCHECK_MAX_FDS (1L << 17)	/* bench-fdcheck looks no further */

/* The fds of this process that a child inherits across exec (no FD_CLOEXEC). */
static long count_inheritable_fds(void)
{
	struct rlimit lim;
	long n = 0, limit = FDCHECK_MAX_FDS;

	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < (rlim_t)limit)
		limit = (long)lim.rlim_cur;
	for (long fd = 0; fd < limit; fd++) {
		int flags = fcntl((int)fd, F_GETFD);

		n += flags >= 0 && !(flags & FD_CLOEXEC);
	}
	return n;
}

/*
 * Untimed, after the samples: one more spawn per method, of bench-fdcheck instead of
 * the timestamp child, with the same file actions.  It exits 0 only when it has fds 0-2
 * and exactly the expected number open: 3 when the method is to keep only 0-2 (with
 * --fds or --close, and always for stdio_only methods), else every inheritable fd of
 * this parent; and fd 1 O_NONBLOCK exactly when the method made the everyday request
 * (job->stdout_fd is the pipe's only O_NONBLOCK open file).  A wrong count or fd 1 ends
 * the run (sample() reports the child's status).
 */
static long check_children(const struct options *o, const struct spawn_job *job,
			   const struct samples *s)
{
	struct spawn_job check = *job;
	char expected[24];
	char *argv[] = { (char *)o->fdcheck, expected, NULL, NULL };
	long inheritable = -1;
	int64_t ignore_latency, ignore_roundtrip;

	check.path = o->fdcheck;
	check.argv = argv;
	for (unsigned int i = 0; i < nr_methods; i++) {
		if (!s[i].selected || s[i].skip_reason)
			continue;
		if (job->close_fds || methods[i].stdio_only) {
			snprintf(expected, sizeof(expected), "3");
		} else {
			if (inheritable < 0)
				inheritable = count_inheritable_fds();
			snprintf(expected, sizeof(expected), "%ld", inheritable);
		}
		/* fd 1: the everyday request's O_NONBLOCK pipe, or the parent's own fd 1. */
		argv[2] = job->close_fds && methods[i].everyday ? "fd1-nonblock" : "fd1-block";
		sample(&methods[i], &check, &ignore_latency, &ignore_roundtrip);
	}
	return inheritable;
}

/* ---- statistics and output */

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double percentile_us(const int64_t *sorted, long n, int pct)
{
	long rank = (pct * n + 99) / 100;

	return sorted[rank > 0 ? rank - 1 : 0] / 1000.0;
}

struct summary {
	double median, p10, p90;
};

static struct summary summarize(int64_t *values, long n)
{
	qsort(values, (size_t)n, sizeof(*values), compare_i64);
	return (struct summary){ percentile_us(values, n, 50), percentile_us(values, n, 10),
				 percentile_us(values, n, 90) };
}

/* The clock behind the measurements: a coarse one (jiffies) makes them meaningless. */
static void print_clock(FILE *out)
{
	char source[64] = "unknown";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	struct timespec res = { 0, 0 };

	if (f) {
		if (fgets(source, sizeof(source), f))
			source[strcspn(source, "\n")] = 0;
		fclose(f);
	}
	clock_getres(CLOCK_MONOTONIC_RAW, &res);
	fprintf(out, "# env clock: CLOCK_MONOTONIC_RAW from clocksource %s, resolution %ld ns%s\n",
		source, res.tv_sec * 1000000000L + res.tv_nsec,
		res.tv_sec || res.tv_nsec > 1000 ? " (too coarse: timings are quantized)" : "");
}

static void print_environment(FILE *out, const struct options *o, const struct spawn_job *job,
			      long inheritable)
{
	struct utsname u;
	char line[256], model[256] = "unknown";
	FILE *cpuinfo = fopen("/proc/cpuinfo", "r");

	while (cpuinfo && fgets(line, sizeof(line), cpuinfo)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(model, sizeof(model), "%s", colon + 2);
			model[strcspn(model, "\n")] = 0;
			break;
		}
	}
	if (cpuinfo)
		fclose(cpuinfo);
	uname(&u);
	fprintf(out, "# env kernel: %s %s %s %s\n", u.sysname, u.release, u.version, u.machine);
	fprintf(out, "# env cpus: %ld online, model %s; accelerator: %s; glibc %s\n",
		sysconf(_SC_NPROCESSORS_ONLN), model, o->accel, gnu_get_libc_version());
	print_clock(out);
	fprintf(out, "# parent %s: fds=%ld rss_mib=%ld threads=%ld rounds=%ld warmup=%ld close=%d\n",
		o->parent, o->fds, o->rss_mib, o->threads, o->rounds, o->warmup,
		o->fds > 0 || o->close);
	if (job->close_fds)
		fprintf(out, "# request: the everyday request (the pipe at fd %d dup2'ed onto fd 1, "
			     "then close 3..~0U) for every method but clone3-files, "
			     "pidfd_spawn_run-leadclose (close 3..~0U alone, keeping the parent's fd 1), "
			     "pidfd_spawn_run-cloexec and floor\n", job->stdout_fd);
	if (inheritable < 0)
		fprintf(out, "# checked: every method's child had exactly fds 0-2 open (bench-fdcheck)\n");
	else
		fprintf(out, "# checked: children had exactly fds 0-2 open where kept alone, else this "
			     "parent's %ld inheritable fds (bench-fdcheck)\n", inheritable);
}

static void print_rows(FILE *out, const struct options *o, struct samples *s)
{
	static const char *const measures[] = { "latency", "roundtrip" };
	struct summary sum[2][nr_methods];
	int baseline = -1;

	for (unsigned int i = 0; i < nr_methods; i++) {
		if (s[i].n == 0)
			continue;
		sum[0][i] = summarize(s[i].latency_ns, s[i].n);
		sum[1][i] = summarize(s[i].roundtrip_ns, s[i].n);
		if (!strcmp(methods[i].name, BASELINE))
			baseline = (int)i;
	}
	fprintf(out, "parent\tfds\trss_mib\tthreads\tmethod\tmeasure\tn\tmedian_us\tp10_us\tp90_us"
		     "\tratio\tnote\n");
	for (int k = 0; k < 2; k++) {
		for (unsigned int i = 0; i < nr_methods; i++) {
			if (!s[i].selected)
				continue;
			fprintf(out, "%s\t%ld\t%ld\t%ld\t%s\t%s\t%ld\t", o->parent, o->fds, o->rss_mib,
				o->threads, methods[i].name, measures[k], s[i].n);
			if (s[i].n == 0) {
				fprintf(out, "n/a\tn/a\tn/a\tn/a\t%s\n", s[i].skip_reason);
				continue;
			}
			fprintf(out, "%.1f\t%.1f\t%.1f\t", sum[k][i].median, sum[k][i].p10,
				sum[k][i].p90);
			if (baseline < 0)
				fprintf(out, "n/a\t" BASELINE " not run\n");
			else if (sum[k][baseline].median <= 0)
				fprintf(out, "n/a\t" BASELINE "'s median is 0 (clock too coarse)\n");
			else
				fprintf(out, "%.3f\t-\n", sum[k][i].median / sum[k][baseline].median);
		}
	}
	fflush(out);
}

static void prepare_samples(const struct options *o, const struct spawn_job *job,
			    struct samples *s)
{
	for (unsigned int i = 0; i < nr_methods; i++) {
		/* Opt-in methods run only when --methods names them. */
		s[i].selected = o->only ? name_in_list(methods[i].name, o->only) :
			!methods[i].opt_in;
		if (!s[i].selected)
			continue;
		if (methods[i].close_only && !job->close_fds)
			s[i].skip_reason = "children close nothing here (the same run as pidfd_spawn_run)";
		else if (methods[i].unavailable)
			s[i].skip_reason = methods[i].unavailable(job);
		else if (!methods[i].spawn)
			s[i].skip_reason = "not built";
		if (s[i].skip_reason)
			continue;
		s[i].latency_ns = calloc((size_t)o->rounds, sizeof(int64_t));
		s[i].roundtrip_ns = calloc((size_t)o->rounds, sizeof(int64_t));
		if (!s[i].latency_ns || !s[i].roundtrip_ns)
			die("allocating samples", ENOMEM);
	}
}

int main(int argc, char **argv)
{
	static char *child_env[] = { NULL };
	struct options o;
	struct spawn_job job = { .envp = child_env, .stdout_fd = -1 };
	struct samples s[nr_methods];
	struct lockstep ls = { .sock = -1, .twin = -1 };
	char *child_argv[2];
	FILE *out;
	long inheritable;
	int err;

	parse_options(argc, argv, &o);
	if (o.only)
		check_method_names(o.only);
	if (access(o.child, X_OK) != 0 || access(o.helper, X_OK) != 0 ||
	    access(o.fdcheck, X_OK) != 0)
		die("the child, helper and fd-check programs must be executable "
		    "(see --child, --helper, --fdcheck)", errno);
	child_argv[0] = (char *)o.child;
	child_argv[1] = NULL;
	job.path = o.child;
	job.helper = o.helper;
	job.library = o.library;
	job.alt_library = o.alt_library;
	job.argv = child_argv;
	if (o.pair)
		fork_twin(&o, &ls);	/* from here on, two processes (o differs) */
	job.close_fds = o.fds > 0 || o.close;

	out = redirect_stdout_to_pipe(&job.ts_read_fd);
	memset(s, 0, sizeof(s));
	prepare_samples(&o, &job, s);

	fprintf(stderr, "  [%s] shaping the parent: %ld fds, %ld MiB touched, %ld threads\n",
		o.parent, o.fds, o.rss_mib, o.threads);
	open_inheritable_fds(o.fds);
	touch_memory(o.rss_mib);
	start_threads(o.threads);
	if (job.close_fds)
		job.stdout_fd = open_stdout_pipe_again();
	/* After the shaping: the file actions name job.stdout_fd. */
	err = methods_init(&job);
	if (err)
		die("setting up the methods", -err);
	if (ls.twin == 0)
		lockstep_pass(&ls);	/* the twin is shaped: the first process may start */

	run_rounds(&o, &job, s, &ls);
	inheritable = check_children(&o, &job, s);
	wait_for_twin(&ls);
	print_environment(out, &o, &job, inheritable);
	print_rows(out, &o, s);
	return 0;
}
