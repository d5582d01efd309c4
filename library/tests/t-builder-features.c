/* SPDX-License-Identifier: MIT */
/*
 * The builder API's function per kernel feature (issue 20, item 11): each
 * one's argument checks (everywhere), and its effect on the child where
 * PIDFDSPAWN_EXPECT_BUILDER lists the feature; where the kernel has a
 * builder without it the run is EOPNOTSUPP, without a builder ENOSYS.
 */
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "tap.h"
#include "seccomp.h"

static uint32_t have;
static int pipefd[2] = { -1, -1 };
static char *helper_argv[] = { "helper", NULL };

/* The RFC kernel's features: "exec-fd" came with the later ones. */
#define RFC_FEATURES (PIDFDSPAWN_FEAT_BUILDER | PIDFDSPAWN_FEAT_DUP2 | \
		      PIDFDSPAWN_FEAT_CLOSE_RANGE | PIDFDSPAWN_FEAT_FCHDIR)

/* A builder of the helper whose stdout is a fresh pipe. */
static struct pidfdspawn_builder *start(const char *path)
{
	struct pidfdspawn_builder *b = pidfdspawn_builder_new();

	if (!b || pipe2(pipefd, O_CLOEXEC) < 0)
		abort();
	if (path)
		pidfdspawn_builder_set_path(b, path);
	pidfdspawn_builder_set_argv(b, helper_argv);
	pidfdspawn_builder_set_envp(b, environ);
	pidfdspawn_builder_add_dup2(b, pipefd[1], 1);
	return b;
}

