/* SPDX-License-Identifier: MIT */
/*
 * POSIX_SPAWN_RESETIDS with ids that do not fit in 16 bits: the child's
 * effective ids must be exactly the caller's real ones.  On i386 (make
 * m32) the plain setresuid/setresgid system calls take 16-bit ids and
 * would give uid 100000 & 0xffff = 34464; glibc uses setresuid32.  In
 * auto mode and with the fallback forced; needs root (CAP_SETUID).
 */
#include "tap.h"

#define RUID 100000
#define RGID 100002

static char *helper_argv[] = { "helper", NULL };

/* A copy of the helper that uid RUID can reach (the build tree may not be). */
static char dir[64], copy[96];

/* In a child process: real ids RUID/RGID, effective root, then spawn. */
static void one(const char *mode)
{
	pid_t tester;
	int status;

	fflush(stdout);
	tester = fork();
	if (tester == 0) {
		posix_spawn_file_actions_t fa;
		posix_spawnattr_t attr;
		char out[8192], buf[32];
		int st = -1, err;

		if (mode)
			setenv("PIDFDSPAWN_BACKEND", mode, 1);
		if (setresgid(RGID, 0, 0) < 0 || setresuid(RUID, 0, 0) < 0)
			_exit(90);
		posix_spawnattr_init(&attr);
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_RESETIDS);
		capture_init(&fa);
		err = spawn_capture(copy, 0, &fa, &attr, helper_argv,
				    environ, out, sizeof(out), &st);
		printf("# %s: err=%d status=%d euid=%s", mode ? mode : "auto",
		       err, st, report_get(out, "euid", buf, sizeof(buf)));
		printf(" egid=%s backend=%s\n",
		       report_get(out, "egid", buf, sizeof(buf)),
		       pidfdspawn_backend_name(pidfdspawn_last_backend()));
		fflush(stdout);
		if (err || st != 0)
			_exit(91);
		if (atoi(report_get(out, "euid", buf, sizeof(buf))) != RUID ||
		    atoi(report_get(out, "uid", buf, sizeof(buf))) != RUID)
			_exit(92);
		if (atoi(report_get(out, "egid", buf, sizeof(buf))) != RGID)
			_exit(93);
		_exit(0);
	}
	status = wait_status(tester);
	ok(status == 0,
	   "RESETIDS (%s, %zu-bit): the child's euid is %d and egid %d exactly "
	   "(tester exit %d)", mode ? mode : "auto", sizeof(void *) * 8, RUID,
	   RGID, status);
}

int main(void)
{
	const char *what;

	tap_plan(2);
	if (geteuid() != 0) {
		skip(2, "needs root to set ids above 65535");
		return 0;
	}
	if (public_helper(dir, sizeof(dir), copy, sizeof(copy), &what)) {
		diag("a copy of the helper uid %d can run: %s: %s", RUID, what,
		     strerror(errno));
		ok(0, "helper copy");
		ok(0, "helper copy");
		return tap_done();
	}
	one(NULL);
	one("fallback");
	unlink(copy);
	rmdir(dir);
	return tap_done();
}
