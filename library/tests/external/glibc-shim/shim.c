/* SPDX-License-Identifier: MIT */
/*
 * libpidfdspawn's stand-in for the functions of glibc's test support
 * framework that glibc's posix_spawn tests call; see support/pfs-shim.h.
 * Written for this project; compiled with each extracted glibc test.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <support/pfs-shim.h>

const char *test_dir = "/tmp";
int test_verbose;
static volatile int *failures;
static pid_t main_pid;

void support_record_failure_init(void)
{
	void *p = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("error: mmap of the failure counter: %m\n");
		exit(1);
	}
	failures = p;
}

void support_record_failure(void)
{
	if (failures)
		__atomic_add_fetch(failures, 1, __ATOMIC_SEQ_CST);
}

int support_record_failure_is_failed(void)
{
	return failures && *failures != 0;
}

static void vreport(const char *what, const char *file, int line,
		    const char *fmt, va_list ap)
{
	int saved = errno;

	fflush(stdout);
	printf("%s: %s:%d: ", what, file, line);
	errno = saved;	/* for %m */
	vprintf(fmt, ap);
	if (!*fmt || fmt[strlen(fmt) - 1] != '\n')
		putchar('\n');
	fflush(stdout);
}

void support_exit_failure_impl(int status, const char *file, int line,
			       const char *fmt, ...)
{
	va_list ap;

	if (status != EXIT_UNSUPPORTED)
		support_record_failure();
	va_start(ap, fmt);
	vreport(status == EXIT_UNSUPPORTED ? "info: unsupported" : "error",
		file, line, fmt, ap);
	va_end(ap);
	exit(status);
}

void support_test_failure_impl(const char *file, int line,
			       const char *fmt, ...)
{
	va_list ap;

	support_record_failure();
	va_start(ap, fmt);
	vreport("error", file, line, fmt, ap);
	va_end(ap);
}

void support_compare_failed(const char *file, int line, const char *lexpr,
			    long long lval, int lneg, const char *rexpr,
			    long long rval, int rneg)
{
	support_record_failure();
	printf("error: %s:%d: value of %s (%lld%s) != value of %s (%lld%s)\n",
	       file, line, lexpr, lval, lneg ? ", negative" : "", rexpr, rval,
	       rneg ? ", negative" : "");
	fflush(stdout);
}

void support_compare_blob_failed(const char *file, int line,
				 const char *lexpr, const void *l, size_t ll,
				 const char *rexpr, const void *r, size_t rl)
{
	if (ll == rl && (ll == 0 || memcmp(l, r, ll) == 0))
		return;
	support_record_failure();
	printf("error: %s:%d: blob comparison failed: %s (%zu bytes: \"%.*s\") != %s (%zu bytes: \"%.*s\")\n",
	       file, line, lexpr, ll, (int)(ll > 200 ? 200 : ll),
	       l ? (const char *)l : "", rexpr, rl, (int)(rl > 200 ? 200 : rl),
	       r ? (const char *)r : "");
	fflush(stdout);
}

#define CHECK_OR_EXIT(cond, ...) \
	do { if (!(cond)) FAIL_EXIT1(__VA_ARGS__); } while (0)

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	CHECK_OR_EXIT(p, "malloc (%zu): %m", n);
	return p;
}

void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s ? s : 1);

	CHECK_OR_EXIT(p, "calloc (%zu, %zu): %m", n, s);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	CHECK_OR_EXIT(p, "realloc (%zu): %m", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	CHECK_OR_EXIT(p, "strdup: %m");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	CHECK_OR_EXIT(n >= 0, "vasprintf: %m");
	return s;
}

char *xreadlink(const char *path)
{
	for (size_t size = 256;; size *= 2) {
		char *buf = xmalloc(size);
		ssize_t n = readlink(path, buf, size);

		CHECK_OR_EXIT(n >= 0, "readlink (\"%s\"): %m", path);
		if ((size_t)n < size) {
			buf[n] = '\0';
			return buf;
		}
		free(buf);
	}
}

/*
 * @num consecutive descriptors on /dev/null, at the lowest start where all
 * of them are free (the limit raised if needed); returns the lowest.
 */
int support_open_dev_null_range(int num, int flags, mode_t mode)
{
	struct rlimit rl;
	int start = 0;

	for (;;) {
		int i;

		for (i = 0; i < num; i++)
			if (fcntl(start + i, F_GETFD) >= 0)
				break;
		if (i == num)
			break;
		start += i + 1;
	}
	CHECK_OR_EXIT(getrlimit(RLIMIT_NOFILE, &rl) == 0, "getrlimit: %m");
	if (rl.rlim_cur < (rlim_t)(start + num)) {
		rl.rlim_cur = (rlim_t)(start + num);
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		CHECK_OR_EXIT(setrlimit(RLIMIT_NOFILE, &rl) == 0,
			      "setrlimit (RLIMIT_NOFILE, %d): %m", start + num);
	}
	for (int i = 0; i < num; i++) {
		int fd = open("/dev/null", flags, mode);

		CHECK_OR_EXIT(fd >= 0, "open (\"/dev/null\"): %m");
		if (fd != start + i) {
			CHECK_OR_EXIT(dup2(fd, start + i) == start + i,
				      "dup2 (%d, %d): %m", fd, start + i);
			close(fd);
		}
	}
	return start;
}

