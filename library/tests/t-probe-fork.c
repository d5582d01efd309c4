/* SPDX-License-Identifier: MIT */
/*
 * The probe is fork-safe: a process forked while another of its threads
 * is inside the probe (the first spawn of the process, on another thread)
 * probes for itself and does not hang.  A lock held across the fork by
 * the probing thread would stay held in the child forever.
 *
 * The probing thread is held inside the probe by a seccomp user
 * notification on pidfd_open(), the probe's first system call: a
 * supervisor thread keeps the first notification (that thread's) pending
 * until the end and lets every later one (the child's) through.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "tap.h"
#include "seccomp.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif

static int listener = -1;
static int held_pipe[2], release_pipe[2];
static uint32_t thread_mask;

static int install_notify_filter(void)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PFS_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = {
		.len = sizeof(prog) / sizeof(prog[0]),
		.filter = prog,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
}

static void let_through(uint64_t id)
{
	struct seccomp_notif_resp resp;

	memset(&resp, 0, sizeof(resp));
	resp.id = id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* Holds the first pidfd_open() until told, lets the others through. */
static void *supervisor(void *arg)
{
	uint64_t held = 0;
	int holding = 0;

	(void)arg;
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = listener, .events = POLLIN },
			{ .fd = release_pipe[0], .events = POLLIN },
		};
		struct seccomp_notif req;

		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents) {
			if (holding)
				let_through(held);
			return NULL;
		}
		if (!(p[0].revents & POLLIN))
			continue;
		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
			continue;
		if (!holding) {
			holding = 1;
			held = req.id;
			(void)!write(held_pipe[1], "h", 1);
		} else {
			let_through(req.id);
		}
	}
}

static void *first_spawner(void *arg)
{
	(void)arg;
	thread_mask = pidfdspawn_probe();
	return NULL;
}

static int wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

int main(void)
{
	pthread_t sup, spawner;
	uint32_t child_mask = 0;
	int status = 0, exited = 0, mask_pipe[2];
	char c;
	pid_t pid;

	tap_plan(4);
	listener = install_notify_filter();
	if (listener < 0 || pipe(held_pipe) || pipe(release_pipe) ||
	    pipe(mask_pipe)) {
		printf("Bail out! seccomp user notification: %s\n", strerror(errno));
		return 1;
	}
	pthread_create(&sup, NULL, supervisor, NULL);
	pthread_create(&spawner, NULL, first_spawner, NULL);
	ok(wait_readable(held_pipe[0], 10000) && read(held_pipe[0], &c, 1) == 1,
	   "a thread's first probe is held in its pidfd_open()");

	pid = fork();
	if (pid == 0) {
		uint32_t m = pidfdspawn_probe();

		(void)!write(mask_pipe[1], &m, sizeof(m));
		_exit(0);
	}
	close(mask_pipe[1]);
	/* 20 s: far more than a probe takes, even under TCG. */
	for (int i = 0; i < 200 && !exited; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			exited = 1;
		else
			nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	}
	if (!exited) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	ok(exited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a child forked meanwhile probes for itself without hanging "
	   "(%s)", exited ? "exited" : "hung for 20 s, killed");

	(void)!write(release_pipe[1], "r", 1);
	pthread_join(spawner, NULL);
	pthread_join(sup, NULL);
	ok(read(mask_pipe[0], &child_mask, sizeof(child_mask)) ==
	   sizeof(child_mask) && child_mask == thread_mask,
	   "the child's probe equals the thread's (0x%x, 0x%x)", child_mask,
	   thread_mask);
	ok(pidfdspawn_probe() == thread_mask,
	   "the answer is cached afterwards (0x%x)", pidfdspawn_probe());
	return tap_done();
}
