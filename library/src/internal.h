/* SPDX-License-Identifier: MIT */
/* Internal definitions shared by the layers of libpidfdspawn. */
#ifndef PIDFDSPAWN_INTERNAL_H
#define PIDFDSPAWN_INTERNAL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "pidfdspawn.h"

#define PFS_API __attribute__((visibility("default")))

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_pidfd_config
#define __NR_pidfd_config 472
#endif
#ifndef __NR_pidfd_spawn_run
#define __NR_pidfd_spawn_run 473
#endif

/*
 * glibc 2.39's posix_spawnattr_t layout: __cgroup takes the first int of
 * __pad, so the type keeps the size and alignment of older glibc's.
 */
struct pfs_attr {
	short int flags;
	pid_t pgrp;
	sigset_t sigdef;
	sigset_t sigmask;
	struct sched_param sp;
	int policy;
	int cgroup;
	int pad[15];
};

/*
 * One posix_spawn file action, laid out exactly as glibc's struct
 * __spawn_action (posix/spawn_int.h): an int-sized tag in glibc's order,
 * then a union whose members are glibc's.  Objects filled by glibc's
 * posix_spawn_file_actions_add*() are read here and the reverse, so the
 * tag values, member order and the ownership rule (open and chdir paths
 * are malloc'd copies, the array is malloc'd; destroy frees them with
 * free()) are interface.  glibc 2.34 added closefrom, 2.35 tcsetpgrp.
 */
enum pfs_action_tag {
	PFS_DO_CLOSE = 0,
	PFS_DO_DUP2 = 1,
	PFS_DO_OPEN = 2,
	PFS_DO_CHDIR = 3,
	PFS_DO_FCHDIR = 4,
	PFS_DO_CLOSEFROM = 5,
	PFS_DO_TCSETPGRP = 6,
};

struct pfs_action {
	enum pfs_action_tag tag;
	union {
		struct { int fd; } close;
		struct { int fd; int newfd; } dup2;
		struct { int fd; char *path; int oflag; mode_t mode; } open;
		struct { char *path; } chdir;
		struct { int fd; } fchdir;
		struct { int from; } closefrom;
		struct { int fd; } tcsetpgrp;
	} u;
};

/* glibc's posix_spawn_file_actions_t, with __actions pointing at ours. */
struct pfs_file_actions {
	int allocated;
	int used;
	struct pfs_action *actions;
	int pad[16];
};

#define PFS_ALL_FLAGS (POSIX_SPAWN_RESETIDS | POSIX_SPAWN_SETPGROUP | \
		       POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | \
		       POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER | \
		       POSIX_SPAWN_USEVFORK | POSIX_SPAWN_SETSID | \
		       POSIX_SPAWN_SETCGROUP | POSIX_SPAWN_CLOEXEC_DEFAULT_NP)

/* The "search-path" key takes strings shorter than this. */
#define PFS_SEARCH_PATH_MAX 65536

/* Everything one posix_spawn-family call asked for. */
struct pfs_request {
	const char *file;		/* path, or name to search for */
	int use_path;			/* posix_spawnp: search PATH */
	const char *search_path;	/* PATH value for the search */
	const struct pfs_action *actions;
	int nr_actions;
	const struct pfs_attr *attr;	/* never NULL (zeroed default) */
	char *const *argv;
	char *const *envp;
	int want_pidfd;
	int entry_errno;		/* the caller's errno on entry */
	int try_shell;			/* GLIBC_2.2.5 symbols: ENOEXEC -> sh */
};

/* Result of a backend: 0 or an error number. */
struct pfs_result {
	pid_t pid;
	int pidfd;		/* -1 unless the caller wanted one */
	int task_created;	/* a child existed (also when it failed) */
};

static inline const struct pfs_file_actions *
pfs_fa(const posix_spawn_file_actions_t *fa)
{
	return (const struct pfs_file_actions *)fa;
}

static inline const struct pfs_attr *pfs_at(const posix_spawnattr_t *a)
{
	return (const struct pfs_attr *)a;
}

/* probe.c */
/* pidfd_open(0, PIDFD_EMPTY), lending itself one fd at a soft RLIMIT_NOFILE. */
int pfs_open_builder(void);
uint32_t pfs_request_needs(const struct pfs_request *req);
uint32_t pfs_request_needs_with(const struct pfs_request *req, uint32_t have);
/* posix_spawnp with a name to search for (no '/' in it). */
static inline int pfs_searches(const struct pfs_request *req)
{
	return req->use_path && !strchr(req->file, '/');
}
/* Whether the builder backend lets the kernel search PATH ("search-path"). */
int pfs_kernel_search(const struct pfs_request *req, uint32_t have);

/* pathsearch.c: next candidate of a PATH walk, no allocation. */
struct pfs_path_walk {
	const char *next;	/* rest of PATH, NULL when done */
	const char *file;
	size_t file_len;
};
void pfs_path_walk_init(struct pfs_path_walk *w, const char *path,
			const char *file);
