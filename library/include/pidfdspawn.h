/* SPDX-License-Identifier: MIT */
/*
 * libpidfdspawn: process creation through the Linux pidfd spawn builder
 * (pidfd_open(0, PIDFD_EMPTY), pidfd_config(), pidfd_spawn_run()), with a
 * posix_spawn family that is ABI-compatible with glibc and falls back to a
 * vfork-style clone3() backend for whatever the running kernel cannot do.
 *
 * Three layers, from the bottom:
 *   1. syscall wrappers (pidfdspawn_open_empty, pidfdspawn_config,
 *      pidfdspawn_run): thin, return -1 and set errno;
 *   2. the builder API (struct pidfdspawn_builder): stage a path, argv,
 *      envp and ordered actions, then run; returns -1 and sets errno;
 *   3. the posix_spawn family (declared by <spawn.h>; the glibc 2.39
 *      additions are declared here when the C library is older): returns
 *      an error number, never -1/errno.
 */
#ifndef PIDFDSPAWN_H
#define PIDFDSPAWN_H

#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version ----------------------------------------------------------- */

/*
 * The version of the header a program was compiled with; the library it
 * runs with may be newer (pidfdspawn_version()).  Releases with the same
 * major number keep the library's ABI (soname libpidfdspawn.so.0).
 */
#define PIDFDSPAWN_VERSION_MAJOR	0
#define PIDFDSPAWN_VERSION_MINOR	2
#define PIDFDSPAWN_VERSION_PATCH	0
#define PIDFDSPAWN_VERSION_STRING	"0.2.0"
/* True when the header is at least version MAJOR.MINOR.PATCH. */
#define PIDFDSPAWN_VERSION_AT_LEAST(major, minor, patch)		\
	(PIDFDSPAWN_VERSION_MAJOR > (major) ||				\
	 (PIDFDSPAWN_VERSION_MAJOR == (major) &&			\
	  (PIDFDSPAWN_VERSION_MINOR > (minor) ||			\
	   (PIDFDSPAWN_VERSION_MINOR == (minor) &&			\
	    PIDFDSPAWN_VERSION_PATCH >= (patch)))))

/* The version of the running library, as "MAJOR.MINOR.PATCH". */
const char *pidfdspawn_version(void);

/* ---- Kernel interface (mirrors <linux/pidfd_spawn.h>) ----------------- */

#ifndef PIDFD_EMPTY
#define PIDFD_EMPTY (1U << 27)
#endif

/* pidfd_config() commands: how the value of a key is passed. */
#define PIDFDSPAWN_CONFIG_SET_STRING	0	/* value: string, aux 0 */
#define PIDFDSPAWN_CONFIG_SET_FLAG	1	/* value NULL, aux 0 */
#define PIDFDSPAWN_CONFIG_SET_BINARY	2	/* value: aux bytes */
#define PIDFDSPAWN_CONFIG_SET_FD	3	/* value NULL, aux: an fd */
#define PIDFDSPAWN_CONFIG_SET_INT	4	/* value NULL, aux: the int */
#define PIDFDSPAWN_CONFIG_QUERY		5	/* fd -1; see pidfdspawn_probe */

/* pidfd_config() keys, with the command each takes. */
#define PIDFDSPAWN_CONFIG_KEY_PATH		"path"		/* SET_STRING */
#define PIDFDSPAWN_CONFIG_KEY_SEARCH_PATH	"search-path"	/* SET_STRING */
#define PIDFDSPAWN_CONFIG_KEY_EXEC_FD		"exec-fd"	/* SET_FD */
#define PIDFDSPAWN_CONFIG_KEY_SIGMASK		"sigmask"	/* SET_BINARY */
#define PIDFDSPAWN_CONFIG_KEY_SIGDEFAULT	"sigdefault"	/* SET_BINARY */
#define PIDFDSPAWN_CONFIG_KEY_PGROUP		"pgroup"	/* SET_INT */
#define PIDFDSPAWN_CONFIG_KEY_SETSID		"setsid"	/* SET_FLAG */
#define PIDFDSPAWN_CONFIG_KEY_RESETIDS		"resetids"	/* SET_FLAG */
#define PIDFDSPAWN_CONFIG_KEY_SCHED_POLICY	"sched-policy"	/* SET_INT */
#define PIDFDSPAWN_CONFIG_KEY_SCHED_PRIORITY	"sched-priority" /* SET_INT */
#define PIDFDSPAWN_CONFIG_KEY_CGROUP		"cgroup"	/* SET_FD */
/* Size of the kernel's sigset_t, the value size of the signal-set keys. */
#define PIDFDSPAWN_SIGSET_SIZE		8

