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
	char *argv[32] = { "pidfd-spawn" }, o1[64], e1[256];
	int o[2], e[2], n = 1;
	pid_t pid;

	for (; *args && n < 31; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	if (pipe(o) < 0 || pipe(e) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		if (dup2(o[1], 1) < 0 || dup2(e[1], 2) < 0)
			_exit(120);
		if (nobody && (setgroups(0, NULL) < 0 ||
			       setresgid(65534, 65534, 65534) < 0 ||
			       setresuid(65534, 65534, 65534) < 0))
			_exit(121);
		if (no_children &&
		    setrlimit(RLIMIT_NPROC, &(struct rlimit){ 0, 0 }) < 0)
			_exit(123);
		execve(prog, argv, envp);
		_exit(122);
	}
	close(o[1]);
	close(e[1]);
	slurp(o[0], r->out, sizeof(r->out));
	slurp(e[0], r->err, sizeof(r->err));
	r->status = wait_status(pid);
	diag("pidfd-spawn %s...: status %d, stdout '%.60s', stderr '%.200s'",
	     argv[1] ? argv[1] : "", r->status, one_line(r->out, o1),
	     one_line(r->err, e1));
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
	ok(r.status == 125 && strstr(r.err, "-C ") &&
	   strstr(r.err, "closed: Permission denied") &&
	   !strstr(r.err, "/bin/true"),
	   "a -C the child may not enter: 125, the message blames -C (EACCES)");
	run_as(copy, nobody, environ, &r,
	       (const char *const[]){ "-C", "/", "--", plain, NULL });
	ok(r.status == 126 && strstr(r.err, "plain: Permission denied") &&
	   !strstr(r.err, "-C"),
	   "a program that is not executable: 126, the message blames it (EACCES)");


	/*
	 * No child at all (RLIMIT_NPROC 0; root is exempt, so as uid 65534
	 * when root): the command's own failure, 125, not the -C's.
	 */
	no_children = 1;
	run_as(copy, nobody, environ, &r,
	       (const char *const[]){ "-C", "/", "-s", "--", "/bin/true", NULL });
	no_children = 0;
	ok(r.status == 125 && strstr(r.err, "Resource temporarily unavailable") &&
	   !strstr(r.err, " -C") && !strstr(r.err, " -s") &&
	   !strstr(r.err, "/bin/true"),
	   "no child can be made: 125, the message blames no option nor the program");

	unlink(copy);
	unlink(plain);
	rmdir(closed);
	rmdir(dir);
}

int main(void)
{
	struct result r;
	char *env_foo[] = { "FOO=old", "PATH=/usr/bin:/bin", NULL };

	tap_plan(17);
	find_cli();
	ok(access(cli, X_OK) == 0, "the command is built: %s (%s)", cli,
	   access(cli, X_OK) == 0 ? "yes" : strerror(errno));

	RUN(&r, "--help");
	ok(r.status == 0 && strncmp(r.out, "usage: pidfd-spawn", 18) == 0 && !r.err[0],
	   "--help prints the usage on stdout and exits 0");
	RUN(&r, "-h");
	ok(r.status == 0 && strncmp(r.out, "usage: pidfd-spawn", 18) == 0,
	   "-h does the same");

	/* env(1) prints the environment as it was given: no shell dedup. */
	run_as(cli, 0, env_foo, &r, (const char *const[]){
	       "-E", "FOO=new", "--", "/usr/bin/env", NULL });
	ok(r.status == 0 && strcmp(r.out, "FOO=new\nPATH=/usr/bin:/bin\n") == 0,
	   "-E FOO=new replaces an inherited FOO in place (one FOO=new)");
	run_as(cli, 0, env_foo, &r, (const char *const[]){
	       "-i", "-E", "A=1", "-E", "A=2", "--", "/usr/bin/env", NULL });
	ok(r.status == 0 && strcmp(r.out, "A=2\n") == 0,
	   "-i -E A=1 -E A=2: the last -E wins");

	RUN(&r, "-C", "/nonexistent", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "-C /nonexistent: No such file") &&
	   !strstr(r.err, "/bin/true"),
	   "a failing -C exits 125 and blames -C, not the program");
	RUN(&r, "-x", "0", "-d", "37:5", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "-d 37:5: Bad file descriptor"),
	   "a dup2 of a closed fd exits 125 and names that action");
	RUN(&r, "-s", "-g", "0", "--", "/bin/true");
	ok(r.status == 125 && strstr(r.err, "attribute -g 0: Operation not permitted"),
	   "a session leader's -g 0 (EPERM) exits 125 and names that attribute");
	RUN(&r, "--no-such-option", "/bin/true");
	ok(r.status == 125 && !r.out[0] && strstr(r.err, "usage: pidfd-spawn"),
	   "an unknown option: 125, the usage on stderr");
	RUN(&r, "-C", "/");
	ok(r.status == 125 && !r.out[0] && strstr(r.err, "usage: pidfd-spawn"),
	   "no program: 125, the usage on stderr");
	run_as(cli, 0, env_foo, &r, (const char *const[]){
	       "pfs-no-such-command", NULL });
	ok(r.status == 127 && strstr(r.err, "pfs-no-such-command: No such file"),
	   "a program not found in PATH: 127");
	RUN(&r, "-C", "/", "--", "/nonexistent/prog");
	ok(r.status == 127 && strstr(r.err, "/nonexistent/prog: No such file") &&
	   !strstr(r.err, "-C"),
	   "a program that does not exist: 127, the message blames it");
	RUN(&r, "-C", "/tmp", "--", "/bin/sh", "-c", "pwd; exit 3");
	ok(r.status == 3 && strcmp(r.out, "/tmp\n") == 0,
	   "the child's status passes through, its directory was set by -C");
	permission_cases();
	return tap_done();
}