/* Fills @buf with the next candidate; 0 when the walk is over. */
int pfs_path_walk_next(struct pfs_path_walk *w, char *buf, size_t size,
		       int *relative);
/* Whether glibc's walk of @path tries no candidate at all. */
int pfs_path_tries_nothing(const char *path);
/* execvp's rule: may the search go on after this exec error? */
int pfs_path_error_continues(int err);
/* glibc's old posix_spawn: /bin/sh FILE ARGV[1]... (malloc'd), or NULL. */
char **pfs_shell_argv(const struct pfs_request *req);
/*
 * @path rewritten so that the kernel's PATH search walks it as glibc
 * walks @path (written to @out unless NULL): its length, or -1.
 */
long pfs_kernel_search_path(const char *path, const char *file, char *out);
/*
 * posix_spawnp requests whose search glibc's child fails only after the
 * file actions, in a way no run of the kernel's builder reproduces:
 *   - "" (ENOENT) and a name longer than NAME_MAX (the kernel's error for
 *     each truncated candidate): the builder refuses "" before creating a
 *     task and fails a long name with ENAMETOOLONG whatever PATH holds;
 *   - a PATH whose walk tries no candidate (pfs_path_tries_nothing): the
 *     child reports the errno its actions left behind (glibc's open
 *     action, for one, starts with a close() that may leave EBADF).
 * These go to the fallback, whose child runs glibc's steps itself.
 */
static inline int pfs_search_fails_in_child(const struct pfs_request *req)
{
	return pfs_searches(req) &&
	       (!*req->file || strnlen(req->file, NAME_MAX + 1) > NAME_MAX ||
		pfs_path_tries_nothing(req->search_path));
}

/*
 * Remove glibc's internal signals (32: SIGCANCEL, 33: SIGSETXID) from a
 * set, as glibc's sigprocmask does with the mask its child sets: bit
 * arithmetic, since sigdelset() refuses them.
 */
static inline void pfs_sigset_del_internal(sigset_t *set)
{
	unsigned long *w = (unsigned long *)set;
	const unsigned int bits = 8 * sizeof(unsigned long);

	for (unsigned int sig = 32; sig <= 33; sig++)
		w[(sig - 1) / bits] &= ~(1UL << ((sig - 1) % bits));
}

static inline int pfs_sigset_has(const sigset_t *set, unsigned int sig)
{
	const unsigned long *w = (const unsigned long *)set;
	const unsigned int bits = 8 * sizeof(unsigned long);

	return (w[(sig - 1) / bits] >> ((sig - 1) % bits)) & 1;
}

/*
 * The errno glibc's child has after its signal reset: the caller's, or
 * EINVAL when the sigdefault attribute holds SIGKILL or SIGSTOP (its
 * sigaction(SIG_DFL) for them fails).  A PATH walk that tries nothing
 * reports it.
 */
static inline int pfs_child_errno(const struct pfs_request *req)
{
	if ((req->attr->flags & POSIX_SPAWN_SETSIGDEF) &&
	    (pfs_sigset_has(&req->attr->sigdef, SIGKILL) ||
	     pfs_sigset_has(&req->attr->sigdef, SIGSTOP)))
		return EINVAL;
	return req->entry_errno;
}

/* What a walk that tried no candidate reports: @err, or ECHILD for 0. */
static inline int pfs_path_nothing_tried(int err)
{
	return err ? err : ECHILD;
}
#define PFS_DEFAULT_PATH "/bin:/usr/bin"
#define PFS_PATH_BUF (PATH_MAX + NAME_MAX + 2)

/* backend-builder.c / backend-fallback.c: 0 or an error number. */
int pfs_builder_spawn(const struct pfs_request *req, struct pfs_result *res);
/* A run with no builder fd (PIDFDSPAWN_FEAT_NOFD[_PIDFD]); 0 or an errno. */
int pfs_run_nofd(struct pidfdspawn_run_args *args, int want_pidfd,
		 struct pfs_result *res);
int pfs_fallback_spawn(const struct pfs_request *req, struct pfs_result *res);

/* spawn.c */
void pfs_set_last_backend(enum pidfdspawn_backend b);
/* posix_spawn/posix_spawnp, with glibc's old /bin/sh fallback or not. */
int pfs_posix_spawn(pid_t *pid, const char *file, int use_path,
		    const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attrp, char *const argv[],
		    char *const envp[], int try_shell);

/* syscall.c */
/* clone3() running fn(arg) on the new stack: child pid or -errno. */
int pfs_sys_clone3(void *args, size_t size, int (*fn)(void *), void *arg);
int pfs_waitid_pidfd(int pidfd, siginfo_t *info, int options);

/* backend-builder.c: pidfd_config() and the attributes, for both APIs. */
int pfs_config(int fd, unsigned int cmd, const char *key, const void *value,
	       int aux);
int pfs_stage_attr(int fd, const struct pfs_attr *at, const char *search_path,
		   int policy, int priority);

#endif