#define PIDFDSPAWN_RUN_SIZE_VER0	64
#define PIDFDSPAWN_RUN_SIZE_VER1	72	/* adds pid */
#define PIDFDSPAWN_ACTION_SIZE_VER0	32
#define PIDFDSPAWN_ACTION_SIZE_VER1	56	/* adds path, open_flags, mode */
#define PIDFDSPAWN_FEATURES_SIZE_VER0	32

/*
 * flags of struct pidfdspawn_run_args.  PIDFDSPAWN_RUN_NOFD: fd is -1, the
 * call runs a builder of its own and leaves no fd; the child's pid is
 * stored at pid (needs a version 1 block).  PIDFDSPAWN_RUN_PIDFD, only
 * with NOFD: the call returns a new pidfd for the child instead of its pid.
 */
#define PIDFDSPAWN_RUN_CLOEXEC_DEFAULT	(1U << 0)
#define PIDFDSPAWN_RUN_NOFD		(1U << 1)
#define PIDFDSPAWN_RUN_PIDFD		(1U << 2)

enum pidfdspawn_action_type {
	PIDFDSPAWN_ACTION_DUP2 = 0,
	PIDFDSPAWN_ACTION_CLOSE_RANGE = 1,
	PIDFDSPAWN_ACTION_FCHDIR = 2,
	PIDFDSPAWN_ACTION_OPEN = 3,
	PIDFDSPAWN_ACTION_CLOSE = 4,
	PIDFDSPAWN_ACTION_CHDIR = 5,
	PIDFDSPAWN_ACTION_TCSETPGRP = 6,
};

/*
 * Same layout as struct pidfd_spawn_run_args, version 1 (72 bytes).
 * Kernels that only know the 64-byte version 0 accept it as long as pid
 * is zero.
 */
struct pidfdspawn_run_args {
	uint32_t flags;
	uint32_t nr_actions;
	uint64_t path __attribute__((aligned(8)));
	uint64_t argv __attribute__((aligned(8)));
	uint64_t envp __attribute__((aligned(8)));
	uint64_t actions __attribute__((aligned(8)));
	uint32_t action_size;
	uint32_t reserved0;
	uint64_t reserved[2];
	/* PIDFDSPAWN_RUN_SIZE_VER0 ends here */
	uint64_t pid __attribute__((aligned(8)));	/* int *, with RUN_NOFD */
};

/*
 * Same layout as struct pidfd_spawn_action, version 1 (56 bytes).  Kernels
 * that only know the 32-byte version 0 accept these records as long as
 * path, open_flags and mode are zero (an extensible struct's zero tail).
 */
struct pidfdspawn_action {
	uint32_t type;
	uint32_t flags;
	uint32_t fd;
	uint32_t newfd;
	uint64_t reserved[2];
	/* PIDFDSPAWN_ACTION_SIZE_VER0 ends here */
	uint64_t path __attribute__((aligned(8)));
	uint64_t open_flags;
	uint64_t mode;
};

/* Same layout as struct pidfd_spawn_features (32 bytes). */
struct pidfdspawn_features {
	uint64_t actions;	/* bit n: action type n is known */
	uint64_t run_flags;	/* known PIDFDSPAWN_RUN_* flags */
	uint64_t config_cmds;	/* bit n: pidfd_config command n is known */
	uint32_t action_size;	/* largest action record fully interpreted */
	uint32_t run_size;	/* largest run argument block interpreted */
};

