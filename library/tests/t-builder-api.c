/* SPDX-License-Identifier: MIT */
/*
 * The builder API and syscall wrappers.  Where the kernel has no builder
 * (the probe says so and the environment expects none) the calls must fail
 * cleanly with the kernel's error; where it has one they must spawn.
 */
#include <sys/syscall.h>

#include "tap.h"

int main(void)
{
	int have = (expected_builder_features() & PIDFDSPAWN_FEAT_BUILDER) != 0;
	char *argv[] = { "helper", "5", NULL };
	struct pidfdspawn_builder *b = pidfdspawn_builder_new();
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int fd, pidfd = -1, ret;
	siginfo_t si = { 0 };
	pid_t pid = 0;

	tap_plan(8);
	fd = pidfdspawn_open_empty(0);
	if (!have) {
		ok(fd < 0 && errno == EINVAL,
		   "without the builder pidfd_open(0, PIDFD_EMPTY) is EINVAL");
		ok(pidfdspawn_config(-1, 0, "path", "/", 0) < 0 && errno == ENOSYS,
		   "without the builder pidfd_config is ENOSYS");
	} else {
		ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC),
		   "pidfd_open(0, PIDFD_EMPTY) gives a close-on-exec builder");
		ok(pidfdspawn_config(fd, 0, "no-such-key", "x", 0) < 0 &&
		   errno == EOPNOTSUPP, "an unknown pidfd_config key is EOPNOTSUPP");
		close(fd);
	}

	ok(b && pidfdspawn_builder_set_path(b, helper_path()) == 0 &&
	   pidfdspawn_builder_set_argv(b, argv) == 0 &&
	   pidfdspawn_builder_set_envp(b, environ) == 0 &&
	   pidfdspawn_builder_add_dup2(b, devnull, 1) == 0 &&
	   pidfdspawn_builder_add_close_range(b, 3, ~0u, 0) == 0,
	   "the builder takes a path, argv, envp and actions");
	ok(pidfdspawn_builder_add_close_range(b, 5, 4, 0) < 0 && errno == EINVAL &&
	   pidfdspawn_builder_add_dup2(b, -1, 1) < 0 && errno == EBADF,
	   "bad actions are rejected when added");

	ret = pidfdspawn_builder_run(b, &pid, &pidfd);
	if (have) {
		ok(ret == 0 && pid > 0 && pidfd >= 0, "the builder runs the child");
		ok(syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) == 0 &&
		   si.si_pid == pid && si.si_status == 5,
		   "the builder fd is the child's pidfd (status 5)");
		close(pidfd);
	} else {
		ok(ret < 0 && errno == EINVAL, "without the builder the run is EINVAL");
		ok(pid == 0 && pidfd == -1, "and nothing was returned");
	}
	pidfdspawn_builder_free(b);

	b = pidfdspawn_builder_new();
	pidfdspawn_builder_set_path(b, "/nonexistent");
	pidfdspawn_builder_set_argv(b, argv);
	ret = pidfdspawn_builder_run(b, &pid, NULL);
	ok(ret < 0 && errno == (have ? ENOENT : EINVAL),
	   "a missing program fails with %s", have ? "ENOENT" : "EINVAL");
	ok(no_zombies(), "no child left unreaped");
	pidfdspawn_builder_free(b);
	return tap_done();
}
