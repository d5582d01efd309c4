/* Spawn methods compared by spawnbench.  Each starts job->path with job->argv/envp. */
#ifndef SPAWNBENCH_METHODS_H
#define SPAWNBENCH_METHODS_H

#include <sys/types.h>

struct spawn_job {
	const char *path;	/* the timestamp child */
	const char *helper;	/* the floor's pre-started helper */
	const char *library;	/* libpidfdspawn.so to dlopen for the lib-* methods */
	const char *alt_library;	/* another build of it for lib-builder-alt, or NULL */
	char **argv;
	char **envp;
	int close_fds;		/* the child keeps only fds 0-2 (the parent has extra fds) */
	int ts_read_fd;		/* where children write; the floor's helper says "ready" here */
};

struct spawned {
	pid_t pid;
	int fd;			/* a pidfd (or the floor's go pipe) to close after reaping, or -1 */
};

struct method {
	const char *name;
	const char *what;	/* one line for the docs and the table legend */
	/* NULL when the method can run here, else why not (e.g. the kernel lacks it). */
	const char *(*unavailable)(const struct spawn_job *job);
	/* Untimed preparation before each sample (the floor starts its helper). */
	int (*prepare)(const struct spawn_job *job);
	/*
	 * Nonzero when the clock starts inside the spawned process (the floor's helper
	 * writes its own start time to the pipe before the child's timestamp).
	 */
	int start_from_pipe;
	/* The timed part: start the child.  Returns 0, or -errno with nothing to reap. */
	int (*spawn)(const struct spawn_job *job, struct spawned *out);
	/*
	 * Nonzero when the child keeps only fds 0-2 in every parent, not only with
	 * job->close_fds (what the fd check after the samples expects).
	 */
	int stdio_only;
	/*
	 * Nonzero for diagnostic methods that run only when --methods names them (they
	 * never add rows to the default tables).
	 */
	int opt_in;
};

extern const struct method methods[];
extern const unsigned int nr_methods;

/* One-time setup shared by the methods (stacks, file actions); -errno on failure. */
int methods_init(const struct spawn_job *job);

#endif
