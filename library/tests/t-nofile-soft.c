/* SPDX-License-Identifier: MIT */
/*
 * Every descriptor below a soft RLIMIT_NOFILE taken, the hard limit above
 * it (glibc's tst-spawn3): glibc's posix_spawn needs no descriptor of its
 * own and succeeds, so the builder must serve it too, the probe included
 * (the first spawn of a process may be the one at the limit).  The
 * library lends itself the one descriptor the builder needs by raising the
 * soft limit by one for pidfd_open(); the caller and the child keep the
 * caller's limit.  (At the hard limit the fallback serves the request:
 * t-builder-limits.)
 */
#include <sys/resource.h>

#include "tap.h"

#define LIMIT 24

/*
 * In a child process: (probe first, or not) take every fd below a soft
 * limit of LIMIT, then spawn sh -c 'ulimit -n' with its stdout opened on a
 * file, as tst-spawn3 does.  Exit status: 0 when all held, else which step
 * failed.
 */
static int at_soft_limit(int probe_first, const char *file)
{
	static char *argv[] = { "sh", "-c", "ulimit -n", NULL };
	uint32_t needs;
	pid_t tester = fork();

	if (tester == 0) {
		struct rlimit rl;
		posix_spawn_file_actions_t fa;
		enum pidfdspawn_backend want;
		char buf[64] = "";
		pid_t pid;
		int err, fd;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, file,
						 O_WRONLY | O_CREAT | O_TRUNC, 0600);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
		/* computed before the limit: it may probe */
		needs = probe_first ? pidfdspawn_request_features(&fa, NULL, 0) : 0;
		if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max <= LIMIT)
			_exit(90);
		rl.rlim_cur = LIMIT;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(90);
		/* close-on-exec: the program itself needs fds to start */
		while (fcntl(0, F_DUPFD_CLOEXEC, 0) >= 0)
			;
		if (errno != EMFILE)
			_exit(91);
		err = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
		if (err) {
			printf("# at the soft limit: posix_spawn: %s\n", strerror(err));
			fflush(stdout);
			_exit(92);
		}
		if (wait_status(pid) != 0)
			_exit(93);
		if (!probe_first)
			needs = pidfdspawn_request_features(&fa, NULL, 0);
		want = expected_backend(needs);
		if (pidfdspawn_last_backend() != want) {
			printf("# at the soft limit: backend %s, expected %s\n",
			       pidfdspawn_backend_name(pidfdspawn_last_backend()),
			       pidfdspawn_backend_name(want));
			fflush(stdout);
			_exit(94);
		}
		if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur != LIMIT)
			_exit(95);
		close(3);	/* one fd to read the child's answer */
		fd = open(file, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
			_exit(96);
		if (strcmp(buf, "24\n") != 0) {
			printf("# the child's limit: %s\n", buf);
			fflush(stdout);
			_exit(97);
		}
		_exit(0);
	}
	return wait_status(tester);
}

int main(void)
{
	char file[] = "/tmp/t-nofile-soft.XXXXXX";
	int fd = mkstemp(file), st;

	if (fd < 0)
		abort();
	close(fd);
	tap_plan(2);
	st = at_soft_limit(0, file);
	ok(st == 0, "first spawn of a process at a soft RLIMIT_NOFILE (every fd taken, the probe not yet run): served by the expected backend, the caller and the child keep the limit (status %d)", st);
	st = at_soft_limit(1, file);
	ok(st == 0, "at a soft RLIMIT_NOFILE after the probe: served by the expected backend, the caller and the child keep the limit (status %d)", st);
	unlink(file);
	return tap_done();
}
