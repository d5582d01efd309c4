/*
 * The spawn methods.  Every method gives the child the same fds 0-2.  When the parent
 * has extra inheritable fds (job->close_fds), most make the "everyday request", what
 * make, ninja and Python's subprocess ask for: a pipe (job->stdout_fd, above the extra
 * fds) onto the child's fd 1, then close 3..~0U, each method the way it can: dup2() and
 * close_range() in a fork/vfork/clone3 child, adddup2 + addclosefrom_np file actions for
 * glibc and the library, DUP2 then CLOSE_RANGE actions for the builder.  Two keep the
 * parent's fd 1 (the same pipe) and only close: clone3-files (its child shares the
 * parent's table until the close unshares it, so the close must come first) and
 * pidfd_spawn_run-leadclose (the builder's leading-close form, an extra row).
 * pidfd_spawn_run-cloexec and the floor give the child only 0-2 in every parent.
 */
#define _GNU_SOURCE
#include "methods.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd_spawn_abi.h"
#include "pidfdspawn.h"


#define CLONE3_STACK_SIZE (64 * 1024)

/* glibc's everyday request: adddup2(job->stdout_fd, 1) + addclosefrom_np(3). */
static posix_spawn_file_actions_t everyday_actions;
/* The builder's: DUP2 job->stdout_fd -> 1, then CLOSE_RANGE(3, ~0U). */
static struct pidfd_spawn_action everyday_builder_actions[2];
static void *clone3_stack;

static int library_everyday_init(const struct spawn_job *job);

int methods_init(const struct spawn_job *job)
{
	int err;

	if (job->close_fds) {
		if (job->stdout_fd < 3)
			return -EBADF;
		err = posix_spawn_file_actions_init(&everyday_actions);
		if (!err)
			err = posix_spawn_file_actions_adddup2(&everyday_actions, job->stdout_fd, 1);
		if (!err)
			err = posix_spawn_file_actions_addclosefrom_np(&everyday_actions, 3);
		if (err)
			return -err;
		everyday_builder_actions[0] = (struct pidfd_spawn_action){
			.type = PIDFD_SPAWN_ACTION_DUP2, .fd = (__u32)job->stdout_fd, .newfd = 1 };
		everyday_builder_actions[1] = (struct pidfd_spawn_action){
			.type = PIDFD_SPAWN_ACTION_CLOSE_RANGE, .fd = 3, .newfd = ~0U };
		err = library_everyday_init(job);
		if (err)
			return err;
	}
	clone3_stack = mmap(NULL, CLONE3_STACK_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	return clone3_stack == MAP_FAILED ? -errno : 0;
}

/* What runs in a fork, vfork or clone3 child: only system calls. */
static int exec_child_flags(const struct spawn_job *job, unsigned int close_flags)
{
	if (job->close_fds && syscall(SYS_close_range, 3U, ~0U, close_flags) != 0)
		return 126;
	execve(job->path, job->argv, job->envp);
	return 127;
}

/* The everyday request: the pipe onto fd 1, then close 3..~0U. */
static int exec_child(const struct spawn_job *job)
{
	if (job->close_fds && dup2(job->stdout_fd, 1) != 1)
		return 125;
	return exec_child_flags(job, 0);
}

/* ---- fork + execve */
static int spawn_fork(const struct spawn_job *job, struct spawned *out)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(exec_child(job));
	out->pid = pid;
	return 0;
}

/* ---- vfork + execve */
static int spawn_vfork(const struct spawn_job *job, struct spawned *out)
{
	pid_t pid = vfork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(exec_child(job));
	out->pid = pid;
	return 0;
}

/* ---- glibc posix_spawn (clone3 CLONE_VM|CLONE_VFORK on its own stack, in glibc) */
static int spawn_posix_spawn(const struct spawn_job *job, struct spawned *out)
{
	int err = posix_spawn(&out->pid, job->path, job->close_fds ? &everyday_actions : NULL,
			      NULL, job->argv, job->envp);
	return -err;
}

