/* SPDX-License-Identifier: MIT */
/*
 * Backend selection: the probe matches what the kernel is expected to
 * support, PIDFDSPAWN_BACKEND forces a backend (never a silent fallback
 * when the builder is forced), PIDFDSPAWN_TRACE_FD reports each call.
 */
#include "tap.h"

/* The helper with stdout on /dev/null; @odd_open adds an open whose flags
 * hold a bit the library does not know (no builder may serve it). */
static int spawn_fa(const posix_spawnattr_t *attr, int odd_open)
{
	char *argv[] = { "helper", NULL };
	posix_spawn_file_actions_t fa;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), err;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, devnull, 1);
	if (odd_open)
		posix_spawn_file_actions_addopen(&fa, 20, "/dev/null",
						 O_RDONLY | 0x40000000, 0);
	err = posix_spawn(&pid, helper_path(), &fa, attr, argv, environ);
	if (!err)
		wait_status(pid);
	posix_spawn_file_actions_destroy(&fa);
	close(devnull);
	return err;
}

static int spawn_plain(const posix_spawnattr_t *attr)
{
	return spawn_fa(attr, 0);
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

	tap_plan(12);
	ok(probed == expect, "the probe found exactly the expected features "
	   "(probed 0x%x, expected 0x%x)", probed, expect);
	for (uint32_t bit = 1; bit; bit <<= 1)
		if ((probed ^ expect) & bit)
			diag("%s: %s", pidfdspawn_feature_name(bit) ?: "?",
			     probed & bit ? "found, not expected" :
			     "expected, not found");
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
	err = spawn_fa(NULL, 1);
	ok(err == ENOTSUP && pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_NONE,
	   "a forced builder refuses what no kernel serves with ENOTSUP (%d)", err);
	ok(no_zombies(), "nothing left behind");
	unsetenv("PIDFDSPAWN_BACKEND");
	err = spawn_fa(NULL, 1);
	ok(err == 0 && pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_FALLBACK,
	   "auto mode gives that to the fallback (%d)", err);

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
	   pidfdspawn_feature_from_name("close") == PIDFDSPAWN_FEAT_CLOSE &&
	   strcmp(pidfdspawn_feature_name(PIDFDSPAWN_FEAT_PATH_SEARCH),
		  "path_search") == 0 &&
	   pidfdspawn_feature_name(3) == NULL &&
	   pidfdspawn_feature_name(PIDFDSPAWN_FEAT_UNSUPPORTED) == NULL,
	   "feature names map both ways");
	{
		int all = 1;

		for (int i = 0; i < PIDFDSPAWN_FEAT_COUNT; i++)
			all &= pidfdspawn_feature_name(1u << i) != NULL &&
				pidfdspawn_feature_from_name(
					pidfdspawn_feature_name(1u << i)) == 1u << i;
		ok(all && !(probed & PIDFDSPAWN_FEAT_UNSUPPORTED),
		   "every feature bit has a name; the probe never finds "
		   "PIDFDSPAWN_FEAT_UNSUPPORTED");
	}
	return tap_done();
}