/* ---- Layer 1: system call wrappers (-1 and errno on failure) ---------- */

/*
 * Each returns what the kernel returns, errno untranslated.  A kernel
 * without spawn builders answers pidfd_open(0, PIDFD_EMPTY) with EINVAL
 * (it takes PIDFD_EMPTY for an unknown flag; ENOSYS before Linux 5.3) and
 * pidfd_config() and pidfd_spawn_run() with ENOSYS: ask pidfdspawn_probe()
 * rather than read those, or use the builder API, which says ENOSYS.
 */
/* pidfd_open(0, PIDFD_EMPTY | flags): a taskless, close-on-exec builder fd. */
int pidfdspawn_open_empty(unsigned int flags);
/* pidfd_config(fd, cmd, key, value, aux). */
int pidfdspawn_config(int fd, unsigned int cmd, const char *key,
		      const void *value, int aux);
/* pidfd_spawn_run(fd, args, size): the child's pid; fd is its pidfd now. */
int pidfdspawn_run(int fd, struct pidfdspawn_run_args *args, size_t size);

/* ---- Probe: what the running kernel's builder supports ----------------- */

/* One bit per builder capability a posix_spawn request may need. */
enum pidfdspawn_feature {
	PIDFDSPAWN_FEAT_BUILDER		= 1u << 0,  /* the three syscalls work */
	PIDFDSPAWN_FEAT_DUP2		= 1u << 1,
	PIDFDSPAWN_FEAT_CLOSE_RANGE	= 1u << 2,
	PIDFDSPAWN_FEAT_FCHDIR		= 1u << 3,
	PIDFDSPAWN_FEAT_OPEN		= 1u << 4,
	PIDFDSPAWN_FEAT_CHDIR		= 1u << 5,
	PIDFDSPAWN_FEAT_TCSETPGRP	= 1u << 6,
	PIDFDSPAWN_FEAT_SIGMASK		= 1u << 7,
	PIDFDSPAWN_FEAT_SIGDEF		= 1u << 8,
	PIDFDSPAWN_FEAT_PGROUP		= 1u << 9,
	PIDFDSPAWN_FEAT_SETSID		= 1u << 10,
	PIDFDSPAWN_FEAT_RESETIDS	= 1u << 11,
	PIDFDSPAWN_FEAT_SCHEDULER	= 1u << 12,
	PIDFDSPAWN_FEAT_CGROUP		= 1u << 13,
	PIDFDSPAWN_FEAT_PATH_SEARCH	= 1u << 14, /* "search-path" key */
	PIDFDSPAWN_FEAT_CLOSE		= 1u << 15, /* the CLOSE action */
	PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT	= 1u << 16, /* run flag */
	PIDFDSPAWN_FEAT_NOFD		= 1u << 17, /* run flag: run with no fd */
	PIDFDSPAWN_FEAT_NOFD_PIDFD	= 1u << 18, /* ... returning a pidfd */
};
#define PIDFDSPAWN_FEAT_COUNT 19
/*
 * Never found by the probe: a request that needs it (an open flag the
 * library does not know) always goes to the fallback.
 */
#define PIDFDSPAWN_FEAT_UNSUPPORTED	(1u << 31)

/*
 * The features the running kernel supports, found by asking the kernel
 * once per process (thread-safe); later calls return the cached mask.
 */
uint32_t pidfdspawn_probe(void);
/* Short lower-case name of one feature bit ("dup2", ...), or NULL. */
const char *pidfdspawn_feature_name(uint32_t feature);
/* The feature named @name, or 0 when the name is unknown. */
uint32_t pidfdspawn_feature_from_name(const char *name);

/* ---- Backend selection and introspection ------------------------------ */