/* Run and free @b, collect the helper's report: 0 or the run's errno. */
static int finish(struct pidfdspawn_builder *b, char *out, size_t size,
		  int *status)
{
	size_t used = 0;
	pid_t pid = 0;
	ssize_t n;
	int err = 0;

	if (pidfdspawn_builder_run(b, &pid, NULL) < 0)
		err = errno;
	close(pipefd[1]);
	while (!err && used + 1 < size &&
	       (n = read(pipefd[0], out + used, size - 1 - used)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		used += (size_t)n;
	}
	out[used] = '\0';
	close(pipefd[0]);
	*status = err ? -1 : wait_status(pid);
	pidfdspawn_builder_free(b);
	return err;
}

static long num(const char *report, const char *key)
{
	char buf[64];

	return strtol(report_get(report, key, buf, sizeof(buf)), NULL, 10);
}

static unsigned long long hex(const char *report, const char *key)
{
	char buf[64];

	return strtoull(report_get(report, key, buf, sizeof(buf)), NULL, 16);
}

/* The run's errno where the kernel lacks something of @needs, or -1. */
static int lacking(uint32_t needs)
{
	if (!(have & PIDFDSPAWN_FEAT_BUILDER))
		return ENOSYS;
	if (needs & ~have)
		return EOPNOTSUPP;
	return -1;
}

/*
 * One feature's case: with the features, @cond (the effect) must hold
 * after a successful run; without, the run fails as lacking() says.
 */
static void check(uint32_t needs, int err, int status, int cond,
		  const char *what, const char *out)
{
	int want = lacking(needs);

	if (want < 0) {
		ok(err == 0 && status == 0 && cond, "%s (run: %s, status %d)",
		   what, err ? strerror(err) : "ok", status);
		if (!cond)
			diag("report: %s", out);
	} else {
		ok(err == want, "%s: without the feature the run is %s (%s)",
		   what, strerror(want), strerror(err));
	}
}

static void test_argument_errors(void)
{
	struct pidfdspawn_builder *b = pidfdspawn_builder_new();
	sigset_t set;

	sigemptyset(&set);
	ok(pidfdspawn_builder_add_open(b, -1, "/", O_RDONLY, 0) < 0 &&
	   errno == EBADF &&
	   pidfdspawn_builder_add_open(b, 3, NULL, O_RDONLY, 0) < 0 &&
	   errno == EINVAL &&
	   pidfdspawn_builder_add_open(b, 3, "/", O_RDONLY, 0) == 0,
	   "add_open: a negative fd is EBADF, a NULL path EINVAL");
	ok(pidfdspawn_builder_add_close(b, -1) < 0 && errno == EBADF &&
	   pidfdspawn_builder_add_close(b, 3) == 0,
	   "add_close: a negative fd is EBADF");
	ok(pidfdspawn_builder_add_chdir(b, NULL) < 0 && errno == EINVAL &&
	   pidfdspawn_builder_add_chdir(b, "/") == 0,
	   "add_chdir: a NULL path is EINVAL");
	ok(pidfdspawn_builder_add_tcsetpgrp(b, -1) < 0 && errno == EBADF &&
	   pidfdspawn_builder_add_tcsetpgrp(b, 0) == 0,
	   "add_tcsetpgrp: a negative fd is EBADF");
	ok(pidfdspawn_builder_set_sigmask(b, NULL) < 0 && errno == EINVAL &&
	   pidfdspawn_builder_set_sigmask(b, &set) == 0,
	   "set_sigmask: a NULL set is EINVAL");
	ok(pidfdspawn_builder_set_sigdefault(b, NULL) < 0 && errno == EINVAL &&
	   pidfdspawn_builder_set_sigdefault(b, &set) == 0,
	   "set_sigdefault: a NULL set is EINVAL");
	ok(pidfdspawn_builder_set_pgroup(b, -1) < 0 && errno == EINVAL &&
	   pidfdspawn_builder_set_pgroup(b, 0) == 0,
	   "set_pgroup: a negative group is EINVAL");
	ok(pidfdspawn_builder_set_setsid(b) == 0 &&
	   pidfdspawn_builder_set_resetids(b) == 0,
	   "set_setsid and set_resetids take no argument and succeed");
	ok(pidfdspawn_builder_set_sched_policy(b, -1) < 0 && errno == EINVAL &&
	   pidfdspawn_builder_set_sched_policy(b, SCHED_OTHER) == 0,
	   "set_sched_policy: a negative policy is EINVAL");
	ok(pidfdspawn_builder_set_sched_priority(b, -1) < 0 && errno == EINVAL &&
	   pidfdspawn_builder_set_sched_priority(b, 0) == 0,
	   "set_sched_priority: a negative priority is EINVAL");
	ok(pidfdspawn_builder_set_cgroup(b, -1) < 0 && errno == EBADF &&
	   pidfdspawn_builder_set_cgroup(b, 0) == 0,
	   "set_cgroup: a negative fd is EBADF");
	ok(pidfdspawn_builder_set_exec_fd(b, -1) < 0 && errno == EBADF &&
	   pidfdspawn_builder_set_exec_fd(b, 0) == 0,
	   "set_exec_fd: a negative fd is EBADF");
	ok(pidfdspawn_builder_set_search_path(b, NULL) < 0 && errno == EINVAL &&
	   pidfdspawn_builder_set_search_path(b, "/bin") == 0,
	   "set_search_path: a NULL list is EINVAL");
	ok(pidfdspawn_builder_set_flags(b, 1u << 1) < 0 && errno == EINVAL &&
	   pidfdspawn_builder_set_flags(b, PIDFDSPAWN_RUN_CLOEXEC_DEFAULT) == 0,
	   "set_flags: an unknown flag is EINVAL");
	pidfdspawn_builder_free(b);
}

static void test_open_close_chdir(void)
{
	char out[8192], file[64];
	struct pidfdspawn_builder *b;
	struct stat st;
	int err, status, fd;

	snprintf(file, sizeof(file), "/tmp/pfs-bf-%d", (int)getpid());
	unlink(file);
	b = start(helper_path());
	pidfdspawn_builder_add_open(b, 7, file, O_WRONLY | O_CREAT | O_EXCL, 0640);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_OPEN, err, status,
	      has_fd(out, 7) && stat(file, &st) == 0 && (st.st_mode & 0777) == 0640,
	      "add_open creates the file on fd 7 of the child", out);
	unlink(file);

	/* fd 9 open in the caller, without close-on-exec. */
	fd = open("/dev/null", O_RDONLY);
	ok(fd >= 0 && dup2(fd, 9) == 9, "fd 9 open in the caller");
	close(fd);
	b = start(helper_path());
	pidfdspawn_builder_add_close(b, 9);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_CLOSE, err, status, !has_fd(out, 9),
	      "add_close closes the caller's fd 9 in the child", out);

	b = start(helper_path());
	pidfdspawn_builder_add_chdir(b, "/dev");
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_CHDIR, err, status, strstr(out, "\ncwd=/dev\n") != NULL,
	      "add_chdir: the child starts in /dev", out);

	b = start(helper_path());
	pidfdspawn_builder_set_flags(b, PIDFDSPAWN_RUN_CLOEXEC_DEFAULT);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT, err, status,
	      !has_fd(out, 9) && has_fd(out, 1),
	      "set_flags(CLOEXEC_DEFAULT): the child has the dup2 target 1, not "
	      "the caller's fd 9", out);
	close(9);
}

