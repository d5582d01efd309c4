/* SPDX-License-Identifier: MIT */
/* posix_spawn_file_actions_*: every action, their order, their errors. */
#include <sys/stat.h>

#include "tap.h"

static char *helper_argv[] = { "helper", NULL };

/* Spawn @path with @fa and @attr; report in @out; the spawn error. */
static int run_attr(const char *path, posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attr, char *out, size_t size)
{
	int status = -1, err;

	err = spawn_capture(path, 0, fa, attr, helper_argv, environ,
			    out, size, &status);
	if (!err && status != 0)
		return -1;
	return err;
}

/* Spawn the helper with @fa; report in @out; returns the spawn error. */
static int run(posix_spawn_file_actions_t *fa, char *out, size_t size)
{
	return run_attr(helper_path(), fa, NULL, out, size);
}

static long num(const char *report, const char *key)
{
	char buf[64];

	return strtol(report_get(report, key, buf, sizeof(buf)), NULL, 10);
}

static void test_dup2_and_close(void)
{
	posix_spawn_file_actions_t fa;
	char out[8192];
	int fd = open("/dev/null", O_RDONLY); /* inheritable */

	capture_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 40);
	posix_spawn_file_actions_addclose(&fa, fd);
	ok(run(&fa, out, sizeof(out)) == 0 && has_fd(out, 40) && !has_fd(out, fd),
	   "dup2 then close: the copy stays, the original is gone");
	ok_backend(&fa, NULL, 0, "dup2+close");

	capture_init(&fa);
	posix_spawn_file_actions_addclose(&fa, fd);
	posix_spawn_file_actions_adddup2(&fa, fd, 41);
	ok(run(&fa, out, sizeof(out)) == EBADF,
	   "close then dup2 of the same fd: EBADF, actions run in order");
	ok_backend(&fa, NULL, 0, "close+dup2");
	ok(no_zombies(), "the failed child was reaped");

	capture_init(&fa);
	posix_spawn_file_actions_addclose(&fa, 250);
	ok(run(&fa, out, sizeof(out)) == 0,
	   "closing an fd that is not open is not an error");
	ok_backend(&fa, NULL, 0, "close of an unopened fd");
	close(fd);
}

static void test_dup2_same_fd_clears_cloexec(void)
{
	posix_spawn_file_actions_t fa;
	char out[8192];
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	capture_init(&fa);
	ok(run(&fa, out, sizeof(out)) == 0 && !has_fd(out, fd),
	   "a close-on-exec fd is not inherited");
	capture_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, fd);
	ok(run(&fa, out, sizeof(out)) == 0 && has_fd(out, fd),
	   "dup2(fd, fd) clears FD_CLOEXEC in the child");
	ok_backend(&fa, NULL, 0, "dup2(fd, fd)");
	ok((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0,
	   "the parent's fd keeps FD_CLOEXEC");
	close(fd);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	stat(path, &st);
	return st.st_mode & 07777;
}