enum pidfdspawn_backend {
	PIDFDSPAWN_BACKEND_NONE = 0,	 /* no spawn in this thread yet */
	PIDFDSPAWN_BACKEND_BUILDER = 1,	 /* pidfd_spawn_run() */
	PIDFDSPAWN_BACKEND_FALLBACK = 2, /* clone3(CLONE_VM|CLONE_VFORK) */
};

/*
 * The backend that served the last posix_spawn-family call made by the
 * calling thread (also when that call failed after choosing a backend).
 * The environment variable PIDFDSPAWN_BACKEND=auto|builder|fallback forces
 * a backend; PIDFDSPAWN_TRACE_FD=N makes every call write one line
 * describing it to file descriptor N.
 */
enum pidfdspawn_backend pidfdspawn_last_backend(void);
const char *pidfdspawn_backend_name(enum pidfdspawn_backend backend);
/*
 * The features a request needs from the running kernel's builder
 * (PIDFDSPAWN_FEAT_BUILDER alone for a plain spawn).  Where the library
 * has two ways to do something (a close as CLOSE or as CLOSE_RANGE, a
 * PATH search in the kernel or around it) the answer names the one the
 * library uses on this kernel, so it depends on pidfdspawn_probe().
 */
uint32_t pidfdspawn_request_features(const posix_spawn_file_actions_t *fa,
				     const posix_spawnattr_t *attr, int use_path);

/* ---- Layer 2: builder API (-1 and errno on failure) -------------------- */

struct pidfdspawn_builder;

struct pidfdspawn_builder *pidfdspawn_builder_new(void);
void pidfdspawn_builder_free(struct pidfdspawn_builder *b);
/* The strings and arrays are referenced, not copied: keep them alive. */
int pidfdspawn_builder_set_path(struct pidfdspawn_builder *b, const char *path);
int pidfdspawn_builder_set_argv(struct pidfdspawn_builder *b,
				char *const argv[]);
int pidfdspawn_builder_set_envp(struct pidfdspawn_builder *b,
				char *const envp[]);
int pidfdspawn_builder_add_dup2(struct pidfdspawn_builder *b, int fd,
				int newfd);
int pidfdspawn_builder_add_close_range(struct pidfdspawn_builder *b,
				       unsigned int first, unsigned int last,
				       unsigned int flags);
int pidfdspawn_builder_add_fchdir(struct pidfdspawn_builder *b, int fd);
/*
 * One function per kernel feature, each recording one action or setting
 * (referenced, not copied, like the path).  They check their arguments
 * only (EINVAL, EBADF) and never reach the kernel; the run does, and
 * tells the three cases apart: ENOSYS when the running kernel has no
 * spawn builder at all (pidfdspawn_probe() lacks PIDFDSPAWN_FEAT_BUILDER),
 * EOPNOTSUPP (the same value as ENOTSUP) when its builder lacks a feature
 * the request uses (for the features the probe knows, before any builder
 * or child exists; an "exec-fd" the kernel does not know, from the
 * kernel), and EINVAL only for invalid arguments.
 */
/* Actions, in list order with the ones above. */
int pidfdspawn_builder_add_open(struct pidfdspawn_builder *b, int fd,
				const char *path, int flags, mode_t mode);
int pidfdspawn_builder_add_close(struct pidfdspawn_builder *b, int fd);
int pidfdspawn_builder_add_chdir(struct pidfdspawn_builder *b,
				 const char *path);
int pidfdspawn_builder_add_tcsetpgrp(struct pidfdspawn_builder *b, int fd);
/* Attributes (pidfd_config() keys), applied by the kernel in its order. */
int pidfdspawn_builder_set_sigmask(struct pidfdspawn_builder *b,
				   const sigset_t *set);
int pidfdspawn_builder_set_sigdefault(struct pidfdspawn_builder *b,
				      const sigset_t *set);
int pidfdspawn_builder_set_pgroup(struct pidfdspawn_builder *b, pid_t pgroup);
int pidfdspawn_builder_set_setsid(struct pidfdspawn_builder *b);
int pidfdspawn_builder_set_resetids(struct pidfdspawn_builder *b);
int pidfdspawn_builder_set_sched_policy(struct pidfdspawn_builder *b,
					int policy);
