// SPDX-License-Identifier: GPL-2.0
/*
 * spawn-demo: show what a pidfd spawn builder is, checking every step.
 *
 * A taskless fd from pidfd_open(0, PIDFD_EMPTY) is configured and run; the same fd then
 * is the child's pidfd.  Then the part beyond the RFC: the feature query, and a child set
 * up with posix_spawn's attributes, OPEN and CHDIR actions, a PATH search and
 * default-deny descriptor inheritance.  Each step prints "ok" or "FAIL" and what was seen; the program
 * exits 1 when any step misbehaves, 0 when all of them did what the series promises.
 * Built against the patched kernel's UAPI headers (build/linux/out-test/usr/include).
 * <linux/pidfd.h> brings the kernel's fcntl definitions, which clash with glibc's
 * <fcntl.h>; so the directory is opened with opendir() and O_CLOEXEC comes from the former.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/pidfd.h>
#include <linux/pidfd_spawn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_DIR "/usr/share"	/* FCHDIR target: any directory that is not our cwd */
#define SENTINEL_FD 40		/* open here, closed in the child by CLOSE_RANGE */
#define CHILD_STATUS 3		/* the child's own exit status */

static int failures;

/* check: print one step's outcome; a false @ok makes the demo fail. */
static bool check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("  %-4s ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		failures++;
	return ok;
}

static int builder_open(void)
{
	return syscall(SYS_pidfd_open, 0, PIDFD_EMPTY);
}

static int builder_set_path(int fd, const char *path)
{
	return syscall(__NR_pidfd_config, fd, PIDFD_CONFIG_SET_STRING, PIDFD_CONFIG_KEY_PATH, path, 0);
}

static int builder_run(int fd, char **argv, const struct pidfd_spawn_action *actions, unsigned int n)
{
	struct pidfd_spawn_run_args args = {
		.argv = (uintptr_t)argv,
		.envp = (uintptr_t)environ,
		.actions = (uintptr_t)actions,
		.nr_actions = n,
		.action_size = n ? sizeof(*actions) : 0,	/* no actions: all three 0 */
	};

	return syscall(__NR_pidfd_spawn_run, fd, &args, sizeof(args));
}

/* errno of a call that is expected to fail, 0 if it succeeded. */
static int error_of(long ret)
{
	return ret < 0 ? errno : 0;
}

static int get_info(int fd, __u64 mask, struct pidfd_info *info)
{
	memset(info, 0, sizeof(*info));
	info->mask = mask;
	return ioctl(fd, PIDFD_GET_INFO, info);
}

static ino_t inode_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/* Read the child's output until it closes the pipe. */
static void read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
}

/* The value of "key=" in the child's output, or "" (points into @out, up to the newline). */
static const char *field(const char *out, const char *key, char *val, size_t size)
{
	const char *p = strstr(out, key);
	size_t n = 0;

	if (p) {
		p += strlen(key);
		while (p[n] && p[n] != '\n' && n < size - 1)
			n++;
	}
	snprintf(val, size, "%.*s", (int)n, p ? p : "");
	return val;
}

/* Steps 1-2: a builder has no task; process operations fail with ESRCH. */
static int show_taskless(ino_t *ino)
{
	struct pidfd_info info;
	int fd = builder_open();

	if (!check(fd >= 0, "pidfd_open(0, PIDFD_EMPTY) returned builder fd %d%s%s", fd,
		   fd < 0 ? ": " : "", fd < 0 ? strerror(errno) : ""))
		return -1;
	*ino = inode_of(fd);
	check(error_of(syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0)) == ESRCH &&
	      error_of(get_info(fd, PIDFD_INFO_PID, &info)) == ESRCH,
	      "no task behind it yet: pidfd_send_signal() and PIDFD_GET_INFO fail with ESRCH");
	return fd;
}

