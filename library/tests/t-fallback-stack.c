/* SPDX-License-Identifier: MIT */
/*
 * The fallback maps its child's stack once per process, not once per
 * spawn (glibc maps and unmaps one per call): after a first spawn, spawns
 * still succeed when every mmap(MAP_STACK) fails.  Also with spawns from
 * several threads at once, which map extra stacks while the spare one is
 * in use and must give them back.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "tap.h"
#include "seccomp.h"

static int spawn_true(void)
{
	char *argv[] = { "true", NULL };
	int status = -1, err;
	pid_t pid;

	err = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
	if (err)
		return err;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	return pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_FALLBACK ? 0 : -2;
}

static void *spawner(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < 20; i++)
		bad += spawn_true() != 0;
	return (void *)bad;
}

int main(void)
{
	static const struct pfs_rule no_stacks[] = {
		{ __NR_mmap, PFS_RET_ERRNO(ENOMEM), 3, MAP_STACK },
	};
	pthread_t t[4];
	long bad = 0;
	void *p;
	int err;

	tap_plan(5);
	setenv("PIDFDSPAWN_BACKEND", "fallback", 1);
	err = spawn_true();
	ok(err == 0, "a first spawn through the fallback (%d)", err);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, spawner, NULL);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], &p);
		bad += (long)p;
	}
	ok(bad == 0, "80 spawns from 4 threads at once (%ld failed)", bad);

	if (pfs_seccomp(no_stacks, 1) < 0) {
		printf("Bail out! seccomp: %s\n", strerror(errno));
		return 1;
	}
	p = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	ok(p == MAP_FAILED && errno == ENOMEM,
	   "the filter fails mmap(MAP_STACK) with ENOMEM");
	err = spawn_true();
	ok(err == 0, "a spawn needs no new stack mapping (%d: %s)", err,
	   err > 0 ? strerror(err) : "-");
	bad = 0;
	for (int i = 0; i < 10; i++)
		bad += spawn_true() != 0;
	ok(bad == 0, "nor do 10 more (%ld failed)", bad);
	return tap_done();
}
