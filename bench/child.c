/*
 * bench-child: the program every spawn method starts.  Its first action is to read
 * CLOCK_MONOTONIC_RAW and write the 16-byte struct timespec to fd 1 (a pipe the parent
 * reads), then it exits 0.  No libc: static, no startup code, no dynamic loader, so the
 * time between exec and the first instruction is the kernel's alone.
 */
#include <sys/syscall.h>
#include <time.h>

#include "rawsys.h"

void _start(void) __attribute__((noreturn, used));
void _start(void)
{
	struct timespec now;
	long status = 0;

	if (raw_syscall3(SYS_clock_gettime, CLOCK_MONOTONIC_RAW, (long)&now, 0) != 0)
		status = 2;
	else if (raw_syscall3(SYS_write, 1, (long)&now, sizeof(now)) != sizeof(now))
		status = 3;
	for (;;)
		raw_syscall3(SYS_exit_group, status, 0, 0);
}
