/* SPDX-License-Identifier: MIT */
/* Smallest use: posix_spawnp with a closefrom, then say which backend ran. */
#include <stdio.h>
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
		fprintf(stderr, "posix_spawnp: error %d\n", err);
		return 1;
	}
	waitpid(pid, &status, 0);
	printf("backend %s, status %d\n",
	       pidfdspawn_backend_name(pidfdspawn_last_backend()),
	       WEXITSTATUS(status));
	return 0;
}
