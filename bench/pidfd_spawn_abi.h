/*
 * The spawn builder's system call interface, as the kernel series defines it
 * (include/uapi/linux/pidfd_spawn.h, PIDFD_EMPTY in linux/pidfd.h, syscalls 472/473).
 * Spelled out here so the benchmark builds on a host whose headers predate the series;
 * the values are the kernel header's, the structures its layout.
 */
#ifndef SPAWNBENCH_PIDFD_SPAWN_ABI_H
#define SPAWNBENCH_PIDFD_SPAWN_ABI_H

#include <linux/types.h>

#ifndef PIDFD_EMPTY
#define PIDFD_EMPTY (1U << 27)
#endif
#ifndef SYS_pidfd_config
#define SYS_pidfd_config 472
#endif
#ifndef SYS_pidfd_spawn_run
#define SYS_pidfd_spawn_run 473
#endif

/* Unless <linux/pidfd_spawn.h> came first (installed, its guard loses the _UAPI). */
#if !defined(_UAPI_LINUX_PIDFD_SPAWN_H) && !defined(_LINUX_PIDFD_SPAWN_H)
#define PIDFD_SPAWN_RUN_SIZE_VER0	64
#define PIDFD_SPAWN_ACTION_SIZE_VER0	32
#define PIDFD_SPAWN_ACTION_SIZE_VER1	56	/* adds path, open_flags, mode */
#define PIDFD_SPAWN_FEATURES_SIZE_VER0	32

/* pidfd_config(-1, PIDFD_CONFIG_QUERY, NULL, &features, size): what the kernel knows. */
#define PIDFD_CONFIG_QUERY	5

/*
 * @flags of struct pidfd_spawn_run_args: CLOEXEC_DEFAULT, the child keeps only the fds its
 * actions place; NOFD, fd -1: the call runs a builder of its own and leaves no fd, the child's
 * pid goes to @pid (at least PIDFD_SPAWN_RUN_SIZE_VER1 bytes); PIDFD, with NOFD: the call returns
 * a pidfd for the child instead of its pid.
 */
#define PIDFD_SPAWN_RUN_CLOEXEC_DEFAULT	(1U << 0)
#define PIDFD_SPAWN_RUN_NOFD		(1U << 1)
#define PIDFD_SPAWN_RUN_PIDFD		(1U << 2)
#define PIDFD_SPAWN_RUN_SIZE_VER1	72

struct pidfd_spawn_run_args {
	__u32 flags;
	__u32 nr_actions;
	__aligned_u64 path;
	__aligned_u64 argv;
	__aligned_u64 envp;
	__aligned_u64 actions;
	__u32 action_size;
	__u32 reserved0;
	__u64 reserved[2];
	__aligned_u64 pid;	/* PIDFD_SPAWN_RUN_NOFD only */
};

enum pidfd_spawn_action_type {
	PIDFD_SPAWN_ACTION_DUP2 = 0,
	PIDFD_SPAWN_ACTION_CLOSE_RANGE = 1,
	PIDFD_SPAWN_ACTION_FCHDIR = 2,
	PIDFD_SPAWN_ACTION_OPEN = 3,
	PIDFD_SPAWN_ACTION_CLOSE = 4,
	PIDFD_SPAWN_ACTION_CHDIR = 5,
	PIDFD_SPAWN_ACTION_TCSETPGRP = 6,
};

struct pidfd_spawn_action {
	__u32 type;
	__u32 flags;
	__u32 fd;
	__u32 newfd;
	__u64 reserved[2];
	/* PIDFD_SPAWN_ACTION_SIZE_VER0 ends here */
	__aligned_u64 path;
	__u64 open_flags;
	__u64 mode;
};

struct pidfd_spawn_features {
	__u64 actions;
	__u64 run_flags;
	__u64 config_cmds;
	__u32 action_size;
	__u32 run_size;
};
#endif

_Static_assert(sizeof(struct pidfd_spawn_run_args) == PIDFD_SPAWN_RUN_SIZE_VER1,
	       "pidfd_spawn_run_args is 72 bytes");
_Static_assert(sizeof(struct pidfd_spawn_action) == PIDFD_SPAWN_ACTION_SIZE_VER1,
	       "pidfd_spawn_action is 56 bytes");
_Static_assert(sizeof(struct pidfd_spawn_features) == PIDFD_SPAWN_FEATURES_SIZE_VER0,
	       "pidfd_spawn_features is 32 bytes");

#endif
