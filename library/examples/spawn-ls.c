/* SPDX-License-Identifier: MIT */
/*
 * Smallest use: posix_spawnp with a closefrom, then say which backend ran.
 * Works on every kernel: without the pidfd spawn builder the library
 * spawns through its fallback, and this program says why.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <pidfdspawn.h>

extern char **environ;

int main(void)
{
	char *argv[] = { "ls", "-d", "/", NULL };
	posix_spawn_file_actions_t fa;
	int err, status;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	err = posix_spawnp(&pid, "ls", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		fprintf(stderr, "spawn-ls: posix_spawnp: %s\n", strerror(err));
		return 1;
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return 1;
	}
	printf("backend %s%s, status %d\n",
	       pidfdspawn_backend_name(pidfdspawn_last_backend()),
	       (pidfdspawn_probe() & PIDFDSPAWN_FEAT_BUILDER) ? "" :
	       " (this kernel has no pidfd spawn builder)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
