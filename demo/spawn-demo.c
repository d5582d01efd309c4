// SPDX-License-Identifier: GPL-2.0
/*
 * spawn-demo: start a program through the pidfd spawn builder and report what happened.
 *
 *   spawn-demo [PROGRAM [ARG...]]      (default: /bin/echo hello from a built process)
 *
 * Opens a taskless pidfd, stages the path with pidfd_config(), runs it with
 * pidfd_spawn_run(), then waits on the very same fd, which is now the child's pidfd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/pidfd_spawn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PIDFD_EMPTY
#define PIDFD_EMPTY 0x08000000U
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

int main(int argc, char *argv[])
{
	static char *default_argv[] = { "/bin/echo", "hello from a built process", NULL };
	char **child_argv = argc > 1 ? argv + 1 : default_argv;
	struct pidfd_spawn_run_args run = {
		.argv = (unsigned long)child_argv,
		.envp = (unsigned long)environ,
	};
	siginfo_t info = { 0 };
	int fd, pid;

	fd = syscall(SYS_pidfd_open, 0, PIDFD_EMPTY);
	if (fd < 0) {
		printf("pidfd_open(0, PIDFD_EMPTY): %s: this kernel has no spawn builder\n",
		       strerror(errno));
		return 2;
	}
	if (syscall(__NR_pidfd_config, fd, PIDFD_CONFIG_SET_STRING, PIDFD_CONFIG_KEY_PATH,
		    child_argv[0], 0) < 0) {
		printf("pidfd_config(path=%s): %s\n", child_argv[0], strerror(errno));
		return 1;
	}
	pid = syscall(__NR_pidfd_spawn_run, fd, &run, sizeof(run));
	if (pid < 0) {
		printf("pidfd_spawn_run: %s\n", strerror(errno));
		return 1;
	}
	printf("spawned %s as pid %d; fd %d is now its pidfd\n", child_argv[0], pid, fd);
	fflush(stdout);
	if (waitid(P_PIDFD, fd, &info, WEXITED) < 0) {
		printf("waitid(P_PIDFD): %s\n", strerror(errno));
		return 1;
	}
	if (info.si_code == CLD_EXITED)
		printf("pid %d exited with status %d\n", info.si_pid, info.si_status);
	else
		printf("pid %d was killed by signal %d\n", info.si_pid, info.si_status);
	return 0;
}
