/* SPDX-License-Identifier: MIT */
/*
 * A seccomp filter in raw BPF (no libseccomp): each rule makes one system
 * call return an errno or kill the process, optionally only when given
 * bits of one argument are set.  For tests that need a kernel "without"
 * a system call.
 */
#ifndef PFS_SECCOMP_H
#define PFS_SECCOMP_H

#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define PFS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define PFS_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define PFS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp.h: add this architecture's AUDIT_ARCH"
#endif

struct pfs_rule {
	int nr;			/* system call number */
	unsigned int ret;	/* SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ERRNO | e */
	int arg;		/* -1: always; else only when args[arg] & mask */
	unsigned int mask;	/* tested on the low 32 bits */
};

#define PFS_RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

/* Install @len instructions for this thread and its children: 0 or -1/errno. */
__attribute__((unused)) static int pfs_seccomp_install(struct sock_filter *prog,
							int len)
{
	struct sock_fprog fprog = { .len = (unsigned short)len, .filter = prog };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}

/* Install the rules for this thread and its children: 0 or -1/errno. */
__attribute__((unused)) static int pfs_seccomp(const struct pfs_rule *rules, int n)
{
	struct sock_filter prog[8 + 5 * 16];
	int len = 0;

	if (n > 16) {
		errno = E2BIG;
		return -1;
	}
#define INS(code, k, jt, jf) (prog[len++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf))
	INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	INS(BPF_JMP | BPF_JEQ | BPF_K, PFS_AUDIT_ARCH, 1, 0);
	INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	for (int i = 0; i < n; i++) {
		const struct pfs_rule *r = &rules[i];

		if (r->arg < 0) {
			INS(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)r->nr, 0, 1);
			INS(BPF_RET | BPF_K, r->ret, 0, 0);
			continue;
		}
		/* A still holds nr when the call does not match. */
		INS(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)r->nr, 0, 4);
		INS(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[r->arg]), 0, 0);
		INS(BPF_JMP | BPF_JSET | BPF_K, r->mask, 0, 1);
		INS(BPF_RET | BPF_K, r->ret, 0, 0);
		INS(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	}
	INS(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
#undef INS
	return pfs_seccomp_install(prog, len);
}

#endif