/* Steps 3-9: run /bin/sh with DUP2, FCHDIR and CLOSE_RANGE; the fd becomes its pidfd. */
static void show_run(int fd, ino_t ino)
{
	char script[256], out[1024], val[128], want[32];
	char *argv[] = { "sh", "-c", script, NULL };
	int p[2], dir, sentinel, pid, again, opened;
	siginfo_t si = { 0 };
	DIR *dirp = opendir(CHILD_DIR);

	snprintf(script, sizeof(script),
		 "echo \"ppid=$PPID\"; echo \"cwd=$(pwd)\"; "
		 "if [ -e /proc/self/fd/%d ]; then echo fd=open; else echo fd=closed; fi; exit %d",
		 SENTINEL_FD, CHILD_STATUS);
	dir = dirp ? dirfd(dirp) : -1;
	sentinel = dup2(STDERR_FILENO, SENTINEL_FD);
	if (pipe2(p, O_CLOEXEC) || dir < 0 || sentinel < 0 || builder_set_path(fd, "/bin/sh")) {
		check(false, "setting up the run: %s", strerror(errno));
		if (dirp)
			closedir(dirp);
		return;
	}
	struct pidfd_spawn_action actions[] = {
		/* the write end of the pipe becomes the child's stdout */
		{ .type = PIDFD_SPAWN_ACTION_DUP2, .fd = p[1], .newfd = STDOUT_FILENO },
		{ .type = PIDFD_SPAWN_ACTION_FCHDIR, .fd = dir },
		/* everything above stderr goes, the sentinel included */
		{ .type = PIDFD_SPAWN_ACTION_CLOSE_RANGE, .fd = 3, .newfd = ~0U },
	};

	pid = builder_run(fd, argv, actions, 3);
	if (!check(pid > 0, "pidfd_spawn_run() started /bin/sh as pid %d%s%s", pid,
		   pid < 0 ? ": " : "", pid < 0 ? strerror(errno) : ""))
		return;
	close(p[1]);
	check(inode_of(fd) == ino, "the fd kept its pidfs inode %lu now that it has a task",
	      (unsigned long)ino);
	opened = syscall(SYS_pidfd_open, pid, 0);
	check(opened >= 0 && inode_of(opened) == ino,
	      "pidfd_open(%d, 0) gives the same inode: it is the child's pidfd", pid);
	if (opened >= 0)
		close(opened);

	read_all(p[0], out, sizeof(out));
	check(strstr(out, "ppid=") != NULL, "DUP2: the child's stdout arrived through a pipe");
	snprintf(want, sizeof(want), "%d", getpid());
	check(!strcmp(field(out, "ppid=", val, sizeof(val)), want),
	      "the child's parent is this process (pid %s, child says %s)", want, val);
	check(!strcmp(field(out, "cwd=", val, sizeof(val)), CHILD_DIR),
	      "FCHDIR: the child started in %s (child says %s)", CHILD_DIR, val);
	check(!strcmp(field(out, "fd=", val, sizeof(val)), "closed"),
	      "CLOSE_RANGE: fd %d, open here, is %s in the child", SENTINEL_FD, val);

	again = builder_run(fd, argv, NULL, 0);
	check(again < 0 && errno == EBUSY, "one-shot: a second pidfd_spawn_run() fails with %s",
	      again < 0 ? strerrorname_np(errno) : "no error");

	if (waitid(P_PIDFD, fd, &si, WEXITED))
		check(false, "waitid(P_PIDFD, builder fd): %s", strerror(errno));
	else
		check(si.si_pid == pid && si.si_code == CLD_EXITED && si.si_status == CHILD_STATUS,
		      "waitid(P_PIDFD) on the builder fd reaped pid %d: exit status %d",
		      si.si_pid, si.si_status);
	close(p[0]);
	closedir(dirp);
	close(sentinel);
}