/* A pty: the master fd, and the slave's name in @name. */
static int open_pty(char *name, size_t size)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
	    ptsname_r(m, name, size) != 0) {
		if (m >= 0)
			close(m);
		return -1;
	}
	return m;
}

static void test_tcsetpgrp_session_group(void)
{
	char out[8192], pts[128];
	struct pidfdspawn_builder *b;
	int err, status, m;

	m = open_pty(pts, sizeof(pts));
	if (m < 0)
		diag("no pty: %s", strerror(errno));
	b = start(helper_path());
	pidfdspawn_builder_set_setsid(b);
	pidfdspawn_builder_add_open(b, 20, m >= 0 ? pts : "/dev/tty", O_RDWR, 0);
	pidfdspawn_builder_add_tcsetpgrp(b, 20);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_TCSETPGRP | PIDFDSPAWN_FEAT_SETSID |
	      PIDFDSPAWN_FEAT_OPEN, err, status,
	      num(out, "tpgid") == num(out, "pid") && num(out, "pid") > 0,
	      "add_tcsetpgrp: the child's group is the pty's foreground group", out);
	if (m >= 0)
		close(m);

	b = start(helper_path());
	pidfdspawn_builder_set_setsid(b);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_SETSID, err, status,
	      num(out, "sid") == num(out, "pid") && num(out, "pid") > 0,
	      "set_setsid: the child leads a new session", out);

	b = start(helper_path());
	pidfdspawn_builder_set_pgroup(b, 0);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_PGROUP, err, status,
	      num(out, "pgid") == num(out, "pid") && getpgrp() != num(out, "pid"),
	      "set_pgroup(0): the child leads a new process group", out);
}

static void test_signals(void)
{
	char out[8192];
	struct pidfdspawn_builder *b;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigset_t set;
	int err, status;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	b = start(helper_path());
	pidfdspawn_builder_set_sigmask(b, &set);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_SIGMASK, err, status,
	      hex(out, "sigmask") == 1ull << SIGUSR1,
	      "set_sigmask: the child blocks SIGUSR1 only", out);

	sigaction(SIGUSR2, &ign, &old);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	b = start(helper_path());
	pidfdspawn_builder_set_sigdefault(b, &set);
	err = finish(b, out, sizeof(out), &status);
	sigaction(SIGUSR2, &old, NULL);
	check(PIDFDSPAWN_FEAT_SIGDEF, err, status,
	      strstr(out, "sigign=") && !(hex(out, "sigign") & (1ull << SIGUSR2)),
	      "set_sigdefault: the caller's ignored SIGUSR2 is default in the child",
	      out);
}

static void test_scheduler(void)
{
	char out[8192];
	struct pidfdspawn_builder *b;
	int err, status;

	b = start(helper_path());
	pidfdspawn_builder_set_sched_policy(b, SCHED_BATCH);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_SCHEDULER, err, status,
	      num(out, "policy") == SCHED_BATCH,
	      "set_sched_policy(SCHED_BATCH): the child's policy", out);

	if (geteuid() != 0 && lacking(PIDFDSPAWN_FEAT_SCHEDULER) < 0) {
		skip(1, "set_sched_priority: SCHED_RR needs root");
		return;
	}
	b = start(helper_path());
	pidfdspawn_builder_set_sched_policy(b, SCHED_RR);
	pidfdspawn_builder_set_sched_priority(b, 7);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_SCHEDULER, err, status,
	      num(out, "policy") == SCHED_RR && num(out, "priority") == 7,
	      "set_sched_priority(7) with SCHED_RR: the child's priority", out);
}

