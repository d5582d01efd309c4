/* SPDX-License-Identifier: MIT */
/*
 * Signals arriving during spawns: a fast interval timer and a SIGCHLD
 * handler must never make posix_spawn fail (no EINTR) and must never run
 * in the child; the caller's handlers stay installed.
 */
#include <sys/time.h>

#include "tap.h"

static volatile sig_atomic_t alarms, chld;
static pid_t parent;
static volatile sig_atomic_t handler_in_other_process;

static void on_alarm(int sig)
{
	(void)sig;
	if (getpid() != parent)
		handler_in_other_process = 1;
	alarms++;
}

static void on_chld(int sig)
{
	(void)sig;
	if (getpid() != parent)
		handler_in_other_process = 1;
	chld++;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	char *argv[] = { "helper", "0", NULL };
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int errors = 0, eintr = 0, spawns = 200, wrong = 0;
	posix_spawn_file_actions_t fa;
	struct sigaction cur;

	tap_plan(5);
	parent = getpid();
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_chld;
	sigaction(SIGCHLD, &sa, NULL);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, devnull, 1);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < spawns; i++) {
		pid_t pid;
		int err = posix_spawn(&pid, helper_path(), &fa, NULL, argv, environ);

		if (err == EINTR)
			eintr++;
		if (err || wait_status(pid) != 0)
			errors++;
		if (pidfdspawn_last_backend() !=
		    expected_backend(pidfdspawn_request_features(&fa, NULL, 0)))
			wrong++;
	}
	it = (struct itimerval){ 0 };
	setitimer(ITIMER_REAL, &it, NULL);
	diag("%d SIGALRM and %d SIGCHLD delivered during the spawns",
	     (int)alarms, (int)chld);
	ok(eintr == 0, "posix_spawn never returned EINTR (%d times)", eintr);
	ok(errors == 0, "all %d spawns succeeded under signals (%d failed)",
	   spawns, errors);
	ok(wrong == 0, "every spawn used the expected backend (%d wrong)", wrong);
	ok(!handler_in_other_process, "no handler ran outside the parent");
	ok(sigaction(SIGALRM, NULL, &cur) == 0 && cur.sa_handler == on_alarm,
	   "the caller's handlers are still installed");
	return tap_done();
}