/* Step 10: an exec failure after the task exists: the child exits 127, the fd is its pidfd. */
static void show_failed_exec(void)
{
	char *argv[] = { "missing", NULL };
	struct pidfd_info info;
	siginfo_t si = { 0 };
	int fd = builder_open(), ret, err;
	__u32 pid;

	if (fd < 0 || builder_set_path(fd, "/nonexistent/program")) {
		check(false, "a second builder: %s", strerror(errno));
		return;
	}
	ret = builder_run(fd, argv, NULL, 0);
	err = error_of(ret);
	check(ret < 0 && err == ENOENT, "exec of a missing program: pidfd_spawn_run() fails with %s",
	      err ? strerrorname_np(err) : "no error");
	ret = get_info(fd, PIDFD_INFO_PID, &info);
	if (!check(ret == 0, "yet a child exists: PIDFD_GET_INFO on the fd names pid %u", info.pid))
		return;
	pid = info.pid;
	if (waitid(P_PIDFD, fd, &si, WEXITED) || (__u32)si.si_pid != pid) {
		check(false, "waitid(P_PIDFD) for the failed child");
		return;
	}
	ret = get_info(fd, PIDFD_INFO_EXIT, &info);
	err = error_of(ret);
	if (ret || !(info.mask & PIDFD_INFO_EXIT)) {
		check(false, "PIDFD_INFO_EXIT after reaping: %s (mask %#llx)",
		      err ? strerrorname_np(err) : "not in the returned mask", (unsigned long long)info.mask);
		return;
	}
	/* Reaped, the task is gone: the fd only has its exit information left. */
	check(WIFEXITED(info.exit_code) && WEXITSTATUS(info.exit_code) == 127,
	      "PIDFD_INFO_EXIT after reaping pid %u: exit status %d", pid, WEXITSTATUS(info.exit_code));
	close(fd);
}

static int builder_config(int fd, unsigned int cmd, const char *key, const void *value, int aux)
{
	return syscall(__NR_pidfd_config, fd, cmd, key, value, aux);
}

/*
 * The rest of posix_spawn in the kernel: ask what it supports, then run "sh" found
 * through a search path, in a new session, with SIGUSR1 blocked, its stdin opened and
 * its directory changed by actions, and nothing inherited that no action placed.
 */