int pidfdspawn_builder_set_sched_priority(struct pidfdspawn_builder *b,
					  int priority);
int pidfdspawn_builder_set_cgroup(struct pidfdspawn_builder *b, int fd);
/* The program by descriptor ("exec-fd"; no path then) or by PATH search. */
int pidfdspawn_builder_set_exec_fd(struct pidfdspawn_builder *b, int fd);
int pidfdspawn_builder_set_search_path(struct pidfdspawn_builder *b,
				       const char *search_path);
/* PIDFDSPAWN_RUN_* flags of the run (PIDFDSPAWN_RUN_CLOEXEC_DEFAULT). */
int pidfdspawn_builder_set_flags(struct pidfdspawn_builder *b,
				 unsigned int flags);
/*
 * Create the child: 0 on success with *pid and *pidfd set (pidfd may be
 * NULL, then the fd is closed).  On failure -1 and errno, *pid and *pidfd
 * untouched; a child that was created and failed its setup or exec has
 * been reaped.  errno: EINVAL no path (nor exec fd) or no argv; ENOSYS no
 * spawn builder in this kernel (the posix_spawn family still works, by
 * its fallback); EOPNOTSUPP a feature this kernel's builder lacks; else
 * the kernel's, e.g. ENOENT or EACCES from the exec, EMFILE, EPERM.
 */
int pidfdspawn_builder_run(struct pidfdspawn_builder *b, pid_t *pid,
			   int *pidfd);

/* ---- Layer 3: glibc 2.39 additions missing from older <spawn.h> ------- */

#ifndef POSIX_SPAWN_USEVFORK
#define POSIX_SPAWN_USEVFORK 0x40
#endif
#ifndef POSIX_SPAWN_SETSID
#define POSIX_SPAWN_SETSID 0x80
#endif
#ifndef POSIX_SPAWN_SETCGROUP
#define POSIX_SPAWN_SETCGROUP 0x100
#endif
/*
 * libpidfdspawn extension (the value and meaning of XNU's
 * POSIX_SPAWN_CLOEXEC_DEFAULT): the child inherits only the descriptors
 * that the file actions place (adddup2 targets, addopen targets without
 * O_CLOEXEC) and that are still open at exec; every other descriptor of
 * the caller is treated as close-on-exec, stdin/stdout/stderr included.
 * glibc's posix_spawnattr_setflags() rejects it with EINVAL.
 */
#define POSIX_SPAWN_CLOEXEC_DEFAULT_NP 0x4000

/* <spawn.h> declares these only with _GNU_SOURCE/_DEFAULT_SOURCE. */
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict fa,
					 const char *__restrict path);
int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa,
					  int fd);
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *fa,
					     int from);
int posix_spawn_file_actions_addtcsetpgrp_np(posix_spawn_file_actions_t *fa,
					     int tcfd);

#if !defined(__GLIBC__) || !__GLIBC_PREREQ(2, 39)
int pidfd_spawn(int *__restrict pidfd, const char *__restrict path,
		const posix_spawn_file_actions_t *__restrict file_actions,
		const posix_spawnattr_t *__restrict attrp,
		char *const argv[__restrict_arr], char *const envp[__restrict_arr]);
int pidfd_spawnp(int *__restrict pidfd, const char *__restrict file,
		 const posix_spawn_file_actions_t *__restrict file_actions,
		 const posix_spawnattr_t *__restrict attrp,
		 char *const argv[__restrict_arr], char *const envp[__restrict_arr]);
int posix_spawnattr_getcgroup_np(const posix_spawnattr_t *__restrict attr,
				 int *__restrict cgroup);
int posix_spawnattr_setcgroup_np(posix_spawnattr_t *attr, int cgroup);
#endif

#ifdef __cplusplus
}
#endif

#endif /* PIDFDSPAWN_H */
