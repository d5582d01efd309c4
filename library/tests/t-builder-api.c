/* SPDX-License-Identifier: MIT */
/*
 * The builder API and syscall wrappers.  Where the kernel has no builder
 * (the probe says so and the environment expects none) the wrappers must
 * fail cleanly with the kernel's error and the builder API with ENOSYS;
 * where it has one they must spawn.
 */
#include <sys/syscall.h>

#include "tap.h"

/*
 * The discovery interface, pidfd_config(-1, PIDFD_CONFIG_QUERY, ...):
 * kernels with any feature beyond the RFC's answer it; the RFC kernel
 * does not know the command (EOPNOTSUPP); without builders ENOSYS.
 */
static uint32_t rfc_features = PIDFDSPAWN_FEAT_BUILDER | PIDFDSPAWN_FEAT_DUP2 |
			      PIDFDSPAWN_FEAT_CLOSE_RANGE | PIDFDSPAWN_FEAT_FCHDIR;

/* Cases test_query() reports. */
static int query_cases(uint32_t expect)
{
	return (expect & ~rfc_features) ? 4 : 1;
}

static void test_query(uint32_t expect)
{
	static const struct { uint32_t feature; int type; } types[] = {
		{ PIDFDSPAWN_FEAT_DUP2, PIDFDSPAWN_ACTION_DUP2 },
		{ PIDFDSPAWN_FEAT_CLOSE_RANGE, PIDFDSPAWN_ACTION_CLOSE_RANGE },
		{ PIDFDSPAWN_FEAT_FCHDIR, PIDFDSPAWN_ACTION_FCHDIR },
		{ PIDFDSPAWN_FEAT_OPEN, PIDFDSPAWN_ACTION_OPEN },
		{ PIDFDSPAWN_FEAT_CLOSE, PIDFDSPAWN_ACTION_CLOSE },
		{ PIDFDSPAWN_FEAT_CHDIR, PIDFDSPAWN_ACTION_CHDIR },
		{ PIDFDSPAWN_FEAT_TCSETPGRP, PIDFDSPAWN_ACTION_TCSETPGRP },
	};
	struct pidfdspawn_features f;
	char big[4097];
	int ret, err, agree = 1;

	memset(&f, 0xff, sizeof(f));
	ret = pidfdspawn_config(-1, PIDFDSPAWN_CONFIG_QUERY, NULL, &f, sizeof(f));
	err = ret < 0 ? errno : 0;
	if (!(expect & PIDFDSPAWN_FEAT_BUILDER)) {
		ok(ret < 0 && err == ENOSYS,
		   "without the builder QUERY is ENOSYS (%s)", strerror(err));
		return;
	}
	if (!(expect & ~rfc_features)) {
		ok(ret < 0 && err == EOPNOTSUPP,
		   "the RFC's builder does not know QUERY: EOPNOTSUPP (%s)",
		   strerror(err));
		return;
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		agree &= !!(f.actions & (1ull << types[i].type)) ==
			 !!(expect & types[i].feature);
	agree &= !!(f.run_flags & PIDFDSPAWN_RUN_CLOEXEC_DEFAULT) ==
		 !!(expect & PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT);
	ok(ret == 0 && agree && f.action_size >= PIDFDSPAWN_ACTION_SIZE_VER1 &&
	   f.run_size >= PIDFDSPAWN_RUN_SIZE_VER0 &&
	   (f.config_cmds & (1u << PIDFDSPAWN_CONFIG_QUERY)),
	   "QUERY fills the features, as expected (%d %s: actions 0x%llx run_flags "
	   "0x%llx cmds 0x%llx sizes %u/%u)", ret, strerror(err),
	   (unsigned long long)f.actions,
	   (unsigned long long)f.run_flags, (unsigned long long)f.config_cmds,
	   f.action_size, f.run_size);
	ret = pidfdspawn_config(-1, PIDFDSPAWN_CONFIG_QUERY, "path", NULL, 0);
	err = ret < 0 ? errno : 0;
	ok(ret == PIDFDSPAWN_CONFIG_SET_STRING &&
	   pidfdspawn_config(-1, PIDFDSPAWN_CONFIG_QUERY, "exec-fd", NULL, 0) ==
	   PIDFDSPAWN_CONFIG_SET_FD,
	   "a key QUERY returns the command the key takes (path: %d %s)", ret,
	   strerror(err));
	ok(pidfdspawn_config(-1, PIDFDSPAWN_CONFIG_QUERY, "no-such-key", NULL, 0) < 0 &&
	   errno == EOPNOTSUPP &&
	   pidfdspawn_config(0, PIDFDSPAWN_CONFIG_QUERY, NULL, &f, sizeof(f)) < 0 &&
	   errno == EINVAL,
	   "QUERY: an unknown key is EOPNOTSUPP, an fd other than -1 EINVAL");
	memset(big, 0x55, sizeof(big));
	ret = pidfdspawn_config(-1, PIDFDSPAWN_CONFIG_QUERY, NULL, big, 4096);
	err = ret < 0 ? errno : 0;
	ok(ret == 0 && big[40] == 0 && big[4095] == 0 && big[4096] == 0x55 &&
	   pidfdspawn_config(-1, PIDFDSPAWN_CONFIG_QUERY, NULL, big, 4097) < 0 &&
	   errno == E2BIG,
	   "QUERY zeroes a larger struct's tail; above 4096 bytes E2BIG (%d %s)",
	   ret, strerror(err));
}

int main(void)
{
	int have = (expected_builder_features() & PIDFDSPAWN_FEAT_BUILDER) != 0;
	char *argv[] = { "helper", "5", NULL };
	struct pidfdspawn_builder *b = pidfdspawn_builder_new();
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int fd, pidfd = -1, ret;
	siginfo_t si = { 0 };
	pid_t pid = 0;

	tap_plan(8 + query_cases(expected_builder_features()));
	test_query(expected_builder_features());
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
		ok(ret < 0 && errno == ENOSYS, "without the builder the run is ENOSYS");
		ok(pid == 0 && pidfd == -1, "and nothing was returned");
	}
	pidfdspawn_builder_free(b);

	b = pidfdspawn_builder_new();
	pidfdspawn_builder_set_path(b, "/nonexistent");
	pidfdspawn_builder_set_argv(b, argv);
	ret = pidfdspawn_builder_run(b, &pid, NULL);
	ok(ret < 0 && errno == (have ? ENOENT : ENOSYS),
	   "a missing program fails with %s", have ? "ENOENT" : "ENOSYS");
	ok(no_zombies(), "no child left unreaped");
	pidfdspawn_builder_free(b);
	return tap_done();
}
