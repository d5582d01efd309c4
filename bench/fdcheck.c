/*
 * bench-fdcheck: the child spawnbench starts once per method after the samples, untimed,
 * to check the fds that method gave the child.  Like bench-child it first writes its
 * CLOCK_MONOTONIC_RAW reading to fd 1 (the parent reads it the same way), then it polls
 * every fd below RLIMIT_NOFILE (at most the first 131072) and exits 0 when fds 0-2 are
 * open and exactly argv[1] fds are open in all (default 3: only 0-2), and, with argv[2]
 * "fd1-nonblock" or "fd1-block", when fd 1's open file has O_NONBLOCK set or not (the
 * everyday request puts spawnbench's O_NONBLOCK pipe there).  Otherwise it writes one
 * line to fd 2 and exits 5 (one of 0-2 is closed), 6 (another count), 7 (fd 1's
 * O_NONBLOCK) or 4 (it could not look).  No libc, like bench-child.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

#include "rawsys.h"

#define MAX_FDS (1L << 17)

static struct pollfd polled[MAX_FDS];

static void say(const char *s, long n)
{
	raw_syscall3(SYS_write, 2, (long)s, n);
}

#define SAY(literal) say(literal, sizeof(literal) - 1)

static void say_number(long value)
{
	char digits[24], *end = digits + sizeof(digits), *p = end;

	do
		*--p = (char)('0' + value % 10);
	while ((value /= 10) && p > digits);
	say(p, end - p);
}

static __attribute__((noreturn)) void leave(long status)
{
	for (;;)
		raw_syscall3(SYS_exit_group, status, 0, 0);
}

/* Called from _start with the initial stack pointer: argc, argv[], NULL, envp[]. */
void fdcheck_main(long *sp) __attribute__((noreturn, used));
void fdcheck_main(long *sp)
{
	long argc = sp[0], expected = 0, nfds, open = 0, fl;
	char **argv = (char **)(sp + 1);
	struct timespec now;
	struct rlimit limit;

	if (raw_syscall3(SYS_clock_gettime, CLOCK_MONOTONIC_RAW, (long)&now, 0) != 0)
		leave(2);
	if (raw_syscall3(SYS_write, 1, (long)&now, sizeof(now)) != sizeof(now))
		leave(3);
	for (const char *p = argc > 1 ? argv[1] : "3"; *p >= '0' && *p <= '9'; p++)
		expected = expected * 10 + (*p - '0');
	if (raw_syscall3(SYS_getrlimit, RLIMIT_NOFILE, (long)&limit, 0) != 0)
		leave(4);
	nfds = limit.rlim_cur < (rlim_t)MAX_FDS ? (long)limit.rlim_cur : MAX_FDS;
	for (long fd = 0; fd < nfds; fd++)
		polled[fd].fd = (int)fd;
	if (raw_syscall3(SYS_poll, (long)polled, nfds, 0) < 0)
		leave(4);
	for (long fd = 0; fd < nfds; fd++)
		open += !(polled[fd].revents & POLLNVAL);
	if (nfds < 3 || (polled[0].revents | polled[1].revents | polled[2].revents) & POLLNVAL) {
		SAY("bench-fdcheck: fd 0, 1 or 2 is not open\n");
		leave(5);
	}
	if (open != expected) {
		SAY("bench-fdcheck: ");
		say_number(open);
		SAY(" fds open, expected ");
		say_number(expected);
		SAY("\n");
		leave(6);
	}
	if (argc > 2) {
		const char *want = argv[2];
		long nonblock = want[0] == 'f' && want[1] == 'd' && want[2] == '1' &&
				want[3] == '-' && want[4] == 'n';

		fl = raw_syscall3(SYS_fcntl, 1, F_GETFL, 0);
		if (fl < 0)
			leave(4);
		if (!!(fl & O_NONBLOCK) != nonblock) {
			SAY("bench-fdcheck: fd 1 is not the pipe the request asked for (O_NONBLOCK ");
			if (nonblock)
				SAY("expected, not set)\n");
			else
				SAY("set, not expected)\n");
			leave(7);
		}
	}
	leave(0);
}

/* The kernel enters with %rsp at argc; pass it on with a call-aligned stack. */
asm(".globl _start\n"
    "_start:\n"
    "	xor %ebp, %ebp\n"
    "	mov %rsp, %rdi\n"
    "	and $-16, %rsp\n"
    "	call fdcheck_main\n"
    "	hlt\n");
