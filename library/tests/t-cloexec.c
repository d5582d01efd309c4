/* SPDX-License-Identifier: MIT */
/*
 * POSIX_SPAWN_CLOEXEC_DEFAULT_NP (the library's extension, XNU's meaning):
 * the child keeps only the descriptors the file actions place.  The
 * builder does it with PIDFD_SPAWN_RUN_CLOEXEC_DEFAULT, the fallback by
 * marking every other descriptor close-on-exec after the actions.
 */
#include "tap.h"

static char *helper_argv[] = { "helper", NULL };

static int run(posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
	       char *out, size_t size)
{
	int status = -1, err;

	err = spawn_capture(helper_path(), 0, fa, attr, helper_argv, environ,
			    out, size, &status);
	return err ? err : (status ? -1 : 0);
}

/* An inheritable /dev/null at exactly @fd. */
static void open_at(int fd)
{
	int tmp = open("/dev/null", O_RDONLY);

	if (tmp != fd) {
		dup2(tmp, fd);
		close(tmp);
	}
}

int main(void)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char out[8192], buf[256];
	short flags = 0;
	int err;

	tap_plan(12);
	posix_spawnattr_init(&attr);
	ok(posix_spawnattr_setflags(&attr, POSIX_SPAWN_CLOEXEC_DEFAULT_NP |
				    POSIX_SPAWN_SETSIGMASK) == 0 &&
	   posix_spawnattr_getflags(&attr, &flags) == 0 &&
	   flags == (POSIX_SPAWN_CLOEXEC_DEFAULT_NP | POSIX_SPAWN_SETSIGMASK),
	   "setflags takes POSIX_SPAWN_CLOEXEC_DEFAULT_NP (0x%x)",
	   POSIX_SPAWN_CLOEXEC_DEFAULT_NP);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_CLOEXEC_DEFAULT_NP);

	for (int fd = 50; fd <= 54; fd++)
		open_at(fd);

	capture_init(&fa);
	ok(run(&fa, NULL, out, sizeof(out)) == 0 &&
	   strstr(report_get(out, "fds", buf, sizeof(buf)), "50,51,52,53,54"),
	   "without the flag the child inherits fds 50..54 (%s)", buf);

	capture_init(&fa);
	err = run(&fa, &attr, out, sizeof(out));
	ok(err == 0 && strcmp(report_get(out, "fds", buf, sizeof(buf)), "1") == 0,
	   "with the flag only the dup2 target 1 is left, not even 0 and 2 "
	   "(%d, %s)", err, buf);
	ok_backend(&fa, &attr, 0, "CLOEXEC_DEFAULT_NP with dup2");

	capture_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 51, 51);		/* kept */
	posix_spawn_file_actions_addopen(&fa, 52, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 53, "/dev/null",
					 O_RDONLY | O_CLOEXEC, 0);
	posix_spawn_file_actions_adddup2(&fa, 50, 60);
	posix_spawn_file_actions_addclose(&fa, 60);		/* placed, closed */
	posix_spawn_file_actions_adddup2(&fa, 54, 2);		/* kept */
	err = run(&fa, &attr, out, sizeof(out));
	ok(err == 0 &&
	   strcmp(report_get(out, "fds", buf, sizeof(buf)), "1,2,51,52") == 0,
	   "dup2(fd, fd), dup2 and open targets stay; O_CLOEXEC opens, closed "
	   "targets and untouched fds go (%d, %s)", err, buf);
	ok_backend(&fa, &attr, 0, "CLOEXEC_DEFAULT_NP with dup2, open, close");

	ok((fcntl(50, F_GETFD) & FD_CLOEXEC) == 0 &&
	   (fcntl(54, F_GETFD) & FD_CLOEXEC) == 0,
	   "the caller's fds keep their flags");

	capture_init(&fa);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawn_file_actions_addopen(&fa, 70, "/dev/null", O_RDONLY, 0);
	err = run(&fa, &attr, out, sizeof(out));
	ok(err == 0 && strcmp(report_get(out, "fds", buf, sizeof(buf)), "1,70") == 0,
	   "with closefrom and an open after it (%d, %s)", err, buf);

	capture_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 54, 54);
	err = posix_spawn(NULL, "/nonexistent/prog", &fa, &attr, helper_argv,
			  environ);
	ok(err == ENOENT && no_zombies(),
	   "an exec failure is still reported and reaped (%d)", err);
	close(capture_pipe[0]);
	close(capture_pipe[1]);

	posix_spawnattr_setflags(&attr, POSIX_SPAWN_CLOEXEC_DEFAULT_NP |
				 POSIX_SPAWN_SETSID);
	capture_init(&fa);
	err = run(&fa, &attr, out, sizeof(out));
	ok(err == 0 && strcmp(report_get(out, "fds", buf, sizeof(buf)), "1") == 0 &&
	   strtol(report_get(out, "sid", buf, sizeof(buf)), NULL, 10) ==
	   strtol(report_get(out, "pid", buf + 64, 64), NULL, 10),
	   "together with SETSID (%d)", err);
	ok_backend(&fa, &attr, 0, "CLOEXEC_DEFAULT_NP|SETSID");

	ok(pidfdspawn_feature_from_name("cloexec_default") ==
	   PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT, "the feature is named cloexec_default");
	posix_spawnattr_destroy(&attr);
	return tap_done();
}