static void test_open(void)
{
	posix_spawn_file_actions_t fa;
	char out[8192], dir[] = "/tmp/pfs-open-XXXXXX", path[PATH_MAX];
	mode_t mask = umask(022);
	int fd, err;

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/created", dir);
	fd = open("/dev/null", O_RDONLY);	/* target already open */
	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, fd, path, O_WRONLY | O_CREAT, 0604);
	ok(run(&fa, out, sizeof(out)) == 0 && has_fd(out, fd),
	   "addopen onto an already open fd");
	ok_backend(&fa, NULL, 0, "addopen");
	ok(mode_of(path) == (0604 & ~022),
	   "O_CREAT used the mode (minus umask): %o", mode_of(path));

	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, fd, path,
					 O_WRONLY | O_CREAT | O_EXCL, 0600);
	ok(run(&fa, out, sizeof(out)) == EEXIST && no_zombies(),
	   "O_CREAT|O_EXCL on an existing file is EEXIST, child reaped");
	ok_backend(&fa, NULL, 0, "addopen O_EXCL");
	unlink(path);

	/* open(2) keeps only the permission bits of a mode. */
	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 100, path, O_RDWR | O_CREAT | O_EXCL,
					 S_IFREG | 0640);
	err = run(&fa, out, sizeof(out));
	ok(err == 0 && has_fd(out, 100) && mode_of(path) == 0640,
	   "a mode with file-type bits creates with its permission bits "
	   "(%d, %o), onto fd 100", err, mode_of(path));
	ok_backend(&fa, NULL, 0, "addopen mode 0100640");

	/* Without O_CREAT the mode means nothing, whatever it holds. */
	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 101, path, O_RDONLY, (mode_t)~0u);
	ok(run(&fa, out, sizeof(out)) == 0 && has_fd(out, 101),
	   "without O_CREAT any mode is ignored");
	unlink(path);

	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 102, "/dev/null", O_RDONLY | O_CLOEXEC, 0);
	ok(run(&fa, out, sizeof(out)) == 0 && !has_fd(out, 102),
	   "an O_CLOEXEC open onto another fd number is closed at exec");
	ok_backend(&fa, NULL, 0, "addopen O_CLOEXEC");

	/* An open flag bit the library does not know: open(2) ignores it. */
	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 103, "/dev/null", O_RDONLY | 0x40000000, 0);
	ok(run(&fa, out, sizeof(out)) == 0 && has_fd(out, 103),
	   "an unknown open flag bit is ignored as open(2) does");
	ok_backend(&fa, NULL, 0, "addopen with an unknown flag bit");

	capture_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	posix_spawn_file_actions_addopen(&fa, 104, "relative", O_WRONLY | O_CREAT, 0600);
	ok(run(&fa, out, sizeof(out)) == 0 && has_fd(out, 104) &&
	   access(path, F_OK) != 0 && mode_of(dir) != 0 &&
	   unlink(strcat(strcat(strcpy(path, dir), "/"), "relative")) == 0,
	   "a relative addopen after addchdir_np resolves in the new directory");
	ok_backend(&fa, NULL, 0, "addchdir_np+addopen");

	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 5, "/nonexistent/x", O_RDONLY, 0);
	ok(run(&fa, out, sizeof(out)) == ENOENT, "a failing open is ENOENT");
	ok(no_zombies(), "the failed child was reaped");
	rmdir(dir);
	umask(mask);
	close(fd);
}

static void test_chdir_fchdir(void)
{
	posix_spawn_file_actions_t fa;
	char out[8192], buf[PATH_MAX + 16];
	int dfd = open("/usr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	capture_init(&fa);
	posix_spawn_file_actions_addfchdir_np(&fa, dfd);
	ok(run(&fa, out, sizeof(out)) == 0 &&
	   strcmp(report_get(out, "cwd", buf, sizeof(buf)), "/usr") == 0,
	   "addfchdir_np changes the child's directory");
	ok_backend(&fa, NULL, 0, "fchdir");

	capture_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, "/");
	posix_spawn_file_actions_addchdir_np(&fa, "usr/lib");
	ok(run(&fa, out, sizeof(out)) == 0 &&
	   strcmp(report_get(out, "cwd", buf, sizeof(buf)), "/usr/lib") == 0,
	   "addchdir_np paths resolve in order, relative to the previous one");
	ok_backend(&fa, NULL, 0, "chdir");

	capture_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, "/nonexistent");
	ok(run(&fa, out, sizeof(out)) == ENOENT, "chdir failure is ENOENT");
	ok(no_zombies(), "the failed child was reaped");

	/* The program path resolves in the child's new directory. */
	snprintf(buf, sizeof(buf), "%s", helper_path());
	*strrchr(buf, '/') = '\0';
	capture_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, buf);
	ok(run_attr("./helper", &fa, NULL, out, sizeof(out)) == 0,
	   "a relative program path after addchdir_np runs from the new directory");
	ok_backend(&fa, NULL, 0, "addchdir_np+relative path");
	close(dfd);
}

static void test_closefrom(void)
{
	posix_spawn_file_actions_t fa;
	char out[8192], buf[64];
	int a = open("/dev/null", O_RDONLY), b = open("/dev/null", O_RDONLY);

	capture_init(&fa);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	ok(run(&fa, out, sizeof(out)) == 0 &&
	   strcmp(report_get(out, "fds", buf, sizeof(buf)), "0,1,2") == 0,
	   "addclosefrom_np(3) leaves only 0, 1, 2 (%s)", buf);
	ok_backend(&fa, NULL, 0, "closefrom");
	close(a);
	close(b);
}

