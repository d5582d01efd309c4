/* SPDX-License-Identifier: MIT */
/*
 * Backend selection: the probe matches what the kernel is expected to
 * support, PIDFDSPAWN_BACKEND forces a backend (never a silent fallback
 * when the builder is forced), PIDFDSPAWN_TRACE_FD reports each call.
 */
#include "tap.h"

static int spawn_plain(const posix_spawnattr_t *attr)
{
	char *argv[] = { "helper", NULL };
	posix_spawn_file_actions_t fa;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), err;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, devnull, 1);
	err = posix_spawn(&pid, helper_path(), &fa, attr, argv, environ);
	if (!err)
		wait_status(pid);
	posix_spawn_file_actions_destroy(&fa);
	close(devnull);
	return err;
}

int main(void)
{
	uint32_t expect = expected_builder_features(), probed = pidfdspawn_probe();
	uint32_t dup2_needs = PIDFDSPAWN_FEAT_BUILDER | PIDFDSPAWN_FEAT_DUP2;
	int builder_ok = (expect & dup2_needs) == dup2_needs;
	posix_spawnattr_t setsid_attr;
	char trace[4096] = "";
	int p[2], err;
	ssize_t n;

	tap_plan(9);
	ok(probed == expect, "the probe found exactly the expected features "
	   "(probed 0x%x, expected 0x%x)", probed, expect);
	ok(pidfdspawn_probe() == probed, "the probe result is stable (cached)");

	setenv("PIDFDSPAWN_BACKEND", "fallback", 1);
	ok(spawn_plain(NULL) == 0 &&
	   pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_FALLBACK,
	   "PIDFDSPAWN_BACKEND=fallback forces the fallback");

	setenv("PIDFDSPAWN_BACKEND", "builder", 1);
	err = spawn_plain(NULL);
	if (builder_ok)
		ok(err == 0 && pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_BUILDER,
		   "PIDFDSPAWN_BACKEND=builder uses the builder (%d)", err);
	else
		ok(err == ENOTSUP && pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_NONE,
		   "PIDFDSPAWN_BACKEND=builder without a builder is ENOTSUP (%d)", err);

	posix_spawnattr_init(&setsid_attr);
	posix_spawnattr_setflags(&setsid_attr, POSIX_SPAWN_SETSID);
	err = spawn_plain(&setsid_attr);
	ok(err == ((expect & PIDFDSPAWN_FEAT_SETSID) ? 0 : ENOTSUP),
	   "a forced builder never falls back for what it lacks (%d)", err);
	ok(no_zombies(), "nothing left behind");

	setenv("PIDFDSPAWN_BACKEND", "bogus", 1);
	ok(spawn_plain(NULL) == EINVAL, "an unknown PIDFDSPAWN_BACKEND is EINVAL");

	unsetenv("PIDFDSPAWN_BACKEND");
	if (pipe(p) == 0) {
		char fdstr[16];

		snprintf(fdstr, sizeof(fdstr), "%d", p[1]);
		setenv("PIDFDSPAWN_TRACE_FD", fdstr, 1);
		spawn_plain(NULL);
		unsetenv("PIDFDSPAWN_TRACE_FD");
		close(p[1]);
		n = read(p[0], trace, sizeof(trace) - 1);
		trace[n > 0 ? n : 0] = '\0';
		close(p[0]);
	}
	ok(strncmp(trace, "pidfdspawn: posix_spawn ", 24) == 0 &&
	   strstr(trace, builder_ok ? "backend=builder" : "backend=fallback"),
	   "PIDFDSPAWN_TRACE_FD reports the call and its backend");
	diag("trace: %s", trace);
	ok(pidfdspawn_feature_from_name("close_range") == PIDFDSPAWN_FEAT_CLOSE_RANGE &&
	   strcmp(pidfdspawn_feature_name(PIDFDSPAWN_FEAT_FCHDIR), "fchdir") == 0 &&
	   pidfdspawn_feature_name(3) == NULL,
	   "feature names map both ways");
	return tap_done();
}