/* ---- clone3(CLONE_VM|CLONE_VFORK|CLONE_PIDFD) + execve */
static int clone3_child(void *arg)
{
	return exec_child(arg);
}

/*
 * Sharing the parent's table, CLOSE_RANGE_UNSHARE copies only the fds below 3.  A dup2()
 * before it would change the parent's own fd 1, so this child keeps the parent's fd 1
 * (the same pipe) and only closes: the leading-close form, not the everyday request.
 */
static int clone3_files_child(void *arg)
{
	return exec_child_flags(arg, CLOSE_RANGE_UNSHARE);
}

/*
 * clone3 with a new stack: the child comes back from the system call on that stack and
 * must not return into the parent's frames, so it calls fn(arg) from here and exits with
 * its result.  fn and arg travel in callee-saved registers, which the child inherits.
 */
static long clone3_run(struct clone_args *args, int (*fn)(void *), void *arg)
{
	register long fn_reg asm("r12") = (long)fn;
	register long arg_reg asm("r13") = (long)arg;
	long ret;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "xor %%ebp, %%ebp\n\t"
		     "mov %%r13, %%rdi\n\t"
		     "call *%%r12\n\t"
		     "mov %%eax, %%edi\n\t"
		     "mov %[exit_nr], %%eax\n\t"
		     "syscall\n\t"
		     "hlt\n"
		     "1:\n\t"
		     : "=a"(ret)
		     : "0"((long)SYS_clone3), "D"(args), "S"(sizeof(*args)), "r"(fn_reg),
		       "r"(arg_reg), [exit_nr] "i"(SYS_exit)
		     : "rcx", "r11", "rdx", "memory");
	return ret;
}

static int clone3_spawn(const struct spawn_job *job, struct spawned *out, uint64_t flags,
			int (*child)(void *))
{
	int pidfd = -1;
	struct clone_args args = {
		.flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | flags,
		.pidfd = (uintptr_t)&pidfd,
		.exit_signal = SIGCHLD,
		.stack = (uintptr_t)clone3_stack,
		.stack_size = CLONE3_STACK_SIZE,
	};
	long pid = clone3_run(&args, child, (void *)job);

	if (pid < 0)
		return (int)pid;
	out->pid = (pid_t)pid;
	out->fd = pidfd;
	return 0;
}

static int spawn_clone3(const struct spawn_job *job, struct spawned *out)
{
	return clone3_spawn(job, out, 0, clone3_child);
}

/*
 * Not a method anyone ships: the child starts on the parent's fd table and unshares it
 * while closing, so only fds 0-2 are copied, not the whole table first.  The builder
 * does the same inside the kernel for CLOSE_RANGE(n, ~0U): this is the userspace
 * counterpart to compare pidfd_spawn_run with (in its leading-close form: see above).
 */
static int spawn_clone3_files(const struct spawn_job *job, struct spawned *out)
{
	return clone3_spawn(job, out, CLONE_FILES, clone3_files_child);
}

/*
 * ---- raw pidfd_open(0, PIDFD_EMPTY) + pidfd_spawn_run()
 *
 * pidfd_spawn_run: with job->close_fds the everyday request, DUP2 job->stdout_fd -> 1
 * then CLOSE_RANGE(3, ~0U).  A kernel whose fast path takes a CLOSE_RANGE(n, ~0U) after
 * DUP2/CLOSE/CLOSE_RANGE actions builds the child's table from fds 0-2 and the DUP2's
 * source; one that takes it only as the first action copies the whole table.
 * pidfd_spawn_run-leadclose: the earlier form, one CLOSE_RANGE(3, ~0U) action alone, the
 * first action (the child keeps the parent's fd 1).
 * pidfd_spawn_run-cloexec: PIDFD_SPAWN_RUN_CLOEXEC_DEFAULT and DUP2 0->0, 1->1, 2->2 in
 * every parent; the child's table is built from the three fds the actions place.
 */
