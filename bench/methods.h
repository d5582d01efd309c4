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
	/*
	 * With close_fds: the write end of the timestamp pipe, opened again (its own open
	 * file, O_NONBLOCK, close-on-exec) after the parent is shaped, so at the lowest
	 * free number, above the extra fds.  The "everyday request" puts it on the child's
	 * fd 1 and then closes 3..~0U, as make, ninja and Python's subprocess do.  -1
	 * without close_fds.
	 */
	int stdout_fd;
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
	/*
	 * Nonzero when, with job->close_fds, the method makes the everyday request: dup2
	 * job->stdout_fd onto fd 1, then close 3..~0U.  The others keep the parent's fd 1
	 * (what the fd check after the samples expects of fd 1).
	 */
	int everyday;
	/*
	 * Nonzero for extra rows that a run without --methods makes only in parents that
	 * close (--fds or --close): without a close they would repeat another method.
	 */
	int close_only;
};

extern const struct method methods[];
extern const unsigned int nr_methods;

/*
 * One-time setup shared by the methods (stacks, file actions); -errno on failure.
 * Called once the parent is shaped and job->stdout_fd is set (the file actions name it,
 * and glibc checks it against RLIMIT_NOFILE, which --fds raises).
 */
int methods_init(const struct spawn_job *job);

#endif
