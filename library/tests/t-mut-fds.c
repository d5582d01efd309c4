/* SPDX-License-Identifier: MIT */
/*
 * Descriptor boundaries: addclosefrom_np(N) closes N itself, also where
 * close_range() answers ENOSYS and the fallback walks /proc/self/fd; and
 * the add functions take fds up to RLIMIT_NOFILE - 1 and refuse the limit
 * itself with EBADF (glibc's __spawn_valid_fd).
 */
#include "tap.h"
#include "seccomp.h"

/* Whether @fd is in the helper's "fds=0,1,2,..." list. */
static int listed(const char *list, int fd)
{
	char want[16], padded[1024];

	snprintf(want, sizeof(want), ",%d,", fd);
	snprintf(padded, sizeof(padded), ",%s,", list);
	return strstr(padded, want) != NULL;
}

/*
 * In a forked process (close_range() made ENOSYS when @no_close_range,
 * the fallback forced): fds @from and @from + 1 open without FD_CLOEXEC,
 * closefrom(@from); report the child's fd list.
 */
static void closefrom_case(const char *what, int no_close_range, int from)
{
	static const struct pfs_rule rules[] = {
		{ SYS_close_range, PFS_RET_ERRNO(ENOSYS), -1, 0 },
	};
	char line[1024] = "", out[8192], buf[1024];
	int p[2], status = -1, err = -1;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "helper", NULL };
		posix_spawn_file_actions_t fa;

		close(p[0]);
		/* Out of the way of @from and @from + 1. */
		if (dup3(p[1], 200, O_CLOEXEC) != 200)
			_exit(2);
		close(p[1]);
		p[1] = 200;
		unsetenv("PIDFDSPAWN_TRACE_FD");	/* a wanted fallback */
		setenv("PIDFDSPAWN_BACKEND", "fallback", 1);
		if (dup2(2, from) < 0 || dup2(2, from + 1) < 0)
			_exit(2);
		if (no_close_range && pfs_seccomp(rules, 1) < 0)
			_exit(3);
		capture_init(&fa);
		posix_spawn_file_actions_addclosefrom_np(&fa, from);
		err = spawn_capture(helper_path(), 0, &fa, NULL, argv, environ,
				    out, sizeof(out), &status);
		dprintf(p[1], "%d %d %s\n", err, status,
			report_get(out, "fds", buf, sizeof(buf)));
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	close(p[0]);
	wait_status(pid);
	if (sscanf(line, "%d %d %1000s", &err, &status, buf) != 3)
		buf[0] = '\0';
	ok(err == 0 && status == 0 && buf[0] && !listed(buf, from) &&
	   !listed(buf, from + 1),
	   "%s: closefrom(%d) closes %d and %d (child: %s)", what, from, from,
	   from + 1, line);
}

static void limits(void)
{
	posix_spawn_file_actions_t fa;
	int max = getdtablesize();

	posix_spawn_file_actions_init(&fa);
	ok(posix_spawn_file_actions_addclose(&fa, max) == EBADF &&
	   posix_spawn_file_actions_adddup2(&fa, 0, max) == EBADF &&
	   posix_spawn_file_actions_adddup2(&fa, max, 0) == EBADF &&
	   posix_spawn_file_actions_addopen(&fa, max, "/dev/null", O_RDONLY, 0) == EBADF &&
	   posix_spawn_file_actions_addclosefrom_np(&fa, max) == EBADF,
	   "fd %d (RLIMIT_NOFILE) is EBADF for addclose, adddup2, addopen, addclosefrom_np",
	   max);
	ok(posix_spawn_file_actions_addclose(&fa, max - 1) == 0 &&
	   posix_spawn_file_actions_adddup2(&fa, 0, max - 1) == 0 &&
	   posix_spawn_file_actions_addopen(&fa, max - 1, "/dev/null", O_RDONLY, 0) == 0 &&
	   posix_spawn_file_actions_addclosefrom_np(&fa, max - 1) == 0,
	   "fd %d (RLIMIT_NOFILE - 1) is accepted", max - 1);
	posix_spawn_file_actions_destroy(&fa);
}

int main(void)
{
	tap_plan(5);
	closefrom_case("close_range()", 0, 20);
	closefrom_case("close_range() ENOSYS, /proc walk", 1, 20);
	closefrom_case("close_range() ENOSYS, /proc walk, from 3", 1, 3);
	limits();
	return tap_done();
}