static const struct pidfd_spawn_action close_all_action = {
	.type = PIDFD_SPAWN_ACTION_CLOSE_RANGE,
	.fd = 3,
	.newfd = ~0U,
};

static const struct pidfd_spawn_action keep_stdio_actions[] = {
	{ .type = PIDFD_SPAWN_ACTION_DUP2, .fd = 0, .newfd = 0 },
	{ .type = PIDFD_SPAWN_ACTION_DUP2, .fd = 1, .newfd = 1 },
	{ .type = PIDFD_SPAWN_ACTION_DUP2, .fd = 2, .newfd = 2 },
};

static void builder_args(struct pidfd_spawn_run_args *args, const struct spawn_job *job,
			 __u32 flags, const struct pidfd_spawn_action *actions, __u32 nr_actions)
{
	*args = (struct pidfd_spawn_run_args){
		.flags = flags,
		.path = (uintptr_t)job->path,
		.argv = (uintptr_t)job->argv,
		.envp = (uintptr_t)job->envp,
	};
	if (nr_actions) {
		args->nr_actions = nr_actions;
		args->actions = (uintptr_t)actions;
		args->action_size = sizeof(*actions);
	}
}

static int builder_run(const struct spawn_job *job, struct spawned *out, __u32 flags,
		       const struct pidfd_spawn_action *actions, __u32 nr_actions)
{
	struct pidfd_spawn_run_args args;
	int fd = (int)syscall(SYS_pidfd_open, 0, PIDFD_EMPTY);
	long pid;

	if (fd < 0)
		return -errno;
	/* The version-0 block: what every builder kernel takes. */
	builder_args(&args, job, flags, actions, nr_actions);
	pid = syscall(SYS_pidfd_spawn_run, fd, &args, (size_t)PIDFD_SPAWN_RUN_SIZE_VER0);
	if (pid < 0) {
		int err = errno;

		/* After a setup/exec failure the fd is a pidfd of a child that exited 127. */
		close(fd);
		return -err;
	}
	out->pid = (pid_t)pid;
	out->fd = fd;
	return 0;
}

static int spawn_builder(const struct spawn_job *job, struct spawned *out)
{
	return builder_run(job, out, 0, everyday_builder_actions, job->close_fds ? 2 : 0);
}

static int spawn_builder_leadclose(const struct spawn_job *job, struct spawned *out)
{
	return builder_run(job, out, 0, &close_all_action, job->close_fds ? 1 : 0);
}

/*
 * pidfd_spawn_run-close (opt-in): the same run, with the builder's fd closed inside the
 * timed part, as libpidfdspawn's posix_spawn() must (it returns no fd): the raw cost of
 * that close, for telling it apart from the library's own work.
 */
static int spawn_builder_close(const struct spawn_job *job, struct spawned *out)
{
	int err = builder_run(job, out, 0, everyday_builder_actions, job->close_fds ? 2 : 0);

	if (!err) {
		close(out->fd);
		out->fd = -1;
	}
	return err;
}

/*
 * One call, fd -1 and PIDFD_SPAWN_RUN_NOFD (plus @flags), the everyday request in the fd
 * parents: a builder of the call's own and no builder fd, the child's pid stored at args.pid.
 * With PIDFD_SPAWN_RUN_PIDFD the call returns the child's pidfd instead of its pid.
 */
static int builder_run_nofd(const struct spawn_job *job, struct spawned *out, __u32 flags)
{
	struct pidfd_spawn_run_args args;
	int child = -1;
	long ret;

	builder_args(&args, job, PIDFD_SPAWN_RUN_NOFD | flags, everyday_builder_actions,
		     job->close_fds ? 2 : 0);
	args.pid = (uintptr_t)&child;
	ret = syscall(SYS_pidfd_spawn_run, -1, &args, sizeof(args));
	if (ret < 0) {
		int err = errno;

		/* A child that failed its setup exits 127: reap it. */
		if (child > 0)
			waitpid(child, NULL, 0);
		return -err;
	}
	out->pid = child;
	if (flags & PIDFD_SPAWN_RUN_PIDFD)
		out->fd = (int)ret;
	return 0;
}

