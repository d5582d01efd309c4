/* SPDX-License-Identifier: MIT */
/*
 * The fallback backend, for kernels (or requests) the builder cannot
 * serve: a vfork-style child made with clone3(CLONE_VM | CLONE_VFORK |
 * CLONE_PIDFD) on a stack of its own, as glibc's spawni does.
 *
 * The caller blocks every signal around the clone, so no handler of the
 * caller ever runs on the child's stack in the shared address space; the
 * child resets caught handlers before it unblocks anything.  The child
 * allocates nothing: all it needs was prepared by the parent.  An error
 * in the child is stored in shared memory (CLONE_VM), and CLONE_VFORK
 * guarantees the parent reads it only after the child exec'd or exited.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "internal.h"

#define CHILD_STACK_SIZE (64 * 1024)

#ifdef SYS_setresuid32
#define PFS_SYS_SETRESUID SYS_setresuid32
#define PFS_SYS_SETRESGID SYS_setresgid32
#else
#define PFS_SYS_SETRESUID SYS_setresuid
#define PFS_SYS_SETRESGID SYS_setresgid
#endif

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#define PFS_CLONE_CLEAR_SIGHAND 0x100000000ULL
#define PFS_CLONE_INTO_CGROUP 0x200000000ULL

/* Layout of the kernel's struct clone_args, version 2 (88 bytes). */
struct pfs_clone_args {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t child_tid;
	uint64_t parent_tid;
	uint64_t exit_signal;
	uint64_t stack;
	uint64_t stack_size;
	uint64_t tls;
	uint64_t set_tid;
	uint64_t set_tid_size;
	uint64_t cgroup;
};

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct child_ctx {
	const struct pfs_request *req;
	sigset_t parent_mask;		/* the caller's, restored after */
	sigset_t exec_mask;		/* the child's, set before exec */
	int handlers_cleared;		/* CLONE_CLEAR_SIGHAND did it */
	/* POSIX_SPAWN_CLOEXEC_DEFAULT_NP: the action targets, sorted, unique */
	const int *keep;
	int nr_keep;
	volatile int err;		/* written by the child */
	char **shell_argv;		/* try_shell: /bin/sh file argv[1..] */
	char path_buf[PFS_PATH_BUF];
};

/* ---- in the child: no allocation, no locks ---------------------------- */

/* The kernel's struct sigaction for rt_sigaction (x86 and most arches). */
struct pfs_ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned char mask[8];
};

static void child_reset_signals(const struct child_ctx *c)
{
	const struct pfs_attr *attr = c->req->attr;
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	for (int sig = 1; sig < _NSIG; sig++) {
		struct sigaction cur;

		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (sig == 32 || sig == 33) {
			/*
			 * glibc's internal signals (sigaction() refuses them):
			 * its child sets them to SIG_IGN, or SIG_DFL when the
			 * sigdefault attribute holds them.
			 */
			struct pfs_ksigaction ka = { .handler = SIG_IGN };

			if ((attr->flags & POSIX_SPAWN_SETSIGDEF) &&
			    pfs_sigset_has(&attr->sigdef, (unsigned int)sig))
				ka.handler = SIG_DFL;
			syscall(SYS_rt_sigaction, sig, &ka, NULL, sizeof(ka.mask));
			continue;
		}
		if ((attr->flags & POSIX_SPAWN_SETSIGDEF) &&
		    sigismember(&attr->sigdef, sig) == 1) {
			sigaction(sig, &dfl, NULL);
			continue;
		}
		if (c->handlers_cleared)
			continue;
		if (sigaction(sig, NULL, &cur) == 0 &&
		    cur.sa_handler != SIG_IGN && cur.sa_handler != SIG_DFL)
			sigaction(sig, &dfl, NULL);
	}
}

static int child_attributes(const struct pfs_attr *attr)
{
	short flags = attr->flags;

	if ((flags & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER)) ==
	    POSIX_SPAWN_SETSCHEDPARAM) {
		if (sched_setparam(0, &attr->sp) < 0)
			return -1;
	} else if (flags & POSIX_SPAWN_SETSCHEDULER) {
		if (sched_setscheduler(0, attr->policy, &attr->sp) < 0)
			return -1;
	}
	if ((flags & POSIX_SPAWN_SETSID) && setsid() < 0)
		return -1;
	if ((flags & POSIX_SPAWN_SETPGROUP) && setpgid(0, attr->pgrp) < 0)
		return -1;
	/*
	 * Raw syscalls: glibc's set*id would signal the parent's threads.
	 * Where the plain calls take 16-bit ids (i386, 32-bit ARM...), the
	 * *32 calls are the ones that take any id, as glibc uses them.
	 */
	if ((flags & POSIX_SPAWN_RESETIDS) &&
	    (syscall(PFS_SYS_SETRESUID, -1, getuid(), -1) < 0 ||
	     syscall(PFS_SYS_SETRESGID, -1, getgid(), -1) < 0))
		return -1;
	return 0;
}

