/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A system call without libc, for the static programs the benchmark starts
 * (bench-child, bench-helper): they have no startup code to pay for. x86_64 only.
 */
#ifndef BENCH_RAWSYS_H
#define BENCH_RAWSYS_H

static inline long raw_syscall3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"(nr), "D"(a), "S"(b), "d"(c)
		     : "rcx", "r11", "memory");
	return ret;
}

#endif
