/* SPDX-License-Identifier: MIT */
/*
 * Child program of the tests: reports its process state on stdout as
 * key=value lines, then exits with the status given as argv[1] (0 if none).
 */
#include <dirent.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void report_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int self = dirfd(d), first = 1, count = 0;
	struct dirent *e;
	char list[65536] = "";

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
	printf("fds=%s\nnfds=%d\n", list, count);
}

static unsigned long long set_bits(const sigset_t *set)
{
	unsigned long long bits = 0;

	for (int sig = 1; sig < 64; sig++)
		if (sigismember(set, sig) == 1)
			bits |= 1ULL << sig;
	return bits;
}

int main(int argc, char **argv)
{
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
	printf("argc=%d\nargv0=%s\n", argc, argv[0]);
	printf("env_FOO=%s\n", getenv("FOO") ? getenv("FOO") : "(unset)");
	fflush(stdout);
	return argc > 1 ? atoi(argv[1]) : 0;
}
