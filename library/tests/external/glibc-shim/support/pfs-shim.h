/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for the parts of glibc's test support framework (support/)
 * that glibc's posix_spawn tests use, written for libpidfdspawn's guest
 * tests: the tests are compiled outside glibc's build, against the
 * installed libc, and run with the library preloaded.  Only the names and
 * behaviour those tests rely on: checks that record a failure and go on
 * (TEST_COMPARE, TEST_VERIFY) or exit (TEST_VERIFY_EXIT, FAIL_EXIT1),
 * exiting x* wrappers, temporary files removed at exit, and a main() that
 * runs the test function directly (there is no supervising parent: the
 * hook runs each program under timeout(1)).  Implementation: shim.c.
 */
#ifndef PFS_SHIM_H
#define PFS_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_UNSUPPORTED 77

/* Failures (shared with forked children, as glibc's framework does). */
void support_record_failure(void);
int support_record_failure_is_failed(void);
void support_record_failure_init(void);

__attribute__((noreturn, format(printf, 4, 5)))
void support_exit_failure_impl(int status, const char *file, int line,
			       const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void support_test_failure_impl(const char *file, int line,
			       const char *fmt, ...);
void support_compare_failed(const char *file, int line, const char *lexpr,
			    long long lval, int lneg, const char *rexpr,
			    long long rval, int rneg);
void support_compare_blob_failed(const char *file, int line,
				 const char *lexpr, const void *l, size_t ll,
				 const char *rexpr, const void *r, size_t rl);

#define FAIL_EXIT(status, ...) \
	support_exit_failure_impl(status, __FILE__, __LINE__, __VA_ARGS__)
#define FAIL_EXIT1(...) FAIL_EXIT(1, __VA_ARGS__)
#define FAIL_UNSUPPORTED(...) FAIL_EXIT(EXIT_UNSUPPORTED, __VA_ARGS__)
#define FAIL(...) support_test_failure_impl(__FILE__, __LINE__, __VA_ARGS__)
#define FAIL_RET(...) \
	do { FAIL(__VA_ARGS__); return 1; } while (0)
#define TEST_VERIFY(expr) \
	do { if (!(expr)) FAIL("not true: %s", #expr); } while (0)
#define TEST_VERIFY_EXIT(expr) \
	do { if (!(expr)) FAIL_EXIT1("not true: %s", #expr); } while (0)
/* Integers only, compared by value whatever their signedness. */
#define TEST_COMPARE(left, right) \
	do { \
		__typeof__(left) pfs_l_ = (left); \
		__typeof__(right) pfs_r_ = (right); \
		int pfs_ln_ = pfs_l_ < 0, pfs_rn_ = pfs_r_ < 0; \
		if (pfs_ln_ != pfs_rn_ || \
		    (long long)pfs_l_ != (long long)pfs_r_) \
			support_compare_failed(__FILE__, __LINE__, #left, \
					       (long long)pfs_l_, pfs_ln_, \
					       #right, (long long)pfs_r_, \
					       pfs_rn_); \
	} while (0)
#define TEST_COMPARE_BLOB(l, ll, r, rl) \
	support_compare_blob_failed(__FILE__, __LINE__, #l, (l), (ll), #r, \
				    (r), (rl))
#define TEST_COMPARE_STRING(l, r) \
	do { \
		const char *pfs_ls_ = (l), *pfs_rs_ = (r); \
		if ((pfs_ls_ == NULL) != (pfs_rs_ == NULL) || \
		    (pfs_ls_ && strcmp(pfs_ls_, pfs_rs_) != 0)) \
			FAIL("strings differ: %s: \"%s\", %s: \"%s\"", #l, \
			     pfs_ls_ ? pfs_ls_ : "(null)", #r, \
			     pfs_rs_ ? pfs_rs_ : "(null)"); \
	} while (0)

/* support.h */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t s);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
__attribute__((format(printf, 1, 2))) char *xasprintf(const char *fmt, ...);
char *xreadlink(const char *path);
int support_open_dev_null_range(int num, int flags, mode_t mode);
extern const char *test_dir;
extern int test_verbose;

/* temp_file.h */
int create_temp_file(const char *base, char **filename);
void add_temp_file(const char *name);
char *support_create_temp_directory(const char *base);

/* xunistd.h, xstdio.h, xsignal.h, xthread.h */
pid_t xfork(void);
pid_t xwaitpid(pid_t pid, int *status, int flags);
void xpipe(int fds[2]);
void xdup2(int from, int to);
int xopen(const char *path, int flags, mode_t mode);
void xclose(int fd);
void xwrite(int fd, const void *buf, size_t n);
ssize_t xread(int fd, void *buf, size_t n);
off_t xlseek(int fd, off_t off, int whence);
void xmkdir(const char *path, mode_t mode);
void xchdir(const char *path);
void xfchdir(int fd);
void xsymlink(const char *target, const char *path);
void xunlink(const char *path);
FILE *xfopen(const char *path, const char *mode);
void xfclose(FILE *fp);
sighandler_t xsignal(int sig, sighandler_t handler);
void xsigaction(int sig, const struct sigaction *a, struct sigaction *old);
pthread_t xpthread_create(pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg);
void *xpthread_join(pthread_t t);
int xpthread_barrier_wait(pthread_barrier_t *b);
void xpthread_barrier_init(pthread_barrier_t *b, pthread_barrierattr_t *a,
			   unsigned int count);
void xpthread_barrier_destroy(pthread_barrier_t *b);

/* array_length.h, intprops.h, arch-fd_to_filename.h */
#define array_length(a) (sizeof(a) / sizeof((a)[0]))
#define INT_STRLEN_BOUND(t) (sizeof(t) * 146 / 64 + 2)
#define INT_BUFSIZE_BOUND(t) (INT_STRLEN_BOUND(t) + 1)
#define FD_TO_FILENAME_PREFIX "/proc/self/fd/"

/* The test driver's entry point (support/test-driver.c includes it). */
struct option;
struct pfs_test_config {
	int (*test_function)(void);
	int (*test_function_argv)(int, char **);
	void (*prepare_function)(int, char **);
	void (*cmdline_function)(int);
	const struct option *options;	/* the test's own, or NULL */
	int expected_status;
	int expected_signal;
};
int pfs_test_main(int argc, char **argv, const struct pfs_test_config *c);

#endif
