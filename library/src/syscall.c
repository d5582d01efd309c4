/* SPDX-License-Identifier: MIT */
/*
 * Layer 1: thin wrappers around the system calls; like liburing's syscall
 * layer they return -1 and set errno, and do nothing else.
 */
#include <errno.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

/*
 * A kernel without builders says EINVAL here, and so may a kernel with
 * them for a flag it does not know: telling the two apart takes another
 * question (the probe), which a thin wrapper does not ask.  The builder
 * API, which always passes no flag, turns this EINVAL into ENOSYS.
 */
PFS_API int pidfdspawn_open_empty(unsigned int flags)
{
	return (int)syscall(__NR_pidfd_open, 0, PIDFD_EMPTY | flags);
}

PFS_API int pidfdspawn_config(int fd, unsigned int cmd, const char *key,
			      const void *value, int aux)
{
	return (int)syscall(__NR_pidfd_config, fd, cmd, key, value, aux);
}

PFS_API int pidfdspawn_run(int fd, struct pidfdspawn_run_args *args,
			   size_t size)
{
	return (int)syscall(__NR_pidfd_spawn_run, fd, args, size);
}

int pfs_waitid_pidfd(int pidfd, siginfo_t *info, int options)
{
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
	return (int)syscall(__NR_waitid, P_PIDFD, pidfd, info, options, NULL);
}

#if defined(__x86_64__)
/*
 * clone3() whose child starts on the stack given in the clone_args and
 * calls fn(arg), then exits with its return value.  It must be assembly:
 * the child has no valid C frame on its new stack.  rdx and r8 survive
 * the syscall instruction, so they carry fn and arg into the child.
 */
__asm__(
	".text\n"
	".globl pfs_sys_clone3\n"
	".hidden pfs_sys_clone3\n"
	".type pfs_sys_clone3,@function\n"
	"pfs_sys_clone3:\n"
	"	mov %rcx, %r8\n"
	"	mov $" "435" ", %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jz 1f\n"
	"	ret\n"
	"1:	xor %ebp, %ebp\n"
	"	mov %r8, %rdi\n"
	"	call *%rdx\n"
	"	mov %eax, %edi\n"
	"	mov $60, %eax\n"	/* exit(), only this thread */
	"	syscall\n"
	"	hlt\n"
	".size pfs_sys_clone3, .-pfs_sys_clone3\n");
#else
/* No trampoline for this architecture: callers use clone() instead. */
int pfs_sys_clone3(void *args, size_t size, int (*fn)(void *), void *arg)
{
	(void)args; (void)size; (void)fn; (void)arg;
	return -ENOSYS;
}
#endif
