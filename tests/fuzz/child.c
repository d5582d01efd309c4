/* SPDX-License-Identifier: MIT */
/*
 * fuzz-child: the program every fuzzed request runs.  It reports its whole
 * state as text to the file named by $FUZZ_REPORT (absolute path, created
 * 0666), then exits 0 (3 when the report could not be written).  The state
 * is collected before the report file is opened, so the report's own fd
 * never shows.  Values that name this process (pgid, sid, the terminal's
 * foreground group) are printed as "self" when they equal our pid; every
 * other number is the same for two children of the same parent.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;

static char *buf;
static size_t len, cap;

static void out(const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(buf + len, cap - len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < cap - len)
			break;
		cap = cap * 2 + (size_t)n + 4096;
		buf = realloc(buf, cap);
		if (!buf)
			_exit(4);
	}
	len += (size_t)n;
}

/* A string with every byte outside printable ASCII as \xNN. */
static void out_str(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			out("\\x%02x", c);
		else
			out("%c", c);
	}
}

static void out_id(const char *key, pid_t v)
{
	if (v == getpid())
		out("%s self\n", key);
	else if (v < 0)
		out("%s err %d\n", key, errno);
	else
		out("%s %d\n", key, (int)v);
}

static void one_fd(int fd)
{
	char path[64], target[PATH_MAX + 1];
	struct stat st;
	ssize_t n;
	int fdfl, fl;
	off_t off;

	fdfl = fcntl(fd, F_GETFD);
	if (fdfl < 0)
		return;
	fl = fcntl(fd, F_GETFL);
	errno = 0;
	off = lseek(fd, 0, SEEK_CUR);
	out("fd %d fdflags %d flags 0%o ", fd, fdfl, fl);
	if (off < 0)
		out("off err%d ", errno);
	else
		out("off %lld ", (long long)off);
	if (fstat(fd, &st) == 0)
		out("mode 0%o rdev %u:%u ", (unsigned)st.st_mode,
		    major(st.st_rdev), minor(st.st_rdev));
	out("tty %d -> ", isatty(fd));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		out("err%d\n", errno);
		return;
	}
	target[n] = 0;
	out_str(target);
	out("\n");
}

static void fds(void)
{
	char dbuf[4096];
	int dfd, fd, max = 0, *list = NULL, nr = 0, i, j;

	dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		/* EMFILE: the table is full; probe the numbers one by one. */
		out("fdscan probe err%d\n", errno);
		for (fd = 0; fd < 4096; fd++)
			one_fd(fd);
		return;
	}
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, dbuf, sizeof(dbuf));
		long pos = 0;

		if (n <= 0)
			break;
		while (pos < n) {
			unsigned short reclen = *(unsigned short *)(dbuf + pos + 16);
			const char *name = dbuf + pos + 19;

			if (name[0] != '.') {
				fd = atoi(name);
				if (fd != dfd) {
					if (nr == max) {
						max = max * 2 + 64;
						list = realloc(list, max * sizeof(*list));
					}
					list[nr++] = fd;
				}
			}
			pos += reclen;
		}
	}
	close(dfd);
	for (i = 1; i < nr; i++)	/* insertion sort: small lists */
		for (j = i; j > 0 && list[j - 1] > list[j]; j--) {
			int t = list[j];

			list[j] = list[j - 1];
			list[j - 1] = t;
		}
	for (i = 0; i < nr; i++)
		one_fd(list[i]);
	free(list);
}

static void file(const char *key, const char *path, const char *only)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f) {
		out("%s err%d\n", key, errno);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (only) {
			char *colon = strchr(line, ':');

			if (!colon)
				continue;
			*colon = 0;
			if (!strstr(only, line))
				continue;
			*colon = ':';
		}
		out("%s ", key);
		line[strcspn(line, "\n")] = 0;
		out_str(line);
		out("\n");
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *report = getenv("FUZZ_REPORT");
	struct sched_param sp;
	uid_t r, e, s;
	gid_t gr, ge, gs, groups[64];
	sigset_t set;
	char cwd[PATH_MAX + 1];
	int i, n, fd, tty;
	mode_t um;

	fds();		/* first: nothing of ours is open yet */
	out("argc %d\n", argc);
	for (i = 0; i < argc; i++) {
		out("argv ");
		out_str(argv[i]);
		out("\n");
	}
	for (i = 0; environ[i]; i++) {
		out("env ");
		out_str(environ[i]);
		out("\n");
	}
	out("execfn ");
	out_str((const char *)getauxval(AT_EXECFN));
	out("\n");
	if (getcwd(cwd, sizeof(cwd))) {
		out("cwd ");
		out_str(cwd);
		out("\n");
	} else {
		out("cwd err%d\n", errno);
	}
	out_id("pgid", getpgrp());
	out_id("sid", getsid(0));
	tty = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (tty < 0) {
		out("ctty err%d\n", errno);
	} else {
		out_id("ctty-fg", tcgetpgrp(tty));
		close(tty);
	}
	getresuid(&r, &e, &s);
	getresgid(&gr, &ge, &gs);
	out("uids %u %u %u gids %u %u %u groups", r, e, s, gr, ge, gs);
	n = getgroups(64, groups);
	for (i = 0; i < n; i++)
		out(" %u", groups[i]);
	out("\n");
	um = umask(0);
	out("umask 0%o\n", (unsigned)um);
	sigprocmask(SIG_SETMASK, NULL, &set);
	out("sigmask");
	for (i = 1; i < 65; i++)
		if (sigismember(&set, i) == 1)
			out(" %d", i);
	out("\n");
	sigpending(&set);
	out("sigpending");
	for (i = 1; i < 65; i++)
		if (sigismember(&set, i) == 1)
			out(" %d", i);
	out("\n");
	/* Dispositions through the raw call: glibc hides 32 and 33. */
	out("sigdisp ");
	for (i = 1; i < 65; i++) {
		struct { unsigned long h, f, r, m; } ka;

		if (syscall(SYS_rt_sigaction, i, NULL, &ka, 8) != 0)
			out("E");
		else if (ka.h == (unsigned long)SIG_DFL)
			out("D");
		else if (ka.h == (unsigned long)SIG_IGN)
			out("I");
		else
			out("H");
	}
	out("\n");
	i = sched_getscheduler(0);
	out("sched policy %d", i);
	if (sched_getparam(0, &sp) == 0)
		out(" prio %d", sp.sched_priority);
	errno = 0;
	i = getpriority(PRIO_PROCESS, 0);
	out(" nice %d\n", errno ? -1000 : i);
	file("cgroup", "/proc/self/cgroup", NULL);
	file("status", "/proc/self/status",
	     "CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs Seccomp SigIgn SigBlk SigPnd ShdPnd");

	if (!report)
		return 3;
	fd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EMFILE) {
		syscall(SYS_close_range, 3, ~0U, 0);
		fd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	}
	if (fd < 0)
		return 3;
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, buf + done, len - done);

		if (w <= 0)
			return 3;
		done += (size_t)w;
	}
	return close(fd) ? 3 : 0;
}
