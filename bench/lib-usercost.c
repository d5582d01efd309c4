/*
 * lib-usercost: the user-space cost of libpidfdspawn's posix_spawn() through the builder
 * backend, on any kernel (docs/benchmarks.md, "Library overhead per spawn").  This program
 * defines syscall(), so the library's (linked statically) pidfd_open(0, PIDFD_EMPTY),
 * pidfd_config() and pidfd_spawn_run() reach a fake kernel here that answers at once: the
 * probe learns "a builder", pidfd_open returns fd 1023 (not open) and the run returns a
 * made-up pid.  The library's close() of fd 1023 is a real system call (EBADF).
 *
 *   lib-usercost [N]
 *
 * Times N (default 1,000,000) calls of each, interleaved in blocks of 1000, and prints the
 * medians of the blocks in ns per call:
 *   raw      syscall(pidfd_open) + syscall(pidfd_spawn_run) + close(1023), as the raw
 *            method and the library do them;
 *   library  posix_spawn(&pid, "/bin/true", NULL, NULL, argv, envp), PIDFDSPAWN_BACKEND=builder.
 * The difference is what the library's own code (request translation, backend choice,
 * cancellation state, probe cache) costs per call, without any kernel work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pidfdspawn.h"

#define FAKE_FD 1023
#define FAKE_PID 4242
#define BLOCK 1000

static long fail(int e)
{
	errno = e;
	return -1;
}

long syscall(long nr, ...)
{
	long a[5];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 5; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	switch (nr) {
	case 434:	/* pidfd_open(0, PIDFD_EMPTY) */
		return FAKE_FD;
	case 472:	/* pidfd_config: QUERY names a builder without keys */
		if ((int)a[0] == -1 && (unsigned int)a[1] == PIDFDSPAWN_CONFIG_QUERY &&
		    !a[2] && a[3]) {
			struct pidfdspawn_features f = {
				.run_size = PIDFDSPAWN_RUN_SIZE_VER0,
				.actions = 1u << PIDFDSPAWN_ACTION_CLOSE_RANGE,
			};

			memcpy((void *)a[3], &f, sizeof(f));
			return 0;
		}
		return fail(EINVAL);
	case 473:	/* pidfd_spawn_run */
		return FAKE_PID;
	}
	return fail(ENOSYS);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
	char *child_argv[] = { "true", NULL }, *child_env[] = { NULL };
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000, blocks = n / BLOCK;
	double *raw, *lib;
	pid_t pid;

	if (blocks < 1)
		blocks = 1;
	raw = calloc((size_t)blocks, sizeof(*raw));
	lib = calloc((size_t)blocks, sizeof(*lib));
	setenv("PIDFDSPAWN_BACKEND", "builder", 1);
	if (posix_spawn(&pid, "/bin/true", NULL, NULL, child_argv, child_env) ||
	    pid != FAKE_PID || pidfdspawn_last_backend() != PIDFDSPAWN_BACKEND_BUILDER) {
		fprintf(stderr, "lib-usercost: the library did not use the fake builder "
			"(backend %s, probe 0x%x)\n",
			pidfdspawn_backend_name(pidfdspawn_last_backend()), pidfdspawn_probe());
		return 1;
	}
	for (long b = 0; b < blocks; b++) {
		struct pidfdspawn_run_args args = {
			.path = (uintptr_t)"/bin/true",
			.argv = (uintptr_t)child_argv,
			.envp = (uintptr_t)child_env,
		};
		int64_t t0 = now_ns(), t1, t2;

		for (int i = 0; i < BLOCK; i++) {
			int fd = (int)syscall(434, 0, PIDFD_EMPTY);

			pid = (pid_t)syscall(473, fd, &args, sizeof(args));
			close(fd);
		}
		t1 = now_ns();
		for (int i = 0; i < BLOCK; i++)
			posix_spawn(&pid, "/bin/true", NULL, NULL, child_argv, child_env);
		t2 = now_ns();
		raw[b] = (double)(t1 - t0) / BLOCK;
		lib[b] = (double)(t2 - t1) / BLOCK;
	}
	qsort(raw, (size_t)blocks, sizeof(*raw), cmp);
	qsort(lib, (size_t)blocks, sizeof(*lib), cmp);
	printf("raw\t%.1f ns/call\nlibrary\t%.1f ns/call\nlibrary - raw\t%.1f ns/call "
	       "(medians of %ld blocks of %d)\n", raw[blocks / 2], lib[blocks / 2],
	       lib[blocks / 2] - raw[blocks / 2], blocks, BLOCK);
	return 0;
}