static void test_resetids(void)
{
	char out[8192], dir[64], copy[128];
	const char *what = "";
	struct pidfdspawn_builder *b;
	int err, status, differ = 0;

	if (geteuid() != 0 || lacking(PIDFDSPAWN_FEAT_RESETIDS) >= 0) {
		/* Equal ids, or the run fails before anything happens. */
		b = start(helper_path());
		pidfdspawn_builder_set_resetids(b);
		err = finish(b, out, sizeof(out), &status);
		check(PIDFDSPAWN_FEAT_RESETIDS, err, status,
		      num(out, "euid") == (long)geteuid(),
		      "set_resetids with equal ids keeps the euid", out);
		return;
	}
	err = public_helper(dir, sizeof(dir), copy, sizeof(copy), &what);
	if (err)
		diag("public helper: %s: %s", what, strerror(err));
	if (setresgid(65534, 0, 0) == 0) {
		if (setresuid(65534, 0, 0) == 0)
			differ = 1;
		else if (setresgid(0, 0, 0) < 0)
			abort();	/* cannot go back: stop here */
	}
	b = start(copy);
	pidfdspawn_builder_set_resetids(b);
	err = finish(b, out, sizeof(out), &status);
	if (differ) {
		if (setresuid(0, 0, 0) < 0 || setresgid(0, 0, 0) < 0)
			abort();	/* cannot go back: stop here */
	}
	check(PIDFDSPAWN_FEAT_RESETIDS, err, status,
	      differ && num(out, "euid") == 65534 && num(out, "egid") == 65534,
	      "set_resetids: real ids 65534, effective 0: the child runs as 65534",
	      out);
	unlink(copy);
	rmdir(dir);
}

/* The first cgroup2 mount point, or "". */
static void cgroup2_mount(char *buf, size_t size)
{
	char line[4096], mnt[PATH_MAX], fstype[64];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (sep && sscanf(sep, " - %63s", fstype) == 1 &&
		    strcmp(fstype, "cgroup2") == 0 &&
		    sscanf(line, "%*d %*d %*s %*s %4095s", mnt) == 1) {
			snprintf(buf, size, "%s", mnt);
			break;
		}
	}
	if (f)
		fclose(f);
}

static void test_cgroup(void)
{
	char out[8192], mnt[PATH_MAX], dir[PATH_MAX + 64], want[128];
	struct pidfdspawn_builder *b;
	int err, status, dfd;

	cgroup2_mount(mnt, sizeof(mnt));
	snprintf(want, sizeof(want), "/pfs-bf-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s%s", mnt, want);
	if (!mnt[0] || mkdir(dir, 0755) < 0) {
		/* A directory that is not a cgroup: the kernel's EBADF. */
		diag("no cgroup2 directory could be created under '%s'", mnt);
		dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		b = start(helper_path());
		pidfdspawn_builder_set_cgroup(b, dfd);
		err = finish(b, out, sizeof(out), &status);
		if (lacking(PIDFDSPAWN_FEAT_CGROUP) < 0)
			ok(err == EBADF, "set_cgroup with a non-cgroup directory "
			   "fails the run with EBADF (%s)", strerror(err));
		else
			check(PIDFDSPAWN_FEAT_CGROUP, err, status, 0,
			      "set_cgroup", out);
		close(dfd);
		return;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	b = start(helper_path());
	pidfdspawn_builder_set_cgroup(b, dfd);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_CGROUP, err, status,
	      strstr(out, "\ncgroup=") && strstr(strstr(out, "\ncgroup="), want),
	      "set_cgroup: the child starts in the new cgroup", out);
	close(dfd);
	rmdir(dir);
}

static void test_exec_fd_and_search(void)
{
	char out[8192], dir[PATH_MAX + 16], search[PATH_MAX + 64];
	struct pidfdspawn_builder *b;
	int err, status, fd;
	uint32_t later = have & ~RFC_FEATURES ? 0 : PIDFDSPAWN_FEAT_UNSUPPORTED;

	fd = open(helper_path(), O_RDONLY | O_CLOEXEC);
	b = start(NULL);
	pidfdspawn_builder_set_exec_fd(b, fd);
	err = finish(b, out, sizeof(out), &status);
	/* No feature bit: kernels past the RFC have "exec-fd". */
	if (have & PIDFDSPAWN_FEAT_BUILDER)
		check(later, err, status, strstr(out, "\nargv0=helper\n") != NULL,
		      "set_exec_fd: the child runs the helper by its fd", out);
	else
		check(0, err, status, 0, "set_exec_fd", out);
	close(fd);

	snprintf(dir, sizeof(dir), "%s", helper_path());
	*strrchr(dir, '/') = '\0';
	snprintf(search, sizeof(search), "/nonexistent:%s:/bin", dir);
	b = start("helper");
	pidfdspawn_builder_set_search_path(b, search);
	err = finish(b, out, sizeof(out), &status);
	check(PIDFDSPAWN_FEAT_PATH_SEARCH, err, status,
	      strstr(out, "\nargv0=helper\n") != NULL,
	      "set_search_path: the kernel finds \"helper\" in the list", out);
}