/* pidfd_spawn_run-nofd: what a posix_spawn() caller needs, which has no use for a pidfd. */
static int spawn_builder_nofd(const struct spawn_job *job, struct spawned *out)
{
	return builder_run_nofd(job, out, 0);
}

/*
 * pidfd_spawn_run-pidfd: the child's pidfd from the same call, made as clone3()'s CLONE_PIDFD
 * makes one (what a pidfd_spawn() caller needs, which has nothing to stage).
 */
static int spawn_builder_pidfd(const struct spawn_job *job, struct spawned *out)
{
	return builder_run_nofd(job, out, PIDFD_SPAWN_RUN_PIDFD);
}

static int spawn_builder_cloexec(const struct spawn_job *job, struct spawned *out)
{
	return builder_run(job, out, PIDFD_SPAWN_RUN_CLOEXEC_DEFAULT, keep_stdio_actions,
			   sizeof(keep_stdio_actions) / sizeof(keep_stdio_actions[0]));
}

static const char *builder_unavailable(const struct spawn_job *job)
{
	int fd = (int)syscall(SYS_pidfd_open, 0, PIDFD_EMPTY);

	(void)job;
	if (fd < 0)
		return "kernel has no spawn builder (pidfd_open(0, PIDFD_EMPTY) fails)";
	close(fd);
	return NULL;
}

/* 0 when the kernel has a builder that reports run flag @flag (PIDFD_CONFIG_QUERY). */
static int builder_lacks_run_flag(const struct spawn_job *job, __u32 flag)
{
	struct pidfd_spawn_features features;

	if (builder_unavailable(job))
		return 1;
	memset(&features, 0, sizeof(features));
	return syscall(SYS_pidfd_config, -1, PIDFD_CONFIG_QUERY, NULL, &features,
		       sizeof(features)) != 0 || !(features.run_flags & flag);
}

static const char *builder_cloexec_unavailable(const struct spawn_job *job)
{
	return builder_unavailable(job) ?:
	       builder_lacks_run_flag(job, PIDFD_SPAWN_RUN_CLOEXEC_DEFAULT) ?
	       "kernel's builder lacks PIDFD_SPAWN_RUN_CLOEXEC_DEFAULT (PIDFD_CONFIG_QUERY)" : NULL;
}

static const char *builder_nofd_unavailable(const struct spawn_job *job)
{
	return builder_unavailable(job) ?:
	       builder_lacks_run_flag(job, PIDFD_SPAWN_RUN_NOFD) ?
	       "kernel's builder lacks PIDFD_SPAWN_RUN_NOFD (PIDFD_CONFIG_QUERY)" : NULL;
}

static const char *builder_pidfd_unavailable(const struct spawn_job *job)
{
	return builder_unavailable(job) ?:
	       builder_lacks_run_flag(job, PIDFD_SPAWN_RUN_PIDFD) ?
	       "kernel's builder lacks PIDFD_SPAWN_RUN_PIDFD (PIDFD_CONFIG_QUERY)" : NULL;
}

/* ---- the floor: a helper started earlier only execs; no process is created in time */
static pid_t floor_pid = -1;
static int floor_go_fd = -1;

static int wait_ready_byte(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char ready;

	if (poll(&pfd, 1, 60 * 1000) != 1)
		return -ETIMEDOUT;
	if (read(fd, &ready, 1) != 1)
		return -EIO;
	return ready == 'R' ? 0 : -EPROTO;
}

static int floor_prepare(const struct spawn_job *job)
{
	posix_spawn_file_actions_t actions;
	char *argv[] = { (char *)job->helper, (char *)job->path, NULL };
	int go[2], err;

	if (pipe2(go, O_CLOEXEC) != 0)
		return -errno;
	err = posix_spawn_file_actions_init(&actions);
	if (!err)
		err = posix_spawn_file_actions_adddup2(&actions, go[0], 0);
	if (!err)
		err = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
	if (!err)
		err = posix_spawn(&floor_pid, job->helper, &actions, NULL, argv, job->envp);
	posix_spawn_file_actions_destroy(&actions);
	close(go[0]);
	if (err) {
		close(go[1]);
		return -err;
	}
	floor_go_fd = go[1];
	/* The helper says "ready" through the timestamp pipe. */
	return wait_ready_byte(job->ts_read_fd);
}

