/*
 * spawn-once: the system calls of one posix_spawn(), for strace and perf (see
 * docs/benchmarks.md, "Library overhead per spawn").  Built twice: spawn-once-glibc
 * calls glibc's posix_spawn, spawn-once-lib is linked with libpidfdspawn, whose
 * posix_spawn replaces glibc's.
 *
 *   spawn-once [-c] [-n N] PROGRAM
 *
 * Makes N+1 spawns of PROGRAM (argv { PROGRAM, NULL }, empty environment), reaping each
 * with waitpid().  The first one is a warm-up (the library probes the kernel once per
 * process then); before each later one the program writes a marker line to fd -1,
 * "write(-1, "spawn-once: spawn K\n", ...) = -1 EBADF" in strace, a sys_enter of
 * write with fd -1 in perf, so the calls of exactly one spawn can be cut out.  -c adds
 * a closefrom(3) file action (the builder's leading CLOSE_RANGE).  Exits 0 when every
 * child exited 0.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char *child_env[] = { NULL };
	posix_spawn_file_actions_t fa, *fap = NULL;
	long n = 1;
	int opt;

	while ((opt = getopt(argc, argv, "cn:")) != -1) {
		switch (opt) {
		case 'c':
			if (posix_spawn_file_actions_init(&fa) ||
			    posix_spawn_file_actions_addclosefrom_np(&fa, 3))
				return 2;
			fap = &fa;
			break;
		case 'n':
			n = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: spawn-once [-c] [-n N] PROGRAM\n");
			return 2;
		}
	}
	if (optind + 1 != argc || n < 0) {
		fprintf(stderr, "usage: spawn-once [-c] [-n N] PROGRAM\n");
		return 2;
	}
	for (long i = 0; i <= n; i++) {
		char *child_argv[] = { argv[optind], NULL };
		char mark[64];
		pid_t pid;
		int err, status, len;

		if (i > 0) {
			len = snprintf(mark, sizeof(mark), "spawn-once: spawn %ld\n", i);
			(void)!write(-1, mark, (size_t)len);
		}
		err = posix_spawn(&pid, argv[optind], fap, NULL, child_argv, child_env);
		if (err) {
			fprintf(stderr, "spawn-once: posix_spawn: %s\n", strerror(err));
			return 1;
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "spawn-once: child failed (0x%x)\n", status);
			return 1;
		}
	}
	return 0;
}
