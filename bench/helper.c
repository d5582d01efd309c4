/*
 * bench-helper: the floor method's pre-started process.  It tells the parent it is ready
 * (one byte on fd 1), waits for the go byte on fd 0, writes its own CLOCK_MONOTONIC_RAW
 * reading to fd 1 and execs argv[1].  That reading is the floor's start time, so the
 * measurement covers exec + exit + wait, with no process creation and no wake-up.
 */
#include <sys/syscall.h>
#include <time.h>

#include "rawsys.h"

/* Called from _start with the initial stack pointer: argc, argv[], NULL, envp[]. */
void helper_main(long *sp) __attribute__((noreturn, used));
void helper_main(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	struct timespec start;
	char byte = 'R';

	if (argc < 2 || raw_syscall3(SYS_write, 1, (long)&byte, 1) != 1 ||
	    raw_syscall3(SYS_read, 0, (long)&byte, 1) != 1 ||
	    raw_syscall3(SYS_clock_gettime, CLOCK_MONOTONIC_RAW, (long)&start, 0) != 0 ||
	    raw_syscall3(SYS_write, 1, (long)&start, sizeof(start)) != sizeof(start))
		raw_syscall3(SYS_exit_group, 126, 0, 0);
	raw_syscall3(SYS_execve, (long)argv[1], (long)(argv + 1), (long)envp);
	for (;;)
		raw_syscall3(SYS_exit_group, 127, 0, 0);
}

/* The kernel enters with %rsp at argc; pass it on with a call-aligned stack. */
asm(".globl _start\n"
    "_start:\n"
    "	xor %ebp, %ebp\n"
    "	mov %rsp, %rdi\n"
    "	and $-16, %rsp\n"
    "	call helper_main\n"
    "	hlt\n");
