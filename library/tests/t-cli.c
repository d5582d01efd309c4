/* SPDX-License-Identifier: MIT */
/*
 * The pidfd-spawn command (cli/): --help, -E replacing a variable as
 * env(1) does, and exit statuses that tell a failed file action or
 * attribute (125, the option named) from a program that cannot be run
 * (126) or found (127).  The command is ../../../cli/build/pidfd-spawn
 * from this test, or $PIDFDSPAWN_CLI.
 */
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "tap.h"

static char cli[PATH_MAX + 64];
/* run_as: the command runs with RLIMIT_NPROC 0 (it can make no child). */
static int no_children;
/*
 * run_as: the command gets PIDFDSPAWN_TRACE_FD=3 with fd 3 on a fresh
 * file, whose lines (one per spawn) are counted into spawns; it also gets
 * fd 5 open (not close-on-exec) and SIGINT ignored.
 */
static int count_spawns = 1, spawns;

/* Where the command is: next to the library's build tree. */
static void find_cli(void)
{
	const char *env = getenv("PIDFDSPAWN_CLI");
	char dir[PATH_MAX + 16];

	if (env && *env) {
		snprintf(cli, sizeof(cli), "%s", env);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", helper_path());
	*strrchr(dir, '/') = '\0';	/* .../library/build/tests */
	snprintf(cli, sizeof(cli), "%s/../../../cli/build/pidfd-spawn", dir);
}

struct result {
	int status;
	char out[4096], err[4096];
};

static void slurp(int fd, char *buf, size_t size)
{
	size_t used = 0;
	ssize_t n;

	while (used + 1 < size && (n = read(fd, buf + used, size - 1 - used)) > 0)
		used += (size_t)n;
	buf[used] = '\0';
	close(fd);
}

/* The first bytes of @s with newlines shown as '|', for a diag line. */
static const char *one_line(const char *s, char *buf)
{
	size_t i;

	for (i = 0; s[i] && i < 60; i++)
		buf[i] = s[i] == '\n' ? '|' : s[i];
	buf[i] = '\0';
	return buf;
}

/*
 * Run @prog with @args (NULL-terminated, without argv[0]) and @envp;
 * as uid/gid 65534 when @nobody.  Output is small: read after the exit.
 */
static void run_as(const char *prog, int nobody, char *const envp[],
		   struct result *r, const char *const *args)
{
	char *argv[32] = { "pidfd-spawn" }, o1[64], e1[256], *envc[64];
	char trace[8192];
	int o[2], e[2], n = 1, t = -1;
	pid_t pid;

	for (; *args && n < 31; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	/*
	 * The command's trace goes to fd 3 alone: a PIDFDSPAWN_TRACE_FD this
	 * program inherited (the guest hook traces every library test) would
	 * win over ours, as getenv() finds the first.  What it traced is passed
	 * on to that fd below.
	 */
	for (int i = n = 0; envp[i] && n < 62; i++)
		if (strncmp(envp[i], "PIDFDSPAWN_TRACE_FD=", 20) != 0)
			envc[n++] = envp[i];
	envc[n++] = "PIDFDSPAWN_TRACE_FD=3";
	envc[n] = NULL;
	if (pipe(o) < 0 || pipe(e) < 0)
		abort();
	if (count_spawns) {
		t = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (t < 0)
			abort();
	}
	pid = fork();
	if (pid == 0) {
		if (dup2(o[1], 1) < 0 || dup2(e[1], 2) < 0)
			_exit(120);
		if (t >= 0 && dup2(t, 3) < 0)
			_exit(124);
		if (dup2(o[1], 5) < 0)
			_exit(124);
		signal(SIGINT, SIG_IGN);
		if (nobody && (setgroups(0, NULL) < 0 ||
			       setresgid(65534, 65534, 65534) < 0 ||
			       setresuid(65534, 65534, 65534) < 0))
			_exit(121);
		if (no_children &&
		    setrlimit(RLIMIT_NPROC, &(struct rlimit){ 0, 0 }) < 0)
			_exit(123);
		execve(prog, argv, count_spawns ? envc : envp);
		_exit(122);
	}
	close(o[1]);
	close(e[1]);
	slurp(o[0], r->out, sizeof(r->out));
	slurp(e[0], r->err, sizeof(r->err));
	r->status = wait_status(pid);
	spawns = -1;
	if (t >= 0 && lseek(t, 0, SEEK_SET) == 0) {
		slurp(t, trace, sizeof(trace));
		spawns = 0;
		for (char *l = trace; (l = strstr(l, " backend=")); l++)
			spawns++;
		if (getenv("PIDFDSPAWN_TRACE_FD"))
			(void)!write(atoi(getenv("PIDFDSPAWN_TRACE_FD")), trace,
				     strlen(trace));
	}
	diag("pidfd-spawn %s...: status %d, stdout '%.60s', stderr '%.200s', %d spawn(s)",
	     argv[1] ? argv[1] : "", r->status, one_line(r->out, o1),
	     one_line(r->err, e1), spawns);
}

#define RUN(r, ...) \
	run_as(cli, 0, environ, (r), (const char *const[]){ __VA_ARGS__, NULL })

/* Copy @src to @dst with mode 0755: 0 or an error number. */
static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		err = errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			err = errno ? errno : EIO;
			break;
		}
	if (n < 0)
		err = errno;
	if (!err && fchmod(out, 0755) < 0)
		err = errno;
	close(in);
	if (close(out) < 0 && !err)
		err = errno;
	return err;
}

