/* SPDX-License-Identifier: MIT */
/*
 * A sigmask attribute holding glibc's internal signals 32 and 33: glibc's
 * child sets its mask with its own sigprocmask, which filters them out, so
 * the new program starts with them unblocked; an ordinary signal of the
 * same set stays blocked.  Both backends (SigBlk in /proc/self/status).
 */
#include <signal.h>

#include "tap.h"

static void one(const char *mode)
{
	char *argv[] = { "grep", "SigBlk", "/proc/self/status", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	unsigned long long blk = 0;
	char out[256];
	int err, status = -1;
	sigset_t set;

	setenv("PIDFDSPAWN_BACKEND", mode, 1);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	/* sigaddset() refuses 32 and 33: set the bits of the first word. */
	((unsigned long *)&set)[0] |= 1UL << 31;
	if (sizeof(unsigned long) == 8)
		((unsigned long *)&set)[0] |= 1UL << 32 % (8 * sizeof(long));
	else
		((unsigned long *)&set)[1] |= 1UL;
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setsigmask(&at, &set);
	capture_init(&fa);
	err = spawn_capture("/bin/grep", 0, &fa, &at, argv, environ, out,
			    sizeof(out), &status);
	if (sscanf(out, "SigBlk: %llx", &blk) != 1)
		diag("%s: grep said: %s", mode, out);
	ok(err == 0 && status == 0, "%s: spawned (err %d, status %d)", mode, err, status);
	ok(!(blk & (3ULL << 31)), "%s: signals 32 and 33 are not blocked in the child (SigBlk %016llx)",
	   mode, blk);
	ok(blk & (1ULL << (SIGUSR1 - 1)), "%s: SIGUSR1 is blocked in the child", mode);
	posix_spawnattr_destroy(&at);
}

int main(void)
{
	tap_plan(6);
	one("fallback");
	one("auto");
	return tap_done();
}
