/* SPDX-License-Identifier: MIT */
/* posix_spawn and pidfd_spawn: arguments, environment, status, exec errors. */
#include <sys/stat.h>
#include <sys/syscall.h>

#include "tap.h"

static void test_argv_env_status(void)
{
	char out[8192], buf[256];
	char *argv[] = { "custom-argv0", "7", NULL };
	char *envp[] = { "FOO=bar", NULL };
	int status = -1, err;

	err = spawn_capture(helper_path(), 0, NULL, NULL, argv, envp, out,
			    sizeof(out), &status);
	ok(err == 0, "posix_spawn returns 0 (%d)", err);
	ok_backend(NULL, NULL, 0, "plain posix_spawn");
	ok(status == 7, "exit status 7 is seen by waitpid (%d)", status);
	ok(strcmp(report_get(out, "argv0", buf, sizeof(buf)),
		  "custom-argv0") == 0, "argv[0] is passed as given");
	ok(strcmp(report_get(out, "env_FOO", buf, sizeof(buf)), "bar") == 0,
	   "envp is the child's environment");

	err = spawn_capture(helper_path(), 0, NULL, NULL, argv, NULL, out,
			    sizeof(out), &status);
	ok(err == 0 && strcmp(report_get(out, "env_FOO", buf, sizeof(buf)),
			      "(unset)") == 0,
	   "a NULL envp gives an empty environment");
}

static void test_pidfd_spawn(void)
{
	char *argv[] = { "helper", "3", NULL };
	posix_spawn_file_actions_t fa;
	siginfo_t si = { 0 };
	int pidfd = -1, err, devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, devnull, 1);
	err = pidfd_spawn(&pidfd, helper_path(), &fa, NULL, argv, environ);
	ok(err == 0 && pidfd >= 0, "pidfd_spawn returns a pidfd (%d)", err);
	ok_backend(&fa, NULL, 0, "pidfd_spawn");
	ok((fcntl(pidfd, F_GETFD) & FD_CLOEXEC) != 0, "the pidfd is close-on-exec");
	ok(syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) == 0 &&
	   si.si_status == 3, "waitid(P_PIDFD) reaps the child, status 3");
	close(pidfd);
	posix_spawn_file_actions_destroy(&fa);
	close(devnull);
}

static void test_exec_errors(void)
{
	char *argv[] = { "x", NULL };
	char dir[] = "/tmp/pfs-basic-XXXXXX", file[PATH_MAX];
	pid_t pid = 0;
	int err, fd, pidfd = -1;

	err = posix_spawn(&pid, "/nonexistent/prog", NULL, NULL, argv, environ);
	ok(err == ENOENT, "a missing program is ENOENT (%d)", err);
	ok_backend(NULL, NULL, 0, "exec failure");
	ok(no_zombies(), "the failed child was reaped");

	err = pidfd_spawn(&pidfd, "/nonexistent/prog", NULL, NULL, argv, environ);
	ok(err == ENOENT && pidfd == -1, "pidfd_spawn reports ENOENT, no pidfd");
	ok(no_zombies(), "pidfd_spawn's failed child was reaped");

	if (!mkdtemp(dir))
		abort();
	snprintf(file, sizeof(file), "%s/noexec", dir);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	(void)!write(fd, "data\n", 5);
	close(fd);
	err = posix_spawn(&pid, file, NULL, NULL, argv, environ);
	ok(err == EACCES, "a non-executable file is EACCES (%d)", err);

	chmod(file, 0755);
	err = posix_spawn(&pid, file, NULL, NULL, argv, environ);
	ok(err == ENOEXEC, "a file without a known format is ENOEXEC (%d)", err);
	ok(no_zombies(), "no child left after exec errors");

	err = posix_spawn(&pid, dir, NULL, NULL, argv, environ);
	ok(err == EACCES, "a directory is EACCES (%d)", err);
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	tap_plan(19);
	test_argv_env_status();
	test_pidfd_spawn();
	test_exec_errors();
	return tap_done();
}
