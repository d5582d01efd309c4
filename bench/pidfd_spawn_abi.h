/*
 * The spawn builder's system call interface, as the kernel series defines it
 * (include/uapi/linux/pidfd_spawn.h, PIDFD_EMPTY in linux/pidfd.h, syscalls 472/473).
 * Spelled out here so the benchmark builds on a host whose headers predate the series.
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

#ifndef _UAPI_LINUX_PIDFD_SPAWN_H
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
};

enum pidfd_spawn_action_type {
	PIDFD_SPAWN_ACTION_DUP2 = 0,
	PIDFD_SPAWN_ACTION_CLOSE_RANGE = 1,
	PIDFD_SPAWN_ACTION_FCHDIR = 2,
};

struct pidfd_spawn_action {
	__u32 type;
	__u32 flags;
	__u32 fd;
	__u32 newfd;
	__u64 reserved[2];
};
#endif

_Static_assert(sizeof(struct pidfd_spawn_run_args) == 64, "pidfd_spawn_run_args is 64 bytes");
_Static_assert(sizeof(struct pidfd_spawn_action) == 32, "pidfd_spawn_action is 32 bytes");

#endif
