/* SPDX-License-Identifier: MIT */
/* The builder API: stage /bin/echo, run it, wait through its pidfd. */
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pidfdspawn.h>

int main(void)
{
	char *argv[] = { "echo", "hello from the builder", NULL };
	struct pidfdspawn_builder *b = pidfdspawn_builder_new();
	siginfo_t si;
	int pidfd;
	pid_t pid;

	pidfdspawn_builder_set_path(b, "/bin/echo");
	pidfdspawn_builder_set_argv(b, argv);
	if (pidfdspawn_builder_run(b, &pid, &pidfd) < 0) {
		perror("pidfdspawn_builder_run");
		return 1;
	}
	syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL);
	printf("pid %d exited with %d\n", pid, si.si_status);
	close(pidfd);
	pidfdspawn_builder_free(b);
	return 0;
}
