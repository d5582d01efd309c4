/* SPDX-License-Identifier: MIT */
/* posix_spawn_file_actions_*: every action, their order, their errors. */
#include <sys/stat.h>

#include "tap.h"

static char *helper_argv[] = { "helper", NULL };

/* Spawn the helper with @fa; report in @out; returns the spawn error. */
static int run(posix_spawn_file_actions_t *fa, char *out, size_t size)
{
	int status = -1, err;

	err = spawn_capture(helper_path(), 0, fa, NULL, helper_argv, environ,
			    out, size, &status);
	if (!err && status != 0)
		return -1;
	return err;
}

static int has_fd(const char *report, int fd)
{
	char buf[4096], needle[16], *tok, *save = NULL;

	report_get(report, "fds", buf, sizeof(buf));
	snprintf(needle, sizeof(needle), "%d", fd);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, needle) == 0)
			return 1;
	return 0;
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

static void test_open(void)
{
	posix_spawn_file_actions_t fa;
	char out[8192], path[] = "/tmp/pfs-open-XXXXXX";
	struct stat st;
	int fd = mkstemp(path);

	close(fd);
	unlink(path);
	fd = open("/dev/null", O_RDONLY);	/* target already open */
	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, fd, path, O_WRONLY | O_CREAT, 0604);
	ok(run(&fa, out, sizeof(out)) == 0 && has_fd(out, fd),
	   "addopen onto an already open fd");
	ok_backend(&fa, NULL, 0, "addopen");
	memset(&st, 0, sizeof(st));
	stat(path, &st);
	ok((st.st_mode & 0777) == (0604 & ~022 & 0777),
	   "O_CREAT used the mode (minus umask): %o", st.st_mode & 0777);
	unlink(path);

	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 5, "/nonexistent/x", O_RDONLY, 0);
	ok(run(&fa, out, sizeof(out)) == ENOENT, "a failing open is ENOENT");
	ok(no_zombies(), "the failed child was reaped");
	close(fd);
}

static void test_chdir_fchdir(void)
{
	posix_spawn_file_actions_t fa;
	char out[8192], buf[4096];
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

static void test_tcsetpgrp_and_add_errors(void)
{
	posix_spawn_file_actions_t fa;
	char out[8192];
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	capture_init(&fa);
	posix_spawn_file_actions_addtcsetpgrp_np(&fa, fd);
	ok(run(&fa, out, sizeof(out)) == ENOTTY,
	   "addtcsetpgrp_np on a non-terminal is ENOTTY");
	ok_backend(&fa, NULL, 0, "tcsetpgrp");
	posix_spawn_file_actions_init(&fa);
	ok(posix_spawn_file_actions_addclose(&fa, -1) == EBADF &&
	   posix_spawn_file_actions_adddup2(&fa, 0, -1) == EBADF &&
	   posix_spawn_file_actions_adddup2(&fa, 1 << 30, 1) == EBADF &&
	   posix_spawn_file_actions_addopen(&fa, -2, "/", O_RDONLY, 0) == EBADF &&
	   posix_spawn_file_actions_addfchdir_np(&fa, -1) == EBADF &&
	   posix_spawn_file_actions_addclosefrom_np(&fa, -1) == EBADF &&
	   posix_spawn_file_actions_addtcsetpgrp_np(&fa, -1) == EBADF,
	   "adding an out-of-range fd is EBADF");
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
}

int main(void)
{
	tap_plan(25);
	test_dup2_and_close();
	test_dup2_same_fd_clears_cloexec();
	test_open();
	test_chdir_fchdir();
	test_closefrom();
	test_tcsetpgrp_and_add_errors();
	return tap_done();
}