static void show_posix_surface(void)
{
	char script[512], out[1024], val[128], want[32];
	char *argv[] = { "sh", "-c", script, NULL };
	struct pidfd_spawn_features feat = { 0 };
	struct pidfd_spawn_action act[3] = {
		{ .type = PIDFD_SPAWN_ACTION_OPEN, .newfd = 0,
		  .path = (uintptr_t)"/dev/null", .open_flags = O_RDONLY },
		{ .type = PIDFD_SPAWN_ACTION_CHDIR, .path = (uintptr_t)CHILD_DIR },
		{ .type = PIDFD_SPAWN_ACTION_DUP2 },	/* the pipe onto stdout, below */
	};
	struct pidfd_spawn_run_args args = {
		.flags = PIDFD_SPAWN_RUN_CLOEXEC_DEFAULT,
		.argv = (uintptr_t)argv,
		.envp = (uintptr_t)environ,
		.actions = (uintptr_t)act,
		.nr_actions = 3,
		.action_size = sizeof(act[0]),
	};
	unsigned long long blocked = 1ULL << (SIGUSR1 - 1);
	siginfo_t si = { 0 };
	int p[2], fd, ret;

	ret = builder_config(-1, PIDFD_CONFIG_QUERY, NULL, &feat, sizeof(feat));
	check(ret == 0 && feat.actions == 0x7f &&
	      feat.run_flags == (PIDFD_SPAWN_RUN_CLOEXEC_DEFAULT | PIDFD_SPAWN_RUN_NOFD |
				 PIDFD_SPAWN_RUN_PIDFD),
	      "PIDFD_CONFIG_QUERY without a builder: actions %#llx, run flags %#llx, commands %#llx, "
	      "action record %u bytes", (unsigned long long)feat.actions,
	      (unsigned long long)feat.run_flags, (unsigned long long)feat.config_cmds,
	      feat.action_size);
	ret = builder_config(-1, PIDFD_CONFIG_QUERY, PIDFD_CONFIG_KEY_SETSID, NULL, 0);
	check(ret == PIDFD_CONFIG_SET_FLAG, "the key \"%s\" takes command %d (SET_FLAG)",
	      PIDFD_CONFIG_KEY_SETSID, ret);

	snprintf(script, sizeof(script),
		 "echo \"cwd=$(pwd)\"; echo \"pid=$$\"; echo \"sid=$(cut -d' ' -f6 /proc/$$/stat)\"; "
		 "echo \"sigblk=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$$/status)\"; "
		 "[ -e /proc/$$/fd/%d ] && echo leaked=yes || echo leaked=no; "
		 "echo \"stdin=$(readlink /proc/$$/fd/0)\"", SENTINEL_FD);
	if (pipe(p) || dup2(p[0], SENTINEL_FD) < 0) {
		check(false, "pipe: %s", strerror(errno));
		return;
	}
	act[2].fd = p[1];
	act[2].newfd = 1;
	fd = builder_open();
	ret = fd < 0 ? -1 : 0;
	if (!ret)
		ret = builder_config(fd, PIDFD_CONFIG_SET_STRING, PIDFD_CONFIG_KEY_PATH, "sh", 0);
	if (!ret)
		ret = builder_config(fd, PIDFD_CONFIG_SET_STRING, PIDFD_CONFIG_KEY_SEARCH_PATH,
				     "/nonexistent:/usr/bin:/bin", 0);
	if (!ret)
		ret = builder_config(fd, PIDFD_CONFIG_SET_FLAG, PIDFD_CONFIG_KEY_SETSID, NULL, 0);
	if (!ret)
		ret = builder_config(fd, PIDFD_CONFIG_SET_BINARY, PIDFD_CONFIG_KEY_SIGMASK,
				     &blocked, sizeof(blocked));
	if (!check(ret == 0, "configured: path \"sh\", search path, setsid, sigmask {SIGUSR1}%s%s",
		   ret ? ": " : "", ret ? strerror(errno) : ""))
		goto out;
	ret = syscall(__NR_pidfd_spawn_run, fd, &args, sizeof(args));
	close(p[1]);
	p[1] = -1;
	if (!check(ret > 0, "pidfd_spawn_run(CLOEXEC_DEFAULT) with OPEN, CHDIR and DUP2: pid %d%s%s",
		   ret, ret < 0 ? ": " : "", ret < 0 ? strerror(errno) : ""))
		goto out;
	read_all(p[0], out, sizeof(out));
	snprintf(want, sizeof(want), "%d", ret);
	check(!strcmp(field(out, "pid=", val, sizeof(val)), want),
	      "\"sh\" found through the search path runs as pid %s", val);
	check(!strcmp(field(out, "sid=", val, sizeof(val)), want),
	      "setsid: it leads session %s", val);
	check(!strcmp(field(out, "sigblk=", val, sizeof(val)), "0000000000000200"),
	      "sigmask: its blocked set is %s (SIGUSR1)", val);
	check(!strcmp(field(out, "cwd=", val, sizeof(val)), CHILD_DIR),
	      "CHDIR action: its working directory is %s", val);
	check(!strcmp(field(out, "stdin=", val, sizeof(val)), "/dev/null"),
	      "OPEN action: its stdin is %s", val);
	check(!strcmp(field(out, "leaked=", val, sizeof(val)), "no"),
	      "CLOEXEC_DEFAULT: our inheritable fd %d did not reach it (leaked=%s)", SENTINEL_FD, val);
	check(!waitid(P_PIDFD, fd, &si, WEXITED) && si.si_code == CLD_EXITED && si.si_status == 0,
	      "waitid(P_PIDFD): exit status %d", si.si_status);
out:
	if (p[1] >= 0)
		close(p[1]);
	close(p[0]);
	close(SENTINEL_FD);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	ino_t ino = 0;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("A builder: a pidfd with no task, configured, then run\n");
	fd = show_taskless(&ino);
	if (fd >= 0) {
		show_run(fd, ino);
		close(fd);
	}
	printf("A failed exec\n");
	show_failed_exec();
	printf("The rest of posix_spawn, in the kernel\n");
	show_posix_surface();
	printf("%s: %d step%s misbehaved\n", failures ? "FAILED" : "all steps behaved", failures,
	       failures == 1 ? "" : "s");
	return failures ? 1 : 0;
}
