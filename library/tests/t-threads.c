/* SPDX-License-Identifier: MIT */
/* Concurrency: spawns from many threads at once, each checked. */
#include <pthread.h>

#include "tap.h"

#define THREADS 8
#define SPAWNS 40

struct worker {
	int index;
	int failures;
	int wrong_backend;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	for (int i = 0; i < SPAWNS; i++) {
		char code[16], *argv[] = { "helper", code, NULL };
		posix_spawn_file_actions_t fa;
		pid_t pid;
		int expect = (w->index * SPAWNS + i) % 100;

		snprintf(code, sizeof(code), "%d", expect);
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, devnull, 1);
		posix_spawn_file_actions_addclosefrom_np(&fa, 3);
		if (posix_spawn(&pid, helper_path(), &fa, NULL, argv, environ) ||
		    wait_status(pid) != expect)
			w->failures++;
		if (pidfdspawn_last_backend() !=
		    expected_backend(pidfdspawn_request_features(&fa, NULL, 0)))
			w->wrong_backend++;
		posix_spawn_file_actions_destroy(&fa);
	}
	close(devnull);
	return NULL;
}

int main(void)
{
	struct worker w[THREADS];
	pthread_t t[THREADS];
	int failures = 0, wrong = 0;

	tap_plan(3);
	helper_path();
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .index = i };
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		failures += w[i].failures;
		wrong += w[i].wrong_backend;
	}
	ok(failures == 0, "%d spawns from %d threads: every status right (%d bad)",
	   THREADS * SPAWNS, THREADS, failures);
	ok(wrong == 0, "every thread's spawns used the expected backend (%d wrong)",
	   wrong);
	ok(no_zombies(), "no child left unreaped");
	return tap_done();
}