static int child_open(const struct pfs_action *a)
{
	int fd;

	/* POSIX: a target fd that is open is closed before the open. */
	close(a->u.open.fd);
	fd = open(a->u.open.path, a->u.open.oflag, a->u.open.mode);
	if (fd < 0)
		return -1;
	/*
	 * The target is close-on-exec exactly when oflag has O_CLOEXEC, as
	 * with the builder's OPEN (glibc's dup2 here loses the flag).
	 */
	if (fd != a->u.open.fd) {
		if (dup3(fd, a->u.open.fd, a->u.open.oflag & O_CLOEXEC) !=
		    a->u.open.fd ||
		    close(fd) < 0)
			return -1;
	}
	return 0;
}

static int child_dup2(const struct pfs_action *a)
{
	int fd = a->u.dup2.fd, newfd = a->u.dup2.newfd, flags;

	if (fd != newfd)
		return dup2(fd, newfd) == newfd ? 0 : -1;
	/* dup2(fd, fd) clears FD_CLOEXEC (Austin Group issue 411). */
	flags = fcntl(fd, F_GETFD);
	if (flags < 0)
		return -1;
	return fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
}

/*
 * One pass over /proc/self/fd closing every fd >= @from: how many it
 * closed, or -1 when the directory cannot be read.  Closing while reading
 * may shift the directory's offsets, hence the caller's repeated passes.
 */
static int closefrom_pass(int dir, int from)
{
	char buf[2048] __attribute__((aligned(8)));
	int closed = 0;
	long n;

	if (lseek(dir, 0, SEEK_SET) < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			const struct pfs_dirent64 {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (const void *)(buf + off);
			int fd = 0;
			const char *p = d->name;

			off += d->reclen;
			if (*p < '0' || *p > '9')
				continue;	/* "." and ".." */
			while (*p >= '0' && *p <= '9')
				fd = fd * 10 + (*p++ - '0');
			if (fd >= from && fd != dir) {
				close(fd);
				closed++;
			}
		}
	}
	return n < 0 ? -1 : closed;
}

/*
 * closefrom(@from) where close_range() is missing (before 5.9, or a
 * seccomp filter answering ENOSYS): walk /proc/self/fd as glibc does, and
 * without /proc close every fd up to the descriptor limit.  No allocation.
 */
