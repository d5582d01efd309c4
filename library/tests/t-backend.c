/* SPDX-License-Identifier: MIT */
/*
 * Backend selection: the probe matches what the kernel is expected to
 * support, PIDFDSPAWN_BACKEND forces a backend (never a silent fallback
 * when the builder is forced), PIDFDSPAWN_TRACE_FD reports each call.
 */
#include <sys/auxv.h>

#include "tap.h"

/*
 * The helper with stdout on /dev/null; @odd adds what no kernel builder
 * serves: an open action in a posix_spawnp whose PATH (over 64 KiB) is too
 * long for the kernel's search, so the library would walk it and repeat
 * the open for every candidate.
 */
static int spawn_fa(const posix_spawnattr_t *attr, int odd)
{
	char *argv[] = { "helper", NULL };
	posix_spawn_file_actions_t fa;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), err;
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, devnull, 1);
	if (odd) {
		static char path[70000 + PATH_MAX + 64];
		char dir[PATH_MAX + 16];	/* helper_path() */
		size_t used = 0;

		snprintf(dir, sizeof(dir), "%s", helper_path());
		*strrchr(dir, '/') = '\0';
		while (used < 70000)
			used += (size_t)sprintf(path + used, "/nonexistent/pfs-long-path:");
		snprintf(path + used, sizeof(path) - used, "%s", dir);
		setenv("PATH", path, 1);
		posix_spawn_file_actions_addopen(&fa, 20, "/dev/null", O_RDONLY, 0);
		err = posix_spawnp(&pid, "helper", &fa, attr, argv, environ);
		if (old_path)
			setenv("PATH", old_path, 1);
		else
			unsetenv("PATH");
	} else {
		err = posix_spawn(&pid, helper_path(), &fa, attr, argv, environ);
	}
	free(old_path);
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

/* Read everything written to @fd (non-blocking) into @buf. */
static void drain(int fd, char *buf, size_t size)
{
	size_t used = 0;
	ssize_t n;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (used + 1 < size && (n = read(fd, buf + used, size - 1 - used)) > 0)
		used += (size_t)n;
	buf[used] = '\0';
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* An unknown name is auto, said once on the trace fd; never EINVAL. */
static void unknown_backend(int builder_ok)
{
	enum pidfdspawn_backend want = builder_ok ? PIDFDSPAWN_BACKEND_BUILDER :
				       PIDFDSPAWN_BACKEND_FALLBACK;
	char fdstr[16], trace[8192] = "";
	int p[2], e1, e2;
	enum pidfdspawn_backend b1;

	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	snprintf(fdstr, sizeof(fdstr), "%d", p[1]);
	setenv("PIDFDSPAWN_TRACE_FD", fdstr, 1);
	setenv("PIDFDSPAWN_BACKEND", "bogus", 1);
	e1 = spawn_plain(NULL);
	b1 = pidfdspawn_last_backend();
	e2 = spawn_plain(NULL);
	unsetenv("PIDFDSPAWN_BACKEND");
	unsetenv("PIDFDSPAWN_TRACE_FD");
	close(p[1]);
	drain(p[0], trace, sizeof(trace));
	close(p[0]);
	ok(e1 == 0 && e2 == 0 && b1 == want,
	   "an unknown PIDFDSPAWN_BACKEND is ignored: auto mode, the %s (%d, %d, %s)",
	   pidfdspawn_backend_name(want), e1, e2, pidfdspawn_backend_name(b1));
	ok(count(trace, "unknown PIDFDSPAWN_BACKEND=bogus ignored") == 1 &&
	   count(trace, " mode=auto\n") == 2,
	   "... said once on the trace fd, both calls traced as mode=auto");
	diag("trace: %s", trace);
}

/*
 * PIDFDSPAWN_TRACE_FD and PIDFDSPAWN_BACKEND are read with secure_getenv:
 * run this program again with both set, once plainly and once (as root)
 * with real gid 65534 and effective gid 0, which makes the kernel mark
 * the exec secure (AT_SECURE) as a set-group-ID program's.  The child
 * reports "secure=N err=N backend=NAME trace=BYTES".
 */
static int secure_child(void)
{
	char trace[4096];
	int err;

	err = spawn_plain(NULL);
	drain(3, trace, sizeof(trace));
	printf("secure=%lu err=%d backend=%s trace=%zu\n", getauxval(AT_SECURE),
	       err, pidfdspawn_backend_name(pidfdspawn_last_backend()),
	       strlen(trace));
	return 0;
}

static void run_secure_child(int drop_gid, const char *mode, char *out,
			     size_t size)
{
	char *argv[] = { "t-backend", "--secure-child", NULL };
	int p[2], t[2];
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0 || pipe(t) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		/* The trace pipe is fd 3, its write end fd 4. */
		int r = fcntl(t[0], F_DUPFD, 10), w = fcntl(t[1], F_DUPFD, 10);

		if (dup2(p[1], 1) < 0 || r < 0 || w < 0 || dup2(r, 3) < 0 ||
		    dup2(w, 4) < 0)
			_exit(2);
		setenv("PIDFDSPAWN_TRACE_FD", "4", 1);
		setenv("PIDFDSPAWN_BACKEND", mode, 1);
		if (drop_gid && setresgid(65534, 0, 0) < 0)
			_exit(3);
		execv("/proc/self/exe", argv);
		_exit(4);
	}
	close(p[1]);
	close(t[0]);
	close(t[1]);
	n = read(p[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	close(p[0]);
	diag("child (real gid %s): %s, status %d", drop_gid ? "65534" : "kept",
	     out, wait_status(pid));
}

static void secure_knobs(int builder_ok)
{
	/* The mode that differs from what auto would choose here. */
	const char *mode = builder_ok ? "fallback" : "builder";
	const char *auto_backend = builder_ok ? "builder" : "fallback";
	char out[512], want[128];

	run_secure_child(0, mode, out, sizeof(out));
	snprintf(want, sizeof(want), "secure=0 err=%d backend=%s trace=",
		 builder_ok ? 0 : ENOTSUP, builder_ok ? "fallback" : "none");
	ok(strncmp(out, want, strlen(want)) == 0 && !strstr(out, "trace=0"),
	   "not secure: PIDFDSPAWN_BACKEND=%s and PIDFDSPAWN_TRACE_FD are honoured",
	   mode);
	if (geteuid() != 0) {
		diag("not root: no secure exec can be had to test secure_getenv");
		ok(strncmp(out, want, strlen(want)) == 0,
		   "not root: the knobs are honoured without AT_SECURE");
		return;
	}
	run_secure_child(1, mode, out, sizeof(out));
	snprintf(want, sizeof(want), "secure=1 err=0 backend=%s trace=0",
		 auto_backend);
	ok(strcmp(out, want) == 0,
	   "AT_SECURE (real gid 65534, effective 0): both knobs are ignored, "
	   "nothing traced, auto mode");
}

int main(int argc, char **argv)
{
	uint32_t expect = expected_builder_features(), probed = pidfdspawn_probe();
	uint32_t dup2_needs = PIDFDSPAWN_FEAT_BUILDER | PIDFDSPAWN_FEAT_DUP2;
	int builder_ok = (expect & dup2_needs) == dup2_needs;
	posix_spawnattr_t setsid_attr;
	char trace[4096] = "";
	int p[2], err;
	ssize_t n;

	if (argc > 1 && strcmp(argv[1], "--secure-child") == 0)
		return secure_child();
	tap_plan(15);
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

	unknown_backend(builder_ok);

	unsetenv("PIDFDSPAWN_BACKEND");
	secure_knobs(builder_ok);
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
