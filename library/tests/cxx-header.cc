// SPDX-License-Identifier: MIT
// <pidfdspawn.h> as a C++ program sees it (built as t-cxx11 and t-cxx17
// with -Wall -Wextra -Werror): it must compile with this C library's
// <spawn.h>, and the declarations must be usable as declared.
#include <pidfdspawn.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int n, failed;

static void ok(bool cond, const char *what)
{
	std::printf("%s %d - C++%ld: %s\n", cond ? "ok" : "not ok", ++n,
		    __cplusplus / 100 % 100, what);
	if (!cond)
		failed++;
}

static int status_of(pid_t pid)
{
	int st = -1;

	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main()
{
	char sh[] = "sh", c[] = "-c", code[] = "exit 3";
	char *argv[] = { sh, c, code, nullptr };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	pid_t pid = -1;
	int pidfd = -1, err;

	std::printf("TAP version 13\n1..4\n");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawn_file_actions_addchdir_np(&fa, "/");
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
	err = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
	ok(err == 0 && status_of(pid) == 3, "posix_spawn with actions and attributes");
	err = pidfd_spawnp(&pidfd, "sh", &fa, nullptr, argv, environ);
	ok(err == 0 && pidfd >= 0, "pidfd_spawnp gives a pidfd");
	if (pidfd >= 0)
		close(pidfd);
	while (waitpid(-1, nullptr, 0) > 0)
		;
	int cg = -1;
	ok(posix_spawnattr_setcgroup_np(&attr, 5) == 0 &&
	   posix_spawnattr_getcgroup_np(&attr, &cg) == 0 && cg == 5,
	   "posix_spawnattr_[sg]etcgroup_np");
	ok(pidfdspawn_backend_name(pidfdspawn_last_backend()) != nullptr &&
	   pidfdspawn_feature_name(PIDFDSPAWN_FEAT_DUP2) != nullptr,
	   "introspection");
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return failed ? 1 : 0;
}