static int spawn_floor(const struct spawn_job *job, struct spawned *out)
{
	(void)job;
	if (write(floor_go_fd, "g", 1) != 1)
		return -errno;
	out->pid = floor_pid;
	out->fd = floor_go_fd;
	floor_pid = floor_go_fd = -1;
	return 0;
}

/*
 * ---- our library's posix_spawn, once per backend
 *
 * libpidfdspawn defines posix_spawn and the file-action functions itself, so linking it
 * would replace glibc's under the baseline.  It is loaded with dlopen() instead, with
 * RTLD_DEEPBIND so that its own calls stay inside it, and its functions are looked up in
 * that handle; PIDFDSPAWN_BACKEND is set before each sample, outside the timed part, and
 * the backend that served the call is checked after it.
 */
struct library {
	void *handle;
	const char *error;
	int (*spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);
	int (*fa_init)(posix_spawn_file_actions_t *);
	int (*fa_adddup2)(posix_spawn_file_actions_t *, int, int);
	int (*fa_addclosefrom)(posix_spawn_file_actions_t *, int);
	uint32_t (*probe)(void);
	enum pidfdspawn_backend (*last_backend)(void);
	/* the everyday request, built by methods_init() */
	posix_spawn_file_actions_t everyday;
	int everyday_ready;
};
/* lib: --library (lib-builder, lib-fallback); alt_lib: --alt-library (lib-*-alt) */
static struct library lib, alt_lib;

static const char *library_open(struct library *l, const char *path)
{
	static char message[2][512];
	char *buf = message[l == &alt_lib];

	if (l->handle || l->error)
		return l->error;
	if (!path)
		return l->error = "no --alt-library given";
	/* A path, never a bare soname: two builds of the library load side by side. */
	l->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
	if (!l->handle) {
		snprintf(buf, sizeof(message[0]), "libpidfdspawn not loadable: %s", dlerror());
		return l->error = buf;
	}
	*(void **)&l->spawn = dlsym(l->handle, "posix_spawn");
	*(void **)&l->fa_init = dlsym(l->handle, "posix_spawn_file_actions_init");
	*(void **)&l->fa_adddup2 = dlsym(l->handle, "posix_spawn_file_actions_adddup2");
	*(void **)&l->fa_addclosefrom = dlsym(l->handle, "posix_spawn_file_actions_addclosefrom_np");
	*(void **)&l->probe = dlsym(l->handle, "pidfdspawn_probe");
	*(void **)&l->last_backend = dlsym(l->handle, "pidfdspawn_last_backend");
	if (!l->spawn || !l->fa_init || !l->fa_adddup2 || !l->fa_addclosefrom || !l->probe ||
	    !l->last_backend)
		return l->error = "libpidfdspawn lacks posix_spawn, dup2 or closefrom file actions, "
				  "or backend introspection";
	return NULL;
}

/*
 * The everyday request in each library loaded so far (prepare_samples() loads them
 * before the parent is shaped), with the library's own file-action functions.
 */
static int library_everyday_init(const struct spawn_job *job)
{
	struct library *all[] = { &lib, &alt_lib };

	for (unsigned int i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct library *l = all[i];
		int err;

		if (!l->handle || l->error)
			continue;
		err = l->fa_init(&l->everyday);
		if (!err)
			err = l->fa_adddup2(&l->everyday, job->stdout_fd, 1);
		if (!err)
			err = l->fa_addclosefrom(&l->everyday, 3);
		if (err)
			return -err;
		l->everyday_ready = 1;
	}
	return 0;
}

