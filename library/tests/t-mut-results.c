/* SPDX-License-Identifier: MIT */
/*
 * What a spawn leaves in the caller: no descriptor (posix_spawn makes no
 * pidfd it keeps; pidfd_spawn's failed child takes its pidfd with it, a
 * successful one hands over exactly one), no zombie, and errno untouched
 * (posix_spawn(3): "the error is returned, not stored in errno"; the
 * fallback's child shares the caller's memory, errno included).
 * Run with the environment's backend and with the fallback forced.
 */
#include <dirent.h>
#include <sys/syscall.h>

#include "tap.h"

#define ROUNDS 8

static void cases(const char *mode)
{
	char *argv[] = { "helper", "0", NULL };
	posix_spawn_file_actions_t fa;
	int before, errs = 0, devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int pidfd, saved;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, devnull, 1);

	before = count_fds();
	for (int i = 0; i < ROUNDS; i++) {
		if (posix_spawn(&pid, helper_path(), &fa, NULL, argv, environ) ||
		    wait_status(pid) != 0)
			errs++;
		if (posix_spawnp(&pid, "true", &fa, NULL, argv, environ) ||
		    wait_status(pid) != 0)
			errs++;
	}
	ok(!errs && count_fds() == before,
	   "%s: %d successful posix_spawn(p)s leave no fd behind (%d more, %d failed)",
	   mode, 2 * ROUNDS, count_fds() - before, errs);

	before = count_fds();
	errs = 0;
	for (int i = 0; i < ROUNDS; i++) {
		if (posix_spawn(&pid, "/nonexistent/prog", &fa, NULL, argv,
				environ) != ENOENT)
			errs++;
		pidfd = -1;
		if (pidfd_spawn(&pidfd, "/nonexistent/prog", &fa, NULL, argv,
				environ) != ENOENT || pidfd != -1)
			errs++;
	}
	ok(!errs && count_fds() == before && no_zombies(),
	   "%s: %d failed posix_spawn/pidfd_spawn calls leave no fd or zombie (%d more, %d wrong)",
	   mode, 2 * ROUNDS, count_fds() - before, errs);

	before = count_fds();
	pidfd = -1;
	errs = pidfd_spawn(&pidfd, helper_path(), &fa, NULL, argv, environ);
	ok(!errs && count_fds() == before + 1,
	   "%s: pidfd_spawn adds exactly its pidfd (%d more, err %d)", mode,
	   count_fds() - before, errs);
	if (pidfd >= 0) {
		siginfo_t si;

		syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL);
		close(pidfd);
	}

	errno = 0;
	errs = posix_spawn(&pid, "/nonexistent/prog", &fa, NULL, argv, environ);
	saved = errno;
	ok(errs == ENOENT && saved == 0,
	   "%s: a failed posix_spawn returns ENOENT and leaves errno 0 (%d, errno %d)",
	   mode, errs, saved);
	errno = EDOM;
	errs = posix_spawnp(&pid, "pfs-no-such-program", &fa, NULL, argv, environ);
	saved = errno;
	ok(errs == ENOENT && saved == EDOM,
	   "%s: a failed posix_spawnp leaves errno alone (%d, errno %d)", mode,
	   errs, saved);
	errno = EDOM;
	errs = posix_spawn(&pid, helper_path(), &fa, NULL, argv, environ);
	saved = errno;
	ok(errs == 0 && saved == EDOM && wait_status(pid) == 0,
	   "%s: a successful posix_spawn leaves errno alone (%d, errno %d)", mode,
	   errs, saved);

	posix_spawn_file_actions_destroy(&fa);
	close(devnull);
}

int main(void)
{
	tap_plan(12);
	cases("default backend");
	/* Out of the guest hook's trace: this fallback is wanted. */
	unsetenv("PIDFDSPAWN_TRACE_FD");
	setenv("PIDFDSPAWN_BACKEND", "fallback", 1);
	cases("fallback forced");
	return tap_done();
}
