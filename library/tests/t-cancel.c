/* SPDX-License-Identifier: MIT */
/*
 * posix_spawn is not a cancellation point (glibc disables cancellation
 * around the whole spawn): a thread with a cancellation pending gets its
 * child's pid back and is cancelled only at the next cancellation point.
 * PIDFDSPAWN_TRACE_FD makes the library write() after the child exists,
 * a cancellation point that must not act there.
 */
#include <pthread.h>

#include "tap.h"

static pid_t spawned = -1;
static int spawn_err = -1;
static int use_pidfd;

static void *spawner(void *arg)
{
	static char *argv[] = { "true", NULL };
	pid_t pid = -1;
	int pidfd = -1;

	(void)arg;
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, NULL);
	pthread_cancel(pthread_self());		/* pending from now on */
	if (use_pidfd) {
		spawn_err = pidfd_spawn(&pidfd, "/bin/true", NULL, NULL, argv,
					environ);
		if (!spawn_err) {
			spawned = 0;	/* the pidfd is what we keep */
			close(pidfd);	/* a cancellation point: acts here */
		}
		return NULL;
	} else {
		spawn_err = posix_spawn(&pid, "/bin/true", NULL, NULL, argv,
					environ);
	}
	spawned = pid;
	pthread_testcancel();
	return NULL;
}

static void one(const char *how, int traced, int pidfd)
{
	pthread_t t;
	void *res = NULL;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), children = 0;
	char num[16];

	snprintf(num, sizeof(num), "%d", devnull);
	if (traced)
		setenv("PIDFDSPAWN_TRACE_FD", num, 1);
	else
		unsetenv("PIDFDSPAWN_TRACE_FD");
	spawned = -1;
	spawn_err = -1;
	use_pidfd = pidfd;
	pthread_create(&t, NULL, spawner, NULL);
	pthread_join(t, &res);
	while (waitpid(-1, NULL, 0) > 0)
		children++;
	ok(res == PTHREAD_CANCELED && spawn_err == 0 && spawned >= 0 &&
	   children == 1,
	   "%s%s with a cancellation pending: returns %d with the child "
	   "(pid %d), cancelled after (%s), %d child", how,
	   traced ? " (traced)" : "", spawn_err, (int)spawned,
	   res == PTHREAD_CANCELED ? "yes" : "no", children);
	close(devnull);
}

int main(void)
{
	tap_plan(4);
	one("posix_spawn", 0, 0);
	one("posix_spawn", 1, 0);
	one("pidfd_spawn", 0, 1);
	one("pidfd_spawn", 1, 1);
	return tap_done();
}