static const char *library_load(const struct spawn_job *job)
{
	return library_open(&lib, job->library);
}

static const char *lib_fallback_unavailable(const struct spawn_job *job)
{
	return library_load(job);
}

static const char *builder_usable(const struct library *l, const struct spawn_job *job)
{
	uint32_t needs = PIDFDSPAWN_FEAT_BUILDER;

	if (job->close_fds)
		needs |= PIDFDSPAWN_FEAT_CLOSE_RANGE;
	if ((l->probe() & needs) != needs)
		return "libpidfdspawn's probe finds no usable spawn builder in this kernel";
	return NULL;
}

static const char *lib_builder_unavailable(const struct spawn_job *job)
{
	const char *why = library_load(job);

	return why ? why : builder_usable(&lib, job);
}

static const char *lib_builder_alt_unavailable(const struct spawn_job *job)
{
	const char *why = library_open(&alt_lib, job->alt_library);

	return why ? why : builder_usable(&alt_lib, job);
}

static int lib_spawn_with(const struct library *l, const struct spawn_job *job,
			  struct spawned *out, enum pidfdspawn_backend expected)
{
	int err;

	if (job->close_fds && !l->everyday_ready)
		return -EINVAL;	/* loaded after methods_init(): a bug here */
	err = l->spawn(&out->pid, job->path, job->close_fds ? &l->everyday : NULL, NULL,
		       job->argv, job->envp);

	if (!err && l->last_backend() != expected) {
		/* The child exists: let the caller reap it, then fail loudly. */
		fprintf(stderr, "spawnbench: libpidfdspawn used backend %d, not %d\n",
			(int)l->last_backend(), (int)expected);
		return -EPROTO;
	}
	return -err;
}

static int lib_spawn(const struct spawn_job *job, struct spawned *out,
		     enum pidfdspawn_backend expected)
{
	return lib_spawn_with(&lib, job, out, expected);
}

static const char *lib_fallback_alt_unavailable(const struct spawn_job *job)
{
	return library_open(&alt_lib, job->alt_library);
}

static int spawn_lib_fallback_alt(const struct spawn_job *job, struct spawned *out)
{
	return lib_spawn_with(&alt_lib, job, out, PIDFDSPAWN_BACKEND_FALLBACK);
}

static int spawn_lib_builder_alt(const struct spawn_job *job, struct spawned *out)
{
	return lib_spawn_with(&alt_lib, job, out, PIDFDSPAWN_BACKEND_BUILDER);
}

static int lib_builder_prepare(const struct spawn_job *job)
{
	(void)job;
	return setenv("PIDFDSPAWN_BACKEND", "builder", 1) ? -errno : 0;
}

static int lib_fallback_prepare(const struct spawn_job *job)
{
	(void)job;
	return setenv("PIDFDSPAWN_BACKEND", "fallback", 1) ? -errno : 0;
}

static int spawn_lib_builder(const struct spawn_job *job, struct spawned *out)
{
	return lib_spawn(job, out, PIDFDSPAWN_BACKEND_BUILDER);
}

static int spawn_lib_fallback(const struct spawn_job *job, struct spawned *out)
{
	return lib_spawn(job, out, PIDFDSPAWN_BACKEND_FALLBACK);
}

