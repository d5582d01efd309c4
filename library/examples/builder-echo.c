/* SPDX-License-Identifier: MIT */
/*
 * The builder API: stage /bin/echo, run it, wait through its pidfd.
 * Needs a kernel with the pidfd spawn builder; on any other kernel the
 * run fails with ENOSYS, and this program says so and exits with 69
 * (EX_UNAVAILABLE): the posix_spawn family (see spawn-ls.c) works on
 * every kernel, the builder API only where the kernel has the builder.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include <pidfdspawn.h>

int main(void)
{
	char *argv[] = { "echo", "hello from the builder", NULL };
	struct pidfdspawn_builder *b = pidfdspawn_builder_new();
	siginfo_t si;
	int pidfd;
	pid_t pid;

	if (!b) {
		perror("pidfdspawn_builder_new");
		return 1;
	}
	pidfdspawn_builder_set_path(b, "/bin/echo");
	pidfdspawn_builder_set_argv(b, argv);
	if (pidfdspawn_builder_run(b, &pid, &pidfd) < 0) {
		int err = errno;

		pidfdspawn_builder_free(b);
		if (err == ENOSYS) {
			fprintf(stderr, "builder-echo: this kernel has no pidfd "
				"spawn builder (posix_spawn() still works, "
				"through the library's fallback)\n");
			return EX_UNAVAILABLE;
		}
		if (err == EOPNOTSUPP) {
			fprintf(stderr, "builder-echo: this kernel's pidfd spawn "
				"builder cannot run this request\n");
			return EX_UNAVAILABLE;
		}
		fprintf(stderr, "builder-echo: pidfdspawn_builder_run: %s\n",
			strerror(err));
		return 1;
	}
	pidfdspawn_builder_free(b);
	if (syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) < 0) {
		perror("waitid");
		return 1;
	}
	printf("pid %d exited with %d\n", (int)pid, si.si_status);
	close(pidfd);
	return 0;
}
