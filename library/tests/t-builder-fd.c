/* SPDX-License-Identifier: MIT */
/*
 * The builder's own descriptor is never the caller's.  pidfd_open() gives
 * the builder the lowest free number, and the builder's child inherits
 * the caller's table with the builder in it; an action that reads a
 * number the caller left closed (a DUP2 from it, FCHDIR, TCSETPGRP) must
 * fail with EBADF, as in glibc's child, and not find the builder there.
 * Each request is compared with glibc's own posix_spawn (dlsym), in auto
 * mode (the builder where the kernel has it: the backend is checked) and
 * with the fallback forced.  An action that put something at that number
 * first still reads it.  (The fuzzer's seed 1796422736, index 176.)
 */
#include <dlfcn.h>
#include <sys/syscall.h>

#include "tap.h"

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

static spawn_fn *glibc_spawn;

/* The lowest descriptor number this process has free. */
static int lowest_free(void)
{
	int fd = fcntl(0, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		abort();
	close(fd);
	return fd;
}

/* Spawn /bin/sh -c 'exit 7' with @fa: the error, or 1000 + the status. */
static int outcome(spawn_fn *fn, const posix_spawn_file_actions_t *fa)
{
	char *argv[] = { "sh", "-c", "exit 7", NULL };
	pid_t pid;
	int err;

	err = fn(&pid, "/bin/sh", fa, NULL, argv, environ);
	return err ? err : 1000 + wait_status(pid);
}

static void same(const char *what, const posix_spawn_file_actions_t *fa,
		 int want)
{
	int g = outcome(glibc_spawn, fa), l;
	enum pidfdspawn_backend got;

	l = outcome(posix_spawn, fa);
	got = pidfdspawn_last_backend();
	ok(g == want && l == g && no_zombies(),
	   "%s: library %d, glibc %d (expected %d), backend %s", what, l, g,
	   want, pidfdspawn_backend_name(got));
	ok_backend(fa, NULL, 0, what);
}

/* Exit status of the child behind @pidfd, or -1. */
static int pidfd_status(int pidfd)
{
	siginfo_t si;

	if (syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) < 0)
		return -1;
	return si.si_code == CLD_EXITED ? si.si_status : -1;
}

static void cases(void)
{
	posix_spawn_file_actions_t fa;
	int free_fd = lowest_free(), pidfd, err;
	char *argv[] = { "sh", "-c", "exit 7", NULL };

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, free_fd, 33);
	same("dup2 from the lowest free fd: EBADF", &fa, EBADF);
	posix_spawn_file_actions_destroy(&fa);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, free_fd, free_fd);
	same("dup2 of the lowest free fd onto itself: EBADF", &fa, EBADF);
	posix_spawn_file_actions_destroy(&fa);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addfchdir_np(&fa, free_fd);
	same("fchdir to the lowest free fd: EBADF", &fa, EBADF);
	posix_spawn_file_actions_destroy(&fa);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addtcsetpgrp_np(&fa, free_fd);
	same("tcsetpgrp on the lowest free fd: EBADF", &fa, EBADF);
	posix_spawn_file_actions_destroy(&fa);

	/* The builder is moved above 33 and 40; 40 is still read as closed. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, 40);
	posix_spawn_file_actions_adddup2(&fa, 0, 33);
	posix_spawn_file_actions_adddup2(&fa, free_fd, 34);
	same("close, dup2, then dup2 from the lowest free fd: EBADF", &fa,
	     EBADF);
	posix_spawn_file_actions_destroy(&fa);

	/* Placed by an earlier action: the child reads what was placed. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, free_fd, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, free_fd, 33);
	posix_spawn_file_actions_addfchdir_np(&fa, 0);	/* not a directory */
	same("open at the lowest free fd, dup2 from it, then fchdir(0): ENOTDIR",
	     &fa, ENOTDIR);
	posix_spawn_file_actions_destroy(&fa);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 1, free_fd);
	posix_spawn_file_actions_adddup2(&fa, free_fd, 33);
	same("dup2 onto the lowest free fd, then from it: runs", &fa, 1007);
	posix_spawn_file_actions_destroy(&fa);

	/* pidfd_spawn: the caller's pidfd works after a move. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, free_fd, 33);
	err = pidfd_spawn(&pidfd, "/bin/sh", &fa, NULL, argv, environ);
	ok(err == EBADF && no_zombies(),
	   "pidfd_spawn, dup2 from the lowest free fd: %d (expected EBADF)",
	   err);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 1, free_fd);
	posix_spawn_file_actions_adddup2(&fa, free_fd, 33);
	err = pidfd_spawn(&pidfd, "/bin/sh", &fa, NULL, argv, environ);
	ok(err == 0 && pidfd_status(pidfd) == 7,
	   "pidfd_spawn, dup2 onto the lowest free fd, then from it: %d, "
	   "the child's status through the pidfd", err);
	if (!err)
		close(pidfd);
	posix_spawn_file_actions_destroy(&fa);
	ok(lowest_free() == free_fd, "no descriptor left behind");
}

int main(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	glibc_spawn = h ? (spawn_fn *)dlsym(h, "posix_spawn") : NULL;
	if (!glibc_spawn || glibc_spawn == posix_spawn) {
		printf("Bail out! no glibc posix_spawn\n");
		return 1;
	}
	tap_plan(34);
	cases();
	setenv("PIDFDSPAWN_BACKEND", "fallback", 1);
	cases();
	return tap_done();
}