/*
 * EACCES from the setup and from the program must not be confused.  As
 * root the command runs as uid 65534, from a copy in a fresh 0755
 * directory under /tmp (the build tree may be where that uid cannot go);
 * a directory of mode 0 then refuses -C, a file of mode 0644 the exec.
 */
static void permission_cases(void)
{
	char dir[64] = "/tmp/pfs-cli-XXXXXX", copy[96], closed[96], plain[96];
	int nobody = geteuid() == 0, err = 0, fd;
	struct result r;

	if (!mkdtemp(dir) || chmod(dir, 0755) < 0)
		err = errno;
	snprintf(copy, sizeof(copy), "%s/pidfd-spawn", dir);
	snprintf(closed, sizeof(closed), "%s/closed", dir);
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	if (!err)
		err = copy_file(cli, copy);
	if (!err && mkdir(closed, 0) < 0)
		err = errno;
	fd = err ? -1 : open(plain, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (!err && (fd < 0 || write(fd, "#!/bin/sh\n", 10) != 10 ||
		     fchmod(fd, 0644) < 0))
		err = errno;
	if (fd >= 0)
		close(fd);
	ok(err == 0, "a copy of the command %s can run, in %s (%s)",
	   nobody ? "uid 65534" : "this user", dir, strerror(err));

	run_as(copy, nobody, environ, &r,
	       (const char *const[]){ "-C", closed, "--", "/bin/true", NULL });
	ok(r.status == 125 && strstr(r.err, "--chdir ") &&
	   strstr(r.err, "closed: Permission denied") &&
	   !strstr(r.err, "/bin/true") && spawns == 0,
	   "a -C the child may not enter: 125, the message blames --chdir "
	   "(EACCES), found without spawning");
	run_as(copy, nobody, environ, &r,
	       (const char *const[]){ "-C", "/", "--", plain, NULL });
	ok(r.status == 126 && strstr(r.err, "plain: Permission denied") &&
	   !strstr(r.err, "-C") && !strstr(r.err, "chdir") && spawns == 1,
	   "a program that is not executable: 126, the message blames it "
	   "(EACCES), one spawn");
	snprintf(plain, sizeof(plain), "%s/closed/out", dir);
	run_as(copy, nobody, environ, &r,
	       (const char *const[]){ "--stdout", plain, "/bin/true", NULL });
	ok(r.status == 125 && strstr(r.err, "--stdout ") &&
	   strstr(r.err, "closed/out: Permission denied") && spawns == 0,
	   "--stdout into a directory the child may not enter: 125, blames "
	   "--stdout, no spawn");
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	{
		struct rlimit rt;

		if (getrlimit(RLIMIT_RTPRIO, &rt) == 0 && rt.rlim_cur == 0) {
			run_as(copy, nobody, environ, &r, (const char *const[]){
			       "--sched-policy", "fifo", "--sched-priority", "10",
			       "/bin/true", NULL });
			ok(r.status == 125 &&
			   strstr(r.err, "--sched-policy: Operation not permitted") &&
			   spawns == 0,
			   "--sched-policy fifo without the right: 125, blames "
			   "--sched-policy (EPERM), no spawn");
		} else {
			skip(1, "RLIMIT_RTPRIO allows real-time policies here");
		}
	}


	/*
	 * No child at all (RLIMIT_NPROC 0; root is exempt, so as uid 65534
	 * when root): the command's own failure, 125, not the -C's.
	 */
	no_children = 1;
	run_as(copy, nobody, environ, &r,
	       (const char *const[]){ "-C", "/", "-s", "--", "/bin/true", NULL });
	no_children = 0;
	ok(r.status == 125 && strstr(r.err, "Resource temporarily unavailable") &&
	   !strstr(r.err, "-C") && !strstr(r.err, "chdir") &&
	   !strstr(r.err, "setsid") && !strstr(r.err, "/bin/true") &&
	   spawns == 1,
	   "no child can be made: 125, the message blames no option nor the program");

	unlink(copy);
	unlink(plain);
	rmdir(closed);
	rmdir(dir);
}


/* Whether @err is exactly one line of error and the "Try" line. */
static int one_line_error(const struct result *r)
{
	const char *nl = strchr(r->err, '\n');

	return r->status == 125 && !r->out[0] && nl &&
	       strncmp(r->err, "pidfd-spawn: ", 13) == 0 &&
	       strcmp(nl + 1, "Try 'pidfd-spawn --help' for more information.\n") == 0;
}

/* A fresh directory holding an executable script NAME printing "found". */
static void make_prog_dir(char *dir, size_t size, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(dir, size, "/tmp/pfs-cli-path-XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0)
		abort();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, "#!/bin/sh\necho found\n", 21) != 21 ||
	    fchmod(fd, 0755) < 0)
		abort();
	close(fd);
}