/*
 * A kernel whose builder has every action but no key and no run flag (as
 * the probe sees it when PIDFD_CONFIG_QUERY fails with EOPNOTSUPP, the
 * RFC's answer; a seccomp filter makes it so in a child, before its first
 * probe): the attributes, the search path and CLOEXEC_DEFAULT fail the
 * run with EOPNOTSUPP and no child, the actions still run.  Without a builder
 * every run is ENOSYS.  Bit n of the child's status: case n failed.
 */
static int enotsup_child(void)
{
	static const struct pfs_rule rules[] = {
		/* pidfd_config() with fd -1: QUERY */
		{ 472, PFS_RET_ERRNO(EOPNOTSUPP), 0, 0x80000000u },
	};
	int want = (have & PIDFDSPAWN_FEAT_BUILDER) ? EOPNOTSUPP : ENOSYS;
	char out[8192];
	struct pidfdspawn_builder *b;
	sigset_t set;
	int err, status, failed = 0;
	uint32_t probed;

	if (pfs_seccomp(rules, 1) < 0)
		return 1 << 0;
	probed = pidfdspawn_probe();
	if ((have & PIDFDSPAWN_FEAT_BUILDER) &&
	    (!(probed & PIDFDSPAWN_FEAT_OPEN) ||
	     (probed & (PIDFDSPAWN_FEAT_SIGMASK | PIDFDSPAWN_FEAT_PATH_SEARCH |
			PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT))))
		failed |= 1 << 0;
	sigemptyset(&set);
	b = start(helper_path());
	pidfdspawn_builder_set_sigmask(b, &set);
	err = finish(b, out, sizeof(out), &status);
	if (err != want || !no_zombies())
		failed |= 1 << 1;
	b = start(helper_path());
	pidfdspawn_builder_set_search_path(b, "/bin");
	err = finish(b, out, sizeof(out), &status);
	if (err != want)
		failed |= 1 << 2;
	b = start(helper_path());
	pidfdspawn_builder_set_flags(b, PIDFDSPAWN_RUN_CLOEXEC_DEFAULT);
	err = finish(b, out, sizeof(out), &status);
	if (err != want)
		failed |= 1 << 3;
	b = start(helper_path());
	pidfdspawn_builder_add_open(b, 7, "/dev/null", O_RDONLY, 0);
	err = finish(b, out, sizeof(out), &status);
	if (want == EOPNOTSUPP ? err || status || !has_fd(out, 7) : err != ENOSYS)
		failed |= 1 << 4;
	return failed;
}

static void test_enotsup(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(enotsup_child());
	st = wait_status(pid);
	if (st < 0 || st >= 32)
		st = 31;
	ok(!(st & 1), "a builder without keys (QUERY refused by seccomp): the "
	   "probe finds the actions only");
	ok(!(st & 2), "there set_sigmask fails the run with %s, no child",
	   (have & PIDFDSPAWN_FEAT_BUILDER) ? "EOPNOTSUPP" : "ENOSYS");
	ok(!(st & 4), "there set_search_path fails the run with %s",
	   (have & PIDFDSPAWN_FEAT_BUILDER) ? "EOPNOTSUPP" : "ENOSYS");
	ok(!(st & 8), "there set_flags(CLOEXEC_DEFAULT) fails the run with %s",
	   (have & PIDFDSPAWN_FEAT_BUILDER) ? "EOPNOTSUPP" : "ENOSYS");
	ok(!(st & 16), "there add_open still runs (the action is known)");
}

int main(void)
{
	have = expected_builder_features();
	tap_plan(5 + 14 + 5 + 3 + 2 + 2 + 1 + 1 + 2 + 1);
	/* First: the child must make this process's first probe. */
	test_enotsup();
	test_argument_errors();
	test_open_close_chdir();
	test_tcsetpgrp_session_group();
	test_signals();
	test_scheduler();
	test_resetids();
	test_cgroup();
	test_exec_fd_and_search();
	ok(no_zombies(), "no child left unreaped");
	return tap_done();
}
