/* SPDX-License-Identifier: MIT */
/*
 * Tiny TAP 13 helpers for the library tests, plus the backend check: every
 * spawn must have been served by the backend the environment expects.
 *   PIDFDSPAWN_EXPECT_BUILDER  space-separated features the running kernel
 *                              must serve through the builder (unset or
 *                              empty: every spawn must use the fallback).
 * A request needing only listed features must report the builder, any
 * other the fallback; "expects the builder, silently got the fallback"
 * is a failure.
 */
#ifndef PFS_TAP_H
#define PFS_TAP_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfdspawn.h"

static int tap_n, tap_failed;

/* How many fds this process has open (counting the one that reads them). */
__attribute__((unused)) static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

__attribute__((unused)) static void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

__attribute__((unused)) static int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

/* @n skipped cases, counted as passed: "ok N - # SKIP reason". */
__attribute__((unused)) static void skip(int n, const char *reason)
{
	while (n-- > 0)
		printf("ok %d - # SKIP %s\n", ++tap_n, reason);
	fflush(stdout);
}

__attribute__((unused)) static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

__attribute__((unused)) static int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

__attribute__((unused)) static uint32_t expected_builder_features(void)
{
	const char *v = getenv("PIDFDSPAWN_EXPECT_BUILDER");
	char buf[512], *save = NULL, *tok;
	uint32_t mask = 0;

	if (!v)
		return 0;
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, " ,", &save); tok;
	     tok = strtok_r(NULL, " ,", &save))
		mask |= pidfdspawn_feature_from_name(tok);
	return mask;
}

/* The backend a request with these needs must be served by. */
__attribute__((unused)) static enum pidfdspawn_backend expected_backend(uint32_t needs)
{
	uint32_t have = expected_builder_features();
	const char *mode = getenv("PIDFDSPAWN_BACKEND");

	if (mode && strcmp(mode, "fallback") == 0)
		return PIDFDSPAWN_BACKEND_FALLBACK;
	if ((have & PIDFDSPAWN_FEAT_BUILDER) && (needs & ~have) == 0)
		return PIDFDSPAWN_BACKEND_BUILDER;
	return PIDFDSPAWN_BACKEND_FALLBACK;
}

/* Assert that the last spawn in this thread used the expected backend. */
__attribute__((unused)) static int ok_backend(const posix_spawn_file_actions_t *fa,
		      const posix_spawnattr_t *attr, int use_path,
		      const char *what)
{
	uint32_t needs = pidfdspawn_request_features(fa, attr, use_path);
	enum pidfdspawn_backend want = expected_backend(needs);
	enum pidfdspawn_backend got = pidfdspawn_last_backend();

	return ok(got == want, "%s: backend %s (expected %s, needs 0x%x)",
		  what, pidfdspawn_backend_name(got),
		  pidfdspawn_backend_name(want), needs);
}

/* Directory of this test binary: the helper lives next to it. */
__attribute__((unused)) static const char *helper_path(void)
{
	static char path[PATH_MAX + 16];
	char self[PATH_MAX];
	ssize_t n;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		abort();
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(path, sizeof(path), "%s/helper", self);
	return path;
}

/*
 * A copy of the helper that any user can run: a fresh directory under
 * /tmp, both mode 0755.  A test that changes identity execs this one, as
 * the build tree may sit where that identity cannot go (a clone under
 * /root, mode 0700).  0, or an error number with @what saying which step.
 */
__attribute__((unused))
static int public_helper(char *dir, size_t dsize, char *path, size_t psize,
			 const char **what)
{
	char buf[65536];
	int in, out = -1, err = 0;
	ssize_t n;

	snprintf(dir, dsize, "/tmp/pfs-helper-XXXXXX");
	*what = "mkdtemp under /tmp";
	if (!mkdtemp(dir))
		return errno;
	snprintf(path, psize, "%s/helper", dir);
	*what = "chmod 0755 of the directory";
	if (chmod(dir, 0755) < 0)
		return errno;
	*what = "copying the helper";
	in = open(helper_path(), O_RDONLY | O_CLOEXEC);
	if (in >= 0)
		out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 || write(out, buf, (size_t)n) != n) {
			err = errno ? errno : EIO;
			break;
		}
	}
	if (in < 0 || out < 0)
		err = errno;
	if (!err && fchmod(out, 0755) < 0)	/* whatever the umask */
		err = errno;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && !err)
		err = errno;
	return err;
}

/* Wait for @pid; the exit status, 128+signal, or -1. */
__attribute__((unused)) static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/* No child left unreaped (an exec failure must reap its child). */
__attribute__((unused)) static int no_zombies(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

static int capture_pipe[2] = { -1, -1 };

/*
 * Start a file-action list whose first action puts a fresh pipe on the
 * child's stdout; spawn_capture() reads it.  Single-threaded use only.
 */
__attribute__((unused)) static void capture_init(posix_spawn_file_actions_t *fa)
{
	/* Lists are short-lived test data: a test may leak them. */
	if (pipe2(capture_pipe, O_CLOEXEC) < 0)
		abort();
	posix_spawn_file_actions_init(fa);
	posix_spawn_file_actions_adddup2(fa, capture_pipe[1], 1);
}

/*
 * Spawn with @fa (from capture_init(), or NULL for a plain capture) and
 * collect the child's stdout into @out.  Returns posix_spawn's error;
 * *status gets the exit status.
 */
__attribute__((unused)) static int spawn_capture(const char *path, int use_path,
			 posix_spawn_file_actions_t *fa,
			 const posix_spawnattr_t *attr, char *const argv[],
			 char *const envp[], char *out, size_t size,
			 int *status)
{
	static posix_spawn_file_actions_t local;
	size_t used = 0;
	ssize_t n;
	pid_t pid;
	int err;

	if (!fa) {
		capture_init(&local);
		fa = &local;
	}
	err = (use_path ? posix_spawnp : posix_spawn)(&pid, path, fa, attr,
						      argv, envp);
	close(capture_pipe[1]);
	while (err == 0 && used + 1 < size &&
	       (n = read(capture_pipe[0], out + used, size - 1 - used)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		used += (size_t)n;
	}
	out[used] = '\0';
	close(capture_pipe[0]);
	if (!err)
		*status = wait_status(pid);
	return err;
}

/* Value of "key=" in the helper's report, or "" when absent. */
__attribute__((unused)) static const char *report_get(const char *report, const char *key,
			      char *buf, size_t size)
{
	size_t klen = strlen(key);
	const char *p = report;

	buf[0] = '\0';
	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, "\n");

			if (n >= size)
				n = size - 1;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			return buf;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return buf;
}

/* Whether the helper's report lists @fd among its open descriptors. */
__attribute__((unused)) static int has_fd(const char *report, int fd)
{
	char buf[4096], needle[16], *tok, *save = NULL;

	report_get(report, "fds", buf, sizeof(buf));
	snprintf(needle, sizeof(needle), "%d", fd);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, needle) == 0)
			return 1;
	return 0;
}

extern char **environ;

#endif