/* The whole content of @path ("" when unreadable). */
static const char *file_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	buf[0] = '\0';
	if (fd >= 0)
		slurp(fd, buf, size);
	return buf;
}

static void redirect_cases(void)
{
	char dir[64] = "/tmp/pfs-cli-io-XXXXXX", out[96], in[96], buf[256];
	struct stat st;
	struct result r;
	int fd;

	if (!mkdtemp(dir))
		abort();
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(in, sizeof(in), "%s/in", dir);
	fd = open(in, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "input\n", 6) != 6)
		abort();
	close(fd);

	RUN(&r, "--stdin", in, "--stdout", out, "--stderr", out, "--",
	    "/bin/sh", "-c", "read x; echo \"got $x\"");
	ok(r.status == 0 && !r.out[0] &&
	   strcmp(file_text(out, buf, sizeof(buf)), "got input\n") == 0 &&
	   stat(out, &st) == 0 && (st.st_mode & 0777) == (0666 & ~umask(022)),
	   "--stdin FILE and --stdout FILE: the program reads and writes "
	   "them; a new file gets 0666 less the umask");
	RUN(&r, "--stdout", out, "--", "/bin/echo", "new");
	ok(r.status == 0 && strcmp(file_text(out, buf, sizeof(buf)), "new\n") == 0,
	   "--stdout truncates an existing file");
	RUN(&r, "--append-stdout", out, "--append-stderr", out, "--",
	    "/bin/sh", "-c", "echo more; echo err >&2");
	ok(r.status == 0 &&
	   strcmp(file_text(out, buf, sizeof(buf)), "new\nmore\nerr\n") == 0,
	   "--append-stdout and --append-stderr append");
	RUN(&r, "-C", dir, "--stdout", "rel", "--", "/bin/echo", "x");
	snprintf(out, sizeof(out), "%s/rel", dir);
	ok(r.status == 0 && strcmp(file_text(out, buf, sizeof(buf)), "x\n") == 0,
	   "file actions apply in order: --stdout after -C DIR opens in DIR");
	unlink(out);
	RUN(&r, "--stdin", "/nonexistent/in", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--stdin /nonexistent/in: No such file") &&
	   spawns == 0,
	   "--stdin of a missing file: 125, blames --stdin, no spawn");
	RUN(&r, "--stderr", "/nonexistent/dir/err", "--", "/bin/true");
	ok(r.status == 125 &&
	   strstr(r.err, "--stderr /nonexistent/dir/err: No such file") && spawns == 0,
	   "--stderr in a missing directory: 125, blames --stderr, no spawn");
	RUN(&r, "--stdout", dir, "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "Is a directory") && spawns == 0,
	   "--stdout of a directory: 125 (EISDIR), no spawn");

	/* fd 5 is open in the command (on its stdout pipe), not cloexec. */
	RUN(&r, "--", "/bin/sh", "-c", "echo five >&5");
	ok(r.status == 0 && strcmp(r.out, "five\n") == 0,
	   "an inherited fd 5 reaches the program by default");
	RUN(&r, "--close-from", "4", "--", "/bin/sh", "-c", "echo five >&5");
	ok(r.status != 0 && !strstr(r.out, "five"),
	   "--close-from 4 closes it");
	RUN(&r, "-x", "5", "--", "/bin/sh", "-c", "echo five >&5");
	ok(r.status != 0 && !strstr(r.out, "five"), "--close 5 closes it");
	RUN(&r, "--cloexec-default", "--", "/bin/sh", "-c",
	    "(echo five >&5) 2>/dev/null || echo closed");
	ok(r.status == 0 && strcmp(r.out, "closed\n") == 0,
	   "--cloexec-default: fd 5 is not passed, stdout is");
	RUN(&r, "--cloexec-default", "-d", "5:6", "--", "/bin/sh", "-c", "echo six >&6");
	ok(r.status == 0 && strcmp(r.out, "six\n") == 0,
	   "--cloexec-default passes what -d places");
	RUN(&r, "-x", "5", "-d", "5:6", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--dup 5:6: Bad file descriptor") &&
	   spawns == 0,
	   "-d from an fd an earlier -x closed: 125, blames --dup, no spawn");
	RUN(&r, "-F", "5", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--fchdir 5: Not a directory") &&
	   spawns == 0, "-F of a pipe: 125 (ENOTDIR), blames --fchdir, no spawn");
	unlink(in);
	snprintf(out, sizeof(out), "%s/out", dir);
	unlink(out);
	rmdir(dir);
}

