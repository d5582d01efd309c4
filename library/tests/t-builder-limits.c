/* SPDX-License-Identifier: MIT */
/*
 * The builder's own limits are not glibc's: a request with more file
 * actions than the kernel takes (E2BIG) must succeed through the
 * fallback, and so must a spawn at RLIMIT_NOFILE where the builder's fd
 * cannot be allocated (EMFILE), unless the kernel runs builders with no
 * fd (PIDFDSPAWN_FEAT_NOFD): then the builder serves it, as glibc's
 * posix_spawn needs no fd either.  On the host (no builder) this proves
 * the fallback serves them; in the guest, that the builder's refusals are
 * turned into a fallback spawn rather than an error.
 */
#include <sys/resource.h>

#include "tap.h"

static int builder_expected(void)
{
	const char *mode = getenv("PIDFDSPAWN_BACKEND");

	return (expected_builder_features() & PIDFDSPAWN_FEAT_BUILDER) &&
	       !(mode && strcmp(mode, "fallback") == 0);
}

/* posix_spawn of /bin/sh -c 'exit 7' with @n close actions. */
static void many_actions(int n, int over_limit)
{
	static char *argv[] = { "sh", "-c", "exit 7", NULL };
	posix_spawn_file_actions_t fa;
	enum pidfdspawn_backend want, got;
	pid_t pid;
	int err, st = -1;

	posix_spawn_file_actions_init(&fa);
	/* Closing an unopened fd below the limit is not an error. */
	for (int i = 0; i < n; i++)
		posix_spawn_file_actions_addclose(&fa, 200 + i % 100);
	err = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
	got = pidfdspawn_last_backend();
	if (!err)
		st = wait_status(pid);
	want = builder_expected() && !over_limit ? PIDFDSPAWN_BACKEND_BUILDER :
		PIDFDSPAWN_BACKEND_FALLBACK;
	ok(err == 0 && st == 7 && got == want,
	   "%d close actions: spawned (%s), exit %d, backend %s (expected %s)",
	   n, strerror(err), st, pidfdspawn_backend_name(got),
	   pidfdspawn_backend_name(want));
	posix_spawn_file_actions_destroy(&fa);
}

/*
 * In a child process (the limit stays there): learn the kernel's builder
 * first, then take every descriptor up to RLIMIT_NOFILE and spawn.
 */
static void at_fd_limit(int with_actions)
{
	static char *argv[] = { "sh", "-c", "exit 9", NULL };
	/* A builder with no fd needs none; one with an fd cannot have it. */
	enum pidfdspawn_backend want = builder_expected() &&
		(expected_builder_features() & PIDFDSPAWN_FEAT_NOFD) ?
		PIDFDSPAWN_BACKEND_BUILDER : PIDFDSPAWN_BACKEND_FALLBACK;
	pid_t tester = fork();

	if (tester == 0) {
		struct rlimit rl = { 64, 64 };
		posix_spawn_file_actions_t fa;
		pid_t pid;
		int err, st = -1, fds = 0;

		(void)pidfdspawn_probe();
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(90);
		/* close-on-exec: the program itself needs fds to start */
		while (fcntl(0, F_DUPFD_CLOEXEC, 0) >= 0)
			fds++;
		if (errno != EMFILE)
			_exit(91);
		posix_spawn_file_actions_init(&fa);
		if (with_actions) {
			posix_spawn_file_actions_adddup2(&fa, 2, 1);
			posix_spawn_file_actions_addclose(&fa, 63);
		}
		err = posix_spawn(&pid, "/bin/sh", with_actions ? &fa : NULL,
				  NULL, argv, environ);
		if (err) {
			printf("# at the limit: posix_spawn: %s\n", strerror(err));
			fflush(stdout);
			_exit(92);
		}
		st = wait_status(pid);
		if (st != 9)
			_exit(93);
		_exit(pidfdspawn_last_backend() == want ? 0 : 94);
	}
	ok(wait_status(tester) == 0,
	   "at RLIMIT_NOFILE (every fd taken)%s: posix_spawn succeeds through "
	   "the %s", with_actions ? " with dup2+close" : "",
	   pidfdspawn_backend_name(want));
}

int main(void)
{
	/*
	 * These spawns go to the fallback on purpose: keep them out of the
	 * guest's trace, which counts fallback spawns the builder could serve.
	 */
	unsetenv("PIDFDSPAWN_TRACE_FD");
	tap_plan(5);
	many_actions(1000, 0);
	many_actions(1171, 1);
	many_actions(5000, 1);
	at_fd_limit(0);
	at_fd_limit(1);
	return tap_done();
}