/* Temporary files and directories, removed at exit by the main process. */
static char **temps;
static size_t ntemps;

void add_temp_file(const char *name)
{
	temps = xrealloc(temps, (ntemps + 1) * sizeof(*temps));
	temps[ntemps++] = xstrdup(name);
}

int create_temp_file(const char *base, char **filename)
{
	char *name = xasprintf("%s/%sXXXXXX", test_dir, base);
	int fd = mkstemp(name);

	if (fd < 0) {
		int saved = errno;

		printf("warning: create_temp_file: mkstemp (\"%s\"): %s\n",
		       name, strerror(saved));
		free(name);
		errno = saved;
		return -1;
	}
	add_temp_file(name);
	if (filename)
		*filename = name;
	else
		free(name);
	return fd;
}

char *support_create_temp_directory(const char *base)
{
	char *name = xasprintf("%s/%sXXXXXX", test_dir, base);

	CHECK_OR_EXIT(mkdtemp(name), "mkdtemp (\"%s\"): %m", name);
	add_temp_file(name);
	return name;
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_temps(void)
{
	if (getpid() != main_pid)
		return;
	while (ntemps > 0)
		nftw(temps[--ntemps], remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The x* wrappers: the call or the test exits with an error. */
pid_t xfork(void)
{
	pid_t p = fork();

	CHECK_OR_EXIT(p >= 0, "fork: %m");
	return p;
}

pid_t xwaitpid(pid_t pid, int *status, int flags)
{
	pid_t r;

	do
		r = waitpid(pid, status, flags);
	while (r < 0 && errno == EINTR);
	CHECK_OR_EXIT(r >= 0, "waitpid (%d): %m", (int)pid);
	return r;
}

void xpipe(int fds[2])
{
	CHECK_OR_EXIT(pipe(fds) == 0, "pipe: %m");
}

void xdup2(int from, int to)
{
	CHECK_OR_EXIT(dup2(from, to) >= 0, "dup2 (%d, %d): %m", from, to);
}

int xopen(const char *path, int flags, mode_t mode)
{
	int fd = open(path, flags, mode);

	CHECK_OR_EXIT(fd >= 0, "open (\"%s\", 0x%x, 0%o): %m", path, flags,
		      (unsigned)mode);
	return fd;
}

void xclose(int fd)
{
	CHECK_OR_EXIT(close(fd) == 0 || errno == EINTR, "close (%d): %m", fd);
}

void xwrite(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		CHECK_OR_EXIT(w > 0, "write (%d): %m", fd);
		p += w;
		n -= (size_t)w;
	}
}

ssize_t xread(int fd, void *buf, size_t n)
{
	ssize_t r = read(fd, buf, n);

	CHECK_OR_EXIT(r >= 0, "read (%d): %m", fd);
	return r;
}

off_t xlseek(int fd, off_t off, int whence)
{
	off_t r = lseek(fd, off, whence);

	CHECK_OR_EXIT(r >= 0, "lseek (%d): %m", fd);
	return r;
}

void xmkdir(const char *path, mode_t mode)
{
	CHECK_OR_EXIT(mkdir(path, mode) == 0, "mkdir (\"%s\"): %m", path);
}

void xchdir(const char *path)
{
	CHECK_OR_EXIT(chdir(path) == 0, "chdir (\"%s\"): %m", path);
}

void xfchdir(int fd)
{
	CHECK_OR_EXIT(fchdir(fd) == 0, "fchdir (%d): %m", fd);
}

void xsymlink(const char *target, const char *path)
{
	CHECK_OR_EXIT(symlink(target, path) == 0, "symlink (\"%s\", \"%s\"): %m",
		      target, path);
}

void xunlink(const char *path)
{
	CHECK_OR_EXIT(unlink(path) == 0, "unlink (\"%s\"): %m", path);
}

FILE *xfopen(const char *path, const char *mode)
{
	FILE *fp = fopen(path, mode);

	CHECK_OR_EXIT(fp, "fopen (\"%s\", \"%s\"): %m", path, mode);
	return fp;
}

void xfclose(FILE *fp)
{
	CHECK_OR_EXIT(fclose(fp) == 0, "fclose: %m");
}

sighandler_t xsignal(int sig, sighandler_t handler)
{
	sighandler_t old = signal(sig, handler);

	CHECK_OR_EXIT(old != SIG_ERR, "signal (%d): %m", sig);
	return old;
}

void xsigaction(int sig, const struct sigaction *a, struct sigaction *old)
{
	CHECK_OR_EXIT(sigaction(sig, a, old) == 0, "sigaction (%d): %m", sig);
}

#define CHECK_PTHREAD(call, what) \
	do { \
		int pfs_e_ = (call); \
		if (pfs_e_) { \
			errno = pfs_e_; \
			FAIL_EXIT1("%s: %m", what); \
		} \
	} while (0)

pthread_t xpthread_create(pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	pthread_t t;

	CHECK_PTHREAD(pthread_create(&t, attr, fn, arg), "pthread_create");
	return t;
}

void *xpthread_join(pthread_t t)
{
	void *ret;

	CHECK_PTHREAD(pthread_join(t, &ret), "pthread_join");
	return ret;
}

int xpthread_barrier_wait(pthread_barrier_t *b)
{
	int r = pthread_barrier_wait(b);

	if (r != 0 && r != PTHREAD_BARRIER_SERIAL_THREAD)
		CHECK_PTHREAD(r, "pthread_barrier_wait");
	return r == PTHREAD_BARRIER_SERIAL_THREAD;
}

void xpthread_barrier_init(pthread_barrier_t *b, pthread_barrierattr_t *a,
			   unsigned int count)
{
	CHECK_PTHREAD(pthread_barrier_init(b, a, count), "pthread_barrier_init");
}

void xpthread_barrier_destroy(pthread_barrier_t *b)
{
	CHECK_PTHREAD(pthread_barrier_destroy(b), "pthread_barrier_destroy");
}

static int run_test(int argc, char **argv, const struct pfs_test_config *c)
{
	main_pid = getpid();
	atexit(remove_temps);
	return c->test_function ? c->test_function() :
	       c->test_function_argv(argc, argv);
}

/* The exit status of a test that returned or exited with @status. */
static int adjust_status(int status, const struct pfs_test_config *c)
{
	if (c->expected_status) {
		if (status != c->expected_status) {
			printf("error: exit status %d, expected %d\n", status,
			       c->expected_status);
			return 1;
		}
		status = 0;
	}
	if (status == 0 && support_record_failure_is_failed())
		return 1;
	return status;
}

/*
 * main() of every test, as glibc's driver: the options it takes
 * (--direct, --verbose, --test-dir=DIR) and the test's own; then, unless
 * --direct, the test runs in a child in a process group of its own, whose
 * end (exit status, signal, failures recorded by it or its forks) this
 * process reports; with --direct it runs here.  argv[0] stays the program,
 * argv[1...] are the arguments after the options.  No timeout: the hooks
 * run each program under timeout(1).
 */
int pfs_test_main(int argc, char **argv, const struct pfs_test_config *c)
{
	static const struct option defaults[] = {
		{ "direct", no_argument, NULL, 0x100 },
		{ "verbose", no_argument, NULL, 'v' },
		{ "test-dir", required_argument, NULL, 0x101 },
	};
	struct option options[64];
	size_t n = 0;
	int opt, direct = 0, status;
	pid_t pid;

	if (c->options)
		for (; c->options[n].name && n < 60; n++)
			options[n] = c->options[n];
	memcpy(options + n, defaults, sizeof(defaults));
	memset(options + n + 3, 0, sizeof(options[0]));

	setvbuf(stdout, NULL, _IONBF, 0);
	if (getenv("TMPDIR") && *getenv("TMPDIR"))
		test_dir = getenv("TMPDIR");
	while ((opt = getopt_long(argc, argv, "+", options, NULL)) != -1) {
		if (opt == '?')
			exit(1);
		if (opt == 0x100)
			direct = 1;
		else if (opt == 0x101)
			test_dir = optarg;
		else if (opt == 'v')
			test_verbose++;
		else if (opt != 0 && c->cmdline_function)
			c->cmdline_function(opt);
	}
	argv[optind - 1] = argv[0];
	argv += optind - 1;
	argc -= optind - 1;

	support_record_failure_init();
	if (c->prepare_function)
		c->prepare_function(argc, argv);
	if (direct)
		return adjust_status(run_test(argc, argv, c), c);

	pid = xfork();
	if (pid == 0) {
		if (setpgid(0, 0) != 0)
			printf("Failed to set the process group ID: %m\n");
		exit(run_test(argc, argv, c));
	}
	xwaitpid(pid, &status, 0);
	if (WIFSIGNALED(status)) {
		if (WTERMSIG(status) == c->expected_signal)
			return adjust_status(0, c);
		printf("error: the test was killed by signal %d (%s)\n",
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 1;
	}
	if (c->expected_signal) {
		printf("error: expected signal %d, exit status %d\n",
		       c->expected_signal, WEXITSTATUS(status));
		return 1;
	}
	return adjust_status(WEXITSTATUS(status), c);
}