/* A pty: the master fd, and the slave's name in @name. */
static int open_pty(char *name, size_t size)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
	    ptsname_r(m, name, size) != 0) {
		if (m >= 0)
			close(m);
		return -1;
	}
	return m;
}

static void test_tcsetpgrp_and_add_errors(void)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char out[8192], pts[128];
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), m, err;

	capture_init(&fa);
	posix_spawn_file_actions_addtcsetpgrp_np(&fa, fd);
	ok(run(&fa, out, sizeof(out)) == ENOTTY,
	   "addtcsetpgrp_np on a non-terminal is ENOTTY");
	ok_backend(&fa, NULL, 0, "tcsetpgrp");

	/*
	 * A new session opens a pty slave, which becomes its controlling
	 * terminal, and makes its group the foreground group.
	 */
	m = open_pty(pts, sizeof(pts));
	ok(m >= 0, "a pty to test with (%s)", m >= 0 ? pts : strerror(errno));
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 20, pts, O_RDWR, 0);
	posix_spawn_file_actions_addtcsetpgrp_np(&fa, 20);
	err = run_attr(helper_path(), &fa, &attr, out, sizeof(out));
	ok(err == 0 && num(out, "sid") == num(out, "pid") &&
	   num(out, "tpgid") == num(out, "pid"),
	   "SETSID + open pty + addtcsetpgrp_np: the child's group is in the "
	   "foreground (%d, tpgid %ld, pid %ld)", err, num(out, "tpgid"),
	   num(out, "pid"));
	ok_backend(&fa, &attr, 0, "SETSID+addopen+addtcsetpgrp_np");

	/* Without a new session the pty is not the child's terminal. */
	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 20, pts, O_RDWR | O_NOCTTY, 0);
	posix_spawn_file_actions_addtcsetpgrp_np(&fa, 20);
	ok(run(&fa, out, sizeof(out)) == ENOTTY && no_zombies(),
	   "addtcsetpgrp_np on a terminal that is not the controlling one is ENOTTY");
	ok_backend(&fa, NULL, 0, "addopen+addtcsetpgrp_np");
	posix_spawnattr_destroy(&attr);
	if (m >= 0)
		close(m);

	posix_spawn_file_actions_init(&fa);
	ok(posix_spawn_file_actions_addclose(&fa, -1) == EBADF &&
	   posix_spawn_file_actions_adddup2(&fa, 0, -1) == EBADF &&
	   posix_spawn_file_actions_adddup2(&fa, 1 << 30, 1) == EBADF &&
	   posix_spawn_file_actions_addopen(&fa, -2, "/", O_RDONLY, 0) == EBADF &&
	   posix_spawn_file_actions_addclosefrom_np(&fa, -1) == EBADF &&
	   posix_spawn_file_actions_addtcsetpgrp_np(&fa, -1) == EBADF,
	   "adding an out-of-range fd is EBADF");
	posix_spawn_file_actions_destroy(&fa);

	/* glibc: addfchdir_np checks nothing; fchdir(-1) fails in the child. */
	capture_init(&fa);
	ok(posix_spawn_file_actions_addfchdir_np(&fa, -1) == 0 &&
	   posix_spawn_file_actions_addfchdir_np(&fa, 1 << 30) == 0,
	   "addfchdir_np(-1) and addfchdir_np(2^30) are accepted at add time");
	err = run(&fa, out, sizeof(out));
	ok(err == EBADF && no_zombies(),
	   "... and the spawn fails with EBADF, child reaped (%d)", err);
	ok_backend(&fa, NULL, 0, "addfchdir_np(-1)");
	close(fd);
}

int main(void)
{
	tap_plan(48);
	test_dup2_and_close();
	test_dup2_same_fd_clears_cloexec();
	test_open();
	test_chdir_fchdir();
	test_closefrom();
	test_tcsetpgrp_and_add_errors();
	return tap_done();
}