static int child_closefrom(int from)
{
	int dir, n, limit;

	if (syscall(__NR_close_range, from, ~0u, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 && errno == EMFILE) {
		/* Every fd is taken: free the first one we close anyway. */
		close(from++);
		dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (dir >= 0) {
		while ((n = closefrom_pass(dir, from)) > 0)
			;
		close(dir);
		if (n == 0)
			return 0;
	}
	limit = getdtablesize();
	for (int fd = from; fd < limit; fd++)
		close(fd);
	return 0;
}

static int child_action(const struct pfs_action *a, const struct pfs_attr *at)
{
	switch (a->tag) {
	case PFS_DO_OPEN:
		return child_open(a);
	case PFS_DO_CLOSE:
		/* The fd was range-checked when added; glibc ignores errors. */
		close(a->u.close.fd);
		return 0;
	case PFS_DO_DUP2:
		return child_dup2(a);
	case PFS_DO_CHDIR:
		return chdir(a->u.chdir.path);
	case PFS_DO_FCHDIR:
		return fchdir(a->u.fchdir.fd);
	case PFS_DO_CLOSEFROM:
		return child_closefrom(a->u.closefrom.from);
	case PFS_DO_TCSETPGRP: {
		pid_t pgrp = (at->flags & POSIX_SPAWN_SETPGROUP) && at->pgrp ?
			     at->pgrp : getpgid(0);

		return tcsetpgrp(a->u.tcsetpgrp.fd, pgrp);
	}
	}
	errno = EINVAL;
	return -1;
}

/* Mark close-on-exec every fd in [first, last]. */
static int child_cloexec_range(unsigned int first, unsigned int last)
{
	unsigned int max;

	if (syscall(__NR_close_range, first, last, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* Before Linux 5.11: one fcntl per possible fd. */
	max = (unsigned int)getdtablesize();
	for (unsigned int fd = first; fd <= last && fd < max; fd++) {
		int flags = fcntl((int)fd, F_GETFD);

		if (flags >= 0 && !(flags & FD_CLOEXEC))
			fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC);
	}
	return 0;
}

/*
 * POSIX_SPAWN_CLOEXEC_DEFAULT_NP after the file actions: every fd that no
 * action placed becomes close-on-exec; the placed ones keep the flag their
 * action gave them (clear after dup2, O_CLOEXEC's after an open).
 */
static int child_cloexec_default(const struct child_ctx *c)
{
	unsigned int first = 0;

	for (int i = 0; i < c->nr_keep; i++) {
		unsigned int keep = (unsigned int)c->keep[i];

		if (keep > first && child_cloexec_range(first, keep - 1) < 0)
			return -1;
		first = keep + 1;
	}
	return child_cloexec_range(first, ~0u);
}

static void child_exec_search(struct child_ctx *c)
{
	const struct pfs_request *req = c->req;
	struct pfs_path_walk walk;
	int got_eacces = 0, relative, last;

	/* glibc's execvpe: "" is ENOENT, before looking at PATH. */
	if (!*req->file) {
		errno = ENOENT;
		return;
	}
	/* Tried nothing: the errno the actions left, as in glibc's child. */
	last = pfs_path_nothing_tried(errno);
	pfs_path_walk_init(&walk, req->search_path, req->file);
	while (pfs_path_walk_next(&walk, c->path_buf, sizeof(c->path_buf),
				  &relative)) {
		execve(c->path_buf, req->argv, req->envp);
		if (!pfs_path_error_continues(errno))
			return;
		got_eacces |= errno == EACCES;
		last = errno;
	}
	errno = got_eacces ? EACCES : last;
}

static int child_main(void *arg)
{
	struct child_ctx *c = arg;
	const struct pfs_request *req = c->req;

	child_reset_signals(c);
	/*
	 * glibc's child starts with its caller's errno (shared TLS) and its
	 * signal reset leaves it alone; ours may not (sigaction() answers
	 * EINVAL for glibc's internal signals), so set it after.
	 */
	errno = pfs_child_errno(req);
	if (child_attributes(req->attr) < 0)
		goto fail;
	for (int i = 0; i < req->nr_actions; i++)
		if (child_action(&req->actions[i], req->attr) < 0)
			goto fail;
	if ((req->attr->flags & POSIX_SPAWN_CLOEXEC_DEFAULT_NP) &&
	    child_cloexec_default(c) < 0)
		goto fail;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &c->exec_mask, NULL, _NSIG / 8);

	if (req->use_path && !strchr(req->file, '/'))
		child_exec_search(c);
	else
		execve(req->file, req->argv, req->envp);
	/*
	 * The GLIBC_2.2.5 posix_spawn/posix_spawnp: a file the kernel cannot
	 * execute (ENOEXEC, a script without "#!") is run by /bin/sh, with
	 * the name as given (posix_spawnp: not the path found).
	 */
	if (c->shell_argv && errno == ENOEXEC)
		execve(c->shell_argv[0], c->shell_argv, req->envp);
fail:
	c->err = errno ? errno : ECHILD;	/* glibc's choice for 0 */
	_exit(127);
}

/* ---- in the parent ---------------------------------------------------- */

static pid_t clone_child(struct child_ctx *c, char *stack, int *pidfd)
{
	const struct pfs_attr *attr = c->req->attr;
	int want_pidfd = c->req->want_pidfd;
	struct pfs_clone_args ca = {
		.flags = CLONE_VM | CLONE_VFORK | PFS_CLONE_CLEAR_SIGHAND |
			 (want_pidfd ? CLONE_PIDFD : 0),
		.pidfd = (uintptr_t)pidfd,
		.exit_signal = SIGCHLD,
		.stack = (uintptr_t)stack,
		.stack_size = CHILD_STACK_SIZE,
	};
	int ret;

	if (attr->flags & POSIX_SPAWN_SETCGROUP) {
		ca.flags |= PFS_CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)attr->cgroup;
	}
	c->handlers_cleared = 1;
	ret = pfs_sys_clone3(&ca, sizeof(ca), child_main, c);
	if (ret != -ENOSYS && ret != -EINVAL)
		goto out;
	if (ca.flags & PFS_CLONE_INTO_CGROUP) {
		if (ret == -ENOSYS)
			ret = -EOPNOTSUPP;	/* glibc: no fallback for cgroups */
		goto out;
	}
	/* No clone3 (or no CLONE_CLEAR_SIGHAND): clone(), child resets. */
	c->handlers_cleared = 0;
	ret = clone(child_main, stack + CHILD_STACK_SIZE,
		    CLONE_VM | CLONE_VFORK | SIGCHLD |
		    (want_pidfd ? CLONE_PIDFD : 0), c, pidfd);
	if (ret < 0)
		ret = -errno;
out:
	return ret;
}

/*
 * One spare child stack, kept between spawns: glibc maps and unmaps a
 * stack per call, two system calls (and, in a threaded caller, a TLB
 * shootdown) that only the first spawn needs.  CLONE_VFORK returns to the
 * parent only once the child has exec'd or exited, so the stack is free
 * again when the spawn returns.  Taking and returning it are single
 * atomic exchanges: concurrent spawns map stacks of their own and unmap
 * them again when the slot is taken; a fork while a thread holds it
 * leaves the child an empty slot.
 */
static char *spare_stack;

static char *take_stack(void)
{
	char *stack = __atomic_exchange_n(&spare_stack, NULL, __ATOMIC_ACQUIRE);

	if (stack)
		return stack;
	stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	return stack == MAP_FAILED ? NULL : stack;
}

static void give_back_stack(char *stack)
{
	char *none = NULL;

	if (!__atomic_compare_exchange_n(&spare_stack, &none, stack, 0,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		munmap(stack, CHILD_STACK_SIZE);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The fds the file actions place, sorted and unique, for the child. */
static int *placed_fds(const struct pfs_request *req, int *nr)
{
	int *keep = malloc(((size_t)req->nr_actions + 1) * sizeof(*keep));
	int n = 0, unique = 0;

	if (!keep)
		return NULL;
	for (int i = 0; i < req->nr_actions; i++) {
		const struct pfs_action *a = &req->actions[i];

		if (a->tag == PFS_DO_OPEN)
			keep[n++] = a->u.open.fd;
		else if (a->tag == PFS_DO_DUP2)
			keep[n++] = a->u.dup2.newfd;
	}
	qsort(keep, (size_t)n, sizeof(*keep), cmp_int);
	for (int i = 0; i < n; i++)
		if (!unique || keep[unique - 1] != keep[i])
			keep[unique++] = keep[i];
	*nr = unique;
	return keep;
}

int pfs_fallback_spawn(const struct pfs_request *req, struct pfs_result *res)
{
	struct child_ctx c = { .req = req, .err = 0 };
	sigset_t all;
	int cancel_state, pidfd = -1, err = 0, *keep = NULL;
	pid_t pid;
	char *stack;

	if (req->try_shell && !(c.shell_argv = pfs_shell_argv(req)))
		return ENOMEM;

	if (req->attr->flags & POSIX_SPAWN_CLOEXEC_DEFAULT_NP) {
		keep = placed_fds(req, &c.nr_keep);
		if (!keep) {
			free(c.shell_argv);
			return ENOMEM;
		}
		c.keep = keep;
	}
	stack = take_stack();
	if (!stack) {
		err = errno;
		free(keep);
		free(c.shell_argv);
		return err;
	}

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &c.parent_mask);
	/*
	 * The child's mask, as glibc's child sets it with its sigprocmask:
	 * without the internal signals 32 and 33.
	 */
	c.exec_mask = (req->attr->flags & POSIX_SPAWN_SETSIGMASK) ?
		      req->attr->sigmask : c.parent_mask;
	pfs_sigset_del_internal(&c.exec_mask);

	pid = clone_child(&c, stack, &pidfd);
	if (pid < 0) {
		err = -pid;
	} else {
		res->task_created = 1;
		err = c.err;
		if (err) {
			/* The child exited 127 already (vfork); reap it. */
			waitpid(pid, NULL, 0);
			if (pidfd >= 0)
				close(pidfd);
		} else {
			res->pid = pid;
			res->pidfd = pidfd;
		}
	}

	pthread_sigmask(SIG_SETMASK, &c.parent_mask, NULL);
	pthread_setcancelstate(cancel_state, NULL);
	give_back_stack(stack);
	free(keep);
	free(c.shell_argv);
	return err;
}
