// SPDX-License-Identifier: GPL-2.0
/*
 * builder-run PROGRAM [ARG...]: run PROGRAM through a pidfd spawn builder
 * (pidfd_open(0, PIDFD_EMPTY), then pidfd_spawn_run()), wait for it and
 * exit with its status. For tests/guest.d/tracers, which runs it under
 * strace -f and gdb.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The series' UAPI (include/uapi/linux/pidfd_spawn.h), version 0 arguments. */
#define PIDFD_EMPTY (1U << 27)
#define NR_pidfd_spawn_run 473

struct pidfd_spawn_run_args {
	uint32_t flags;
	uint32_t nr_actions;
	uint64_t path;
	uint64_t argv;
	uint64_t envp;
	uint64_t actions;
	uint32_t action_size;
	uint32_t reserved0;
	uint64_t reserved[2];
};

extern char **environ;

int main(int argc, char **argv)
{
	struct pidfd_spawn_run_args args;
	int fd, status;
	long pid;

	if (argc < 2) {
		fprintf(stderr, "usage: builder-run PROGRAM [ARG...]\n");
		return 2;
	}
	/* Proves the builder exists before 473 is called. */
	fd = syscall(SYS_pidfd_open, 0, PIDFD_EMPTY);
	if (fd < 0) {
		fprintf(stderr, "builder-run: pidfd_open: %s\n", strerror(errno));
		return 3;
	}
	memset(&args, 0, sizeof(args));
	args.path = (uintptr_t)argv[1];
	args.argv = (uintptr_t)(argv + 1);
	args.envp = (uintptr_t)environ;
	pid = syscall(NR_pidfd_spawn_run, fd, &args, sizeof(args));
	if (pid < 0) {
		fprintf(stderr, "builder-run: pidfd_spawn_run: %s\n",
			strerror(errno));
		return 4;
	}
	if (waitpid(pid, &status, 0) != pid)
		return 5;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
