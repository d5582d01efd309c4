/* SPDX-License-Identifier: MIT */
/*
 * Child program of the tests: reports its process state on stdout as
 * key=value lines, then exits with the status given as argv[1] (0 if none).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Without /proc: ask every fd below the limit (fdsrc= says which). */
static void report_fds_by_fcntl(void)
{
	int first = 1, count = 0, max = getdtablesize();
	char list[65536] = "";

	for (int fd = 0; fd < max; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		count++;
		if (strlen(list) < sizeof(list) - 16) {
			sprintf(list + strlen(list), "%s%d", first ? "" : ",", fd);
			first = 0;
		}
	}
	printf("fds=%s\nnfds=%d\nfdsrc=fcntl\n", list, count);
}

static void report_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int self, first = 1, count = 0;
	struct dirent *e;
	char list[65536] = "";

	if (!d) {
		report_fds_by_fcntl();
		return;
	}
	self = dirfd(d);
	while ((e = readdir(d))) {
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd == self)
			continue;
		count++;
		if (strlen(list) < sizeof(list) - 16) {
			sprintf(list + strlen(list), "%s%d", first ? "" : ",", fd);
			first = 0;
		}
	}
	closedir(d);
	printf("fds=%s\nnfds=%d\nfdsrc=proc\n", list, count);
}

static unsigned long long set_bits(const sigset_t *set)
{
	unsigned long long bits = 0;

	for (int sig = 1; sig < 64; sig++)
		if (sigismember(set, sig) == 1)
			bits |= 1ULL << sig;
	return bits;
}

/* tpgid (field 8 of /proc/self/stat): the foreground group of our tty. */
static void report_tpgid(void)
{
	char buf[1024], *p;
	FILE *f = fopen("/proc/self/stat", "r");
	int tpgid = 0;

	if (f && fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 1, " %*c %*d %*d %*d %*d %d", &tpgid);
	if (f)
		fclose(f);
	printf("tpgid=%d\n", tpgid);
}

/* The cgroup v2 path ("0::/path" in /proc/self/cgroup). */
static void report_cgroup(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0)
			printf("cgroup=%s", line + 3);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	char cwd[4096];
	sigset_t mask, ign;
	struct sigaction sa;

	report_fds();
	if (getcwd(cwd, sizeof(cwd)))
		printf("cwd=%s\n", cwd);
	sigprocmask(SIG_SETMASK, NULL, &mask);
	sigemptyset(&ign);
	for (int sig = 1; sig < 64; sig++)
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigaddset(&ign, sig);
	printf("sigmask=%llx\nsigign=%llx\n", set_bits(&mask), set_bits(&ign));
	printf("pid=%d\npgid=%d\nsid=%d\n", getpid(), getpgid(0), getsid(0));
	printf("uid=%d\neuid=%d\ngid=%d\negid=%d\n", getuid(), geteuid(),
	       getgid(), getegid());
	printf("policy=%d\n", sched_getscheduler(0));
	sched_getparam(0, &sp);
	printf("priority=%d\n", sp.sched_priority);
	report_tpgid();
	report_cgroup();
	printf("argc=%d\nargv0=%s\n", argc, argv[0]);
	printf("env_FOO=%s\n", getenv("FOO") ? getenv("FOO") : "(unset)");
	fflush(stdout);
	return argc > 1 ? atoi(argv[1]) : 0;
}