const struct method methods[] = {
	{ .name = "fork", .what = "fork() + dup2() + close_range() + execve()",
	  .spawn = spawn_fork, .everyday = 1 },
	{ .name = "vfork", .what = "vfork() + dup2() + close_range() + execve()",
	  .spawn = spawn_vfork, .everyday = 1 },
	{ .name = "posix_spawn", .what = "glibc posix_spawn() (+ adddup2, addclosefrom_np)",
	  .spawn = spawn_posix_spawn, .everyday = 1 },
	{ .name = "clone3",
	  .what = "clone3(CLONE_VM|CLONE_VFORK|CLONE_PIDFD) + dup2() + close_range() + execve()",
	  .spawn = spawn_clone3, .everyday = 1 },
	{ .name = "clone3-files",
	  .what = "clone3(... |CLONE_FILES) + close_range(CLOSE_RANGE_UNSHARE) + execve() "
		  "(leading close: keeps the parent's fd 1)",
	  .spawn = spawn_clone3_files },
	{ .name = "pidfd_spawn_run",
	  .what = "pidfd_open(0, PIDFD_EMPTY) + pidfd_spawn_run() (+ DUP2 pipe->1, CLOSE_RANGE 3..~0U)",
	  .unavailable = builder_unavailable, .spawn = spawn_builder, .everyday = 1 },
	{ .name = "pidfd_spawn_run-nofd",
	  .what = "pidfd_spawn_run(-1) with PIDFD_SPAWN_RUN_NOFD: one call, no fd (+ DUP2 pipe->1, "
		  "CLOSE_RANGE 3..~0U)",
	  .unavailable = builder_nofd_unavailable, .spawn = spawn_builder_nofd, .everyday = 1 },
	{ .name = "pidfd_spawn_run-pidfd",
	  .what = "pidfd_spawn_run(-1) with PIDFD_SPAWN_RUN_NOFD | PIDFD_SPAWN_RUN_PIDFD: one call "
		  "returning the child's pidfd (+ DUP2 pipe->1, CLOSE_RANGE 3..~0U)",
	  .unavailable = builder_pidfd_unavailable, .spawn = spawn_builder_pidfd, .everyday = 1 },
	{ .name = "pidfd_spawn_run-leadclose",
	  .what = "pidfd_spawn_run() with one CLOSE_RANGE 3..~0U action, first (the earlier "
		  "request; only in parents that close)",
	  .unavailable = builder_unavailable, .spawn = spawn_builder_leadclose, .close_only = 1 },
	{ .name = "pidfd_spawn_run-cloexec",
	  .what = "pidfd_spawn_run() with PIDFD_SPAWN_RUN_CLOEXEC_DEFAULT + DUP2 0->0, 1->1, 2->2",
	  .unavailable = builder_cloexec_unavailable, .spawn = spawn_builder_cloexec,
	  .stdio_only = 1 },
	{ .name = "lib-builder", .what = "libpidfdspawn posix_spawn(), builder backend",
	  .unavailable = lib_builder_unavailable, .prepare = lib_builder_prepare,
	  .spawn = spawn_lib_builder, .everyday = 1 },
	{ .name = "lib-fallback", .what = "libpidfdspawn posix_spawn(), fallback backend",
	  .unavailable = lib_fallback_unavailable, .prepare = lib_fallback_prepare,
	  .spawn = spawn_lib_fallback, .everyday = 1 },
	/* Opt-in diagnostics (docs/benchmarks.md, "Library overhead per spawn"). */
	{ .name = "pidfd_spawn_run-close",
	  .what = "pidfd_spawn_run with the fd closed inside the timed part (opt-in)",
	  .unavailable = builder_unavailable, .spawn = spawn_builder_close, .opt_in = 1,
	  .everyday = 1 },
	{ .name = "lib-builder-alt",
	  .what = "lib-builder with the libpidfdspawn of --alt-library (opt-in)",
	  .unavailable = lib_builder_alt_unavailable, .prepare = lib_builder_prepare,
	  .spawn = spawn_lib_builder_alt, .opt_in = 1, .everyday = 1 },
	{ .name = "lib-fallback-alt",
	  .what = "lib-fallback with the libpidfdspawn of --alt-library (opt-in)",
	  .unavailable = lib_fallback_alt_unavailable, .prepare = lib_fallback_prepare,
	  .spawn = spawn_lib_fallback_alt, .opt_in = 1, .everyday = 1 },
	{ .name = "floor",
	  .what = "pre-started helper, clock started by it: exec + exit + wait, no process creation",
	  .prepare = floor_prepare, .start_from_pipe = 1, .spawn = spawn_floor, .stdio_only = 1 },
};
const unsigned int nr_methods = sizeof(methods) / sizeof(methods[0]);