int main(void)
{
	struct result r;
	char *env_foo[] = { "FOO=old", "PATH=/usr/bin:/bin", NULL };
	char *env_bar[] = { "FOO=old", "BAR=b", "PATH=/usr/bin:/bin", NULL };
	char pdir[64], pathvar[96], version[64], *env_pdir[3];

	tap_plan(61);
	find_cli();
	ok(access(cli, X_OK) == 0, "the command is built: %s (%s)", cli,
	   access(cli, X_OK) == 0 ? "yes" : strerror(errno));

	/* Usage and version, as env(1). */
	RUN(&r, "--help");
	ok(r.status == 0 && strncmp(r.out, "Usage: pidfd-spawn ", 19) == 0 &&
	   strstr(r.out, "--stdout") && strstr(r.out, "--sched-policy") && !r.err[0],
	   "--help prints the usage on stdout and exits 0");
	RUN(&r, "-h");
	ok(r.status == 0 && strncmp(r.out, "Usage: pidfd-spawn ", 19) == 0,
	   "-h does the same");
	RUN(&r, "--version");
	snprintf(version, sizeof(version), "pidfd-spawn (libpidfdspawn) %s\n",
		 pidfdspawn_version());
	ok(r.status == 0 && strcmp(r.out, version) == 0 && !r.err[0],
	   "--version prints '%.*s' and exits 0", (int)strlen(version) - 1, version);
	RUN(&r, "-S", "INT", "/bin/true");
	ok(one_line_error(&r) && strstr(r.err, "invalid option -- 'S'") && spawns == 0,
	   "-S (env's split-string, not ours): one line and 'Try', 125");
	RUN(&r, "--no-such-option", "/bin/true");
	ok(one_line_error(&r) && strstr(r.err, "'--no-such-option'"),
	   "an unknown long option: one line naming it and 'Try', 125");
	RUN(&r, "--chdir");
	ok(one_line_error(&r) && strstr(r.err, "'--chdir' requires an argument"),
	   "a missing argument: one line and 'Try', 125");
	RUN(&r, "-C", "/");
	ok(one_line_error(&r) && strstr(r.err, "no program"),
	   "no program: one line and 'Try', 125");
	RUN(&r, "-x", "abc", "/bin/true");
	ok(one_line_error(&r) && strstr(r.err, "--close: invalid file descriptor 'abc'"),
	   "a bad number: one line and 'Try', 125");
	RUN(&r, "-m", "NOSUCHSIG", "/bin/true");
	ok(one_line_error(&r) && strstr(r.err, "invalid signal 'NOSUCHSIG'"),
	   "a bad signal name: one line and 'Try', 125");
	RUN(&r, "--sched-policy", "batch", "/bin/true");
	ok(one_line_error(&r) && strstr(r.err, "invalid policy 'batch'"),
	   "an unknown scheduling policy: one line and 'Try', 125");

	/* The environment, as env(1). */
	run_as(cli, 0, env_foo, &r, (const char *const[]){
	       "-u", "PIDFDSPAWN_TRACE_FD", "-E", "FOO=new", "--",
	       "/usr/bin/env", NULL });
	ok(r.status == 0 && strcmp(r.out, "FOO=new\nPATH=/usr/bin:/bin\n") == 0,
	   "-E FOO=new replaces an inherited FOO in place (one FOO=new)");
	run_as(cli, 0, env_foo, &r, (const char *const[]){
	       "-i", "-E", "A=1", "--set", "A=2", "--", "/usr/bin/env", NULL });
	ok(r.status == 0 && strcmp(r.out, "A=2\n") == 0,
	   "-i -E A=1 --set A=2: the last one wins");
	run_as(cli, 0, env_bar, &r, (const char *const[]){
	       "-u", "FOO", "--unset", "BAR", "-u", "PIDFDSPAWN_TRACE_FD",
	       "/usr/bin/env", NULL });
	ok(r.status == 0 && strcmp(r.out, "PATH=/usr/bin:/bin\n") == 0 && spawns == 1,
	   "-u FOO --unset BAR remove both (the command's own environment "
	   "still traces)");
	run_as(cli, 0, env_foo, &r, (const char *const[]){
	       "-i", "X=1", "Y=2", "/usr/bin/env", NULL });
	ok(r.status == 0 && strcmp(r.out, "X=1\nY=2\n") == 0,
	   "NAME=VALUE operands before the program set variables");
	RUN(&r, "-u", "A=B", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "cannot unset 'A=B'"),
	   "-u NAME=VALUE is refused as env(1) does");
	RUN(&r, "-a", "my-name", "--", "/bin/sh", "-c", "echo $0");
	ok(r.status == 0 && strcmp(r.out, "my-name\n") == 0,
	   "--argv0 sets the program's argv[0]");

	/* The child's PATH is the one searched. */
	make_prog_dir(pdir, sizeof(pdir), "pfs-cli-probe");
	snprintf(pathvar, sizeof(pathvar), "PATH=%s", pdir);
	run_as(cli, 0, env_foo, &r, (const char *const[]){
	       "-E", pathvar, "pfs-cli-probe", NULL });
	ok(r.status == 0 && strcmp(r.out, "found\n") == 0 && spawns == 1,
	   "-E PATH=DIR: the program is looked up in DIR (not the caller's PATH)");
	run_as(cli, 0, env_foo, &r, (const char *const[]){
	       pathvar, "pfs-cli-probe", NULL });
	ok(r.status == 0 && strcmp(r.out, "found\n") == 0,
	   "a PATH=DIR operand governs the lookup too");
	env_pdir[0] = pathvar;
	env_pdir[1] = NULL;
	run_as(cli, 0, env_pdir, &r, (const char *const[]){
	       "-E", "PATH=/nonexistent", "pfs-cli-probe", NULL });
	ok(r.status == 127 && strstr(r.err, "pfs-cli-probe: No such file") &&
	   spawns == 1,
	   "-E PATH=/nonexistent: not found although the caller's PATH has it (127)");
	run_as(cli, 0, env_pdir, &r, (const char *const[]){
	       "-u", "PATH", "pfs-cli-probe", NULL });
	ok(r.status == 127, "-u PATH: the default path, without the caller's DIR (127)");
	snprintf(pathvar, sizeof(pathvar), "%s/pfs-cli-probe", pdir);
	unlink(pathvar);
	rmdir(pdir);

	/* Setup errors: named by option, found without spawning. */
	RUN(&r, "-C", "/nonexistent", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--chdir /nonexistent: No such file") &&
	   !strstr(r.err, "/bin/true") && spawns == 0,
	   "a failing -C exits 125 and blames --chdir, not the program, no spawn");
	RUN(&r, "-C", "/etc/hostname", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--chdir /etc/hostname: Not a directory") &&
	   spawns == 0, "-C of a file: 125, ENOTDIR, no spawn");
	RUN(&r, "-x", "0", "-d", "37:5", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--dup 37:5: Bad file descriptor") &&
	   spawns == 0,
	   "a dup2 of a closed fd exits 125 and names that action, no spawn");
	RUN(&r, "-s", "-g", "0", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--pgroup 0: Operation not permitted") &&
	   spawns == 0,
	   "a session leader's -g 0 (EPERM) exits 125 and names --pgroup, no spawn");
	RUN(&r, "-g", "2147483646", "--", "/bin/true");
	ok(r.status == 125 &&
	   strstr(r.err, "--pgroup 2147483646: Operation not permitted") && spawns == 0,
	   "-g of a group that does not exist: 125 (EPERM), no spawn");
	RUN(&r, "--cgroup", "/nonexistent", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--cgroup /nonexistent: No such file") &&
	   spawns == 0, "--cgroup of a missing directory: 125, no spawn");
	RUN(&r, "--cgroup", "/tmp", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--cgroup /tmp: ") &&
	   strstr(r.err, "not a cgroup v2 directory") && spawns == 0,
	   "--cgroup of a directory outside cgroup2: 125, no spawn");
	RUN(&r, "--sched-policy", "fifo", "--sched-priority", "200", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--sched-priority 200: Invalid argument") &&
	   spawns == 0, "a priority out of the policy's range: 125, no spawn");
	RUN(&r, "--sched-policy", "fifo", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "--sched-policy: Invalid argument") &&
	   spawns == 0, "fifo without a priority: 125, no spawn");

	/* The program's errors and status. */
	run_as(cli, 0, env_foo, &r, (const char *const[]){
	       "pfs-no-such-command", NULL });
	ok(r.status == 127 && strstr(r.err, "pfs-no-such-command: No such file") &&
	   spawns == 1, "a program not found in PATH: 127, one spawn");
	RUN(&r, "-C", "/", "--", "/nonexistent/prog");
	ok(r.status == 127 && strstr(r.err, "/nonexistent/prog: No such file") &&
	   !strstr(r.err, "chdir") && spawns == 1,
	   "a program that does not exist: 127, the message blames it, one spawn");
	RUN(&r, "-C", "/", "--", "./etc");
	ok(r.status == 126 && strstr(r.err, "etc: Permission denied") && spawns == 1,
	   "a relative program is found from the -C directory: a directory, 126");
	RUN(&r, "-C", "/tmp", "--", "/bin/sh", "-c", "pwd; exit 3");
	ok(r.status == 3 && strcmp(r.out, "/tmp\n") == 0 && spawns == 1,
	   "the child's status passes through, its directory was set by -C, one spawn");
	RUN(&r, "--", "/bin/sh", "-c", "kill -TERM $$");
	ok(r.status == 128 + SIGTERM, "a program killed by SIGTERM: 128+15");

	/* Attributes. */
	RUN(&r, "-m", "USR1", "--block-signal=HUP,2", "--", "/bin/grep", "SigBlk",
	    "/proc/self/status");
	ok(r.status == 0 && strcmp(r.out, "SigBlk:\t0000000000000203\n") == 0,
	   "-m USR1 --block-signal=HUP,2 block exactly those");
	RUN(&r, "--", "/bin/grep", "SigIgn", "/proc/self/status");
	ok(r.status == 0 && strstr(r.out, "0000002\n"),
	   "SIGINT ignored by the caller stays ignored");
	RUN(&r, "-D", "INT", "--", "/bin/grep", "SigIgn", "/proc/self/status");
	ok(r.status == 0 && strstr(r.out, "SigIgn:") && !strstr(r.out, "0000002\n"),
	   "-D INT resets it to the default action");
	RUN(&r, "--sched-policy", "rr", "--sched-priority", "3", "--", "/bin/sh",
	    "-c", "cut -d' ' -f40,41 /proc/$$/stat");
	ok(r.status == 0 && strcmp(r.out, "3 2\n") == 0,
	   "--sched-policy rr --sched-priority 3: the program runs as SCHED_RR "
	   "(2), priority 3");
	RUN(&r, "-s", "--", "/bin/sh", "-c", "ps -o sid= -p $$; echo $$");
	{
		int sid = -1, pid = -2;

		sscanf(r.out, "%d %d", &sid, &pid);
		ok(r.status == 0 && sid == pid, "-s: the program leads a new session");
	}
	RUN(&r, "-g", "0", "-v", "--", "/bin/true");
	ok(r.status == 0 && strstr(r.err, "pidfd-spawn: backend=") && spawns == 1,
	   "-g 0 -v: runs, and -v reports the backend");

	redirect_cases();
	permission_cases();
	return tap_done();
}
