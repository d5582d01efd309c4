/* SPDX-License-Identifier: MIT */
/*
 * glibc's old posix_spawn[p]@GLIBC_2.2.5 (GLIBC_2.2 on i386), whose script
 * without "#!" runs with /bin/sh, served by the builder where the kernel
 * has one (glibc's tst-spawn4-compat with the builder forced): the builder
 * runs /bin/sh FILE ARGV[1]... after the exec's ENOEXEC, repeating the
 * file actions, so a request with an open action (which cannot be
 * repeated) goes to the fallback.  Checked with the shared library's
 * symbols (dlvsym) and its own pidfdspawn_last_backend().
 */
#include <dlfcn.h>
#include <libgen.h>

#include "tap.h"

#if defined(__x86_64__) && defined(__LP64__)
#define OLD "GLIBC_2.2.5"
#elif defined(__i386__)
#define OLD "GLIBC_2.2"
#endif

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);
typedef enum pidfdspawn_backend last_fn(void);

static char dir[] = "/tmp/pfs-compat-builder-XXXXXX";
static last_fn *l_last;

/* Run @fn on @file with @fa; its error, or 1000 + the exit status. */
static int outcome(spawn_fn *fn, const char *file,
		   const posix_spawn_file_actions_t *fa)
{
	char *argv[] = { "nosh", "a", "b", NULL };
	pid_t pid;
	int err;

	err = fn(&pid, file, fa, NULL, argv, environ);
	return err ? err : 1000 + wait_status(pid);
}

int main(void)
{
#ifndef OLD
	tap_plan(1);
	ok(1, "no old posix_spawn version on this architecture: nothing to serve");
	return tap_done();
#else
	char so[PATH_MAX + 64], script[80], path[PATH_MAX + 32], out[96];
	int builder = (expected_builder_features() & PIDFDSPAWN_FEAT_BUILDER) != 0;
	enum pidfdspawn_backend want, got;
	posix_spawn_file_actions_t fa;
	spawn_fn *l_old, *lp_old, *gp_old;
	void *lib, *libc;
	int fd, r, g;

	unsetenv("PIDFDSPAWN_BACKEND");
	snprintf(path, sizeof(path), "%s", helper_path());
	snprintf(so, sizeof(so), "%s/../libpidfdspawn.so", dirname(path));
	lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (!lib || !libc || !mkdtemp(dir)) {
		printf("Bail out! %s: %s\n", so, dlerror());
		return 1;
	}
	l_old = (spawn_fn *)dlvsym(lib, "posix_spawn", OLD);
	lp_old = (spawn_fn *)dlvsym(lib, "posix_spawnp", OLD);
	l_last = (last_fn *)dlsym(lib, "pidfdspawn_last_backend");
	gp_old = (spawn_fn *)dlvsym(libc, "posix_spawnp", OLD);
	if (!l_old || !lp_old || !l_last || !gp_old) {
		printf("Bail out! %s: no posix_spawn[p]@%s or pidfdspawn_last_backend\n",
		       so, OLD);
		return 1;
	}
	snprintf(script, sizeof(script), "%s/pfs-nosh", dir);
	fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (fd < 0 || dprintf(fd, "[ \"$1 $2\" = \"a b\" ] && exit 7\nexit 3\n") < 0 ||
	    close(fd) < 0) {
		printf("Bail out! %s\n", script);
		return 1;
	}
	snprintf(out, sizeof(out), "%s/out", dir);
	tap_plan(6);
	want = builder ? PIDFDSPAWN_BACKEND_BUILDER : PIDFDSPAWN_BACKEND_FALLBACK;

	r = outcome(l_old, script, NULL);
	got = l_last();
	ok(r == 1007 && got == want,
	   "posix_spawn@%s of a script without #!: run by /bin/sh (%d), by the %s (%s)",
	   OLD, r, pidfdspawn_backend_name(want), pidfdspawn_backend_name(got));

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	posix_spawn_file_actions_addclose(&fa, 70);
	r = outcome(l_old, script, &fa);
	got = l_last();
	ok(r == 1007 && got == want,
	   "posix_spawn@%s with dup2 and close actions: run by /bin/sh (%d), by the %s (%s)",
	   OLD, r, pidfdspawn_backend_name(want), pidfdspawn_backend_name(got));
	posix_spawn_file_actions_destroy(&fa);

	/* An O_EXCL open cannot be done twice: the fallback's single child. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_EXCL, 0600);
	r = outcome(l_old, script, &fa);
	got = l_last();
	ok(r == 1007 && got == PIDFDSPAWN_BACKEND_FALLBACK,
	   "posix_spawn@%s with an O_EXCL open: run by /bin/sh once (%d), by the fallback (%s)",
	   OLD, r, pidfdspawn_backend_name(got));
	posix_spawn_file_actions_destroy(&fa);
	unlink(out);

	/* glibc runs "/bin/sh NAME a b": sh looks for NAME itself. */
	setenv("PATH", dir, 1);
	g = outcome(gp_old, "pfs-nosh", NULL);
	r = outcome(lp_old, "pfs-nosh", NULL);
	got = l_last();
	unsetenv("PATH");
	ok(r == g && r > 1000 && got == want,
	   "posix_spawnp@%s of a script without #! found in PATH: /bin/sh NAME as glibc (%d, glibc %d), by the %s (%s)",
	   OLD, r, g, pidfdspawn_backend_name(want), pidfdspawn_backend_name(got));

	/* A program that execs: one run, no shell. */
	r = outcome(l_old, "/bin/true", NULL);
	got = l_last();
	ok(r == 1000 && got == want && no_zombies(),
	   "posix_spawn@%s of a binary: runs it (%d), by the %s (%s), no zombie",
	   OLD, r, pidfdspawn_backend_name(want), pidfdspawn_backend_name(got));

	/* With the builder forced: served by it (none here: ENOTSUP). */
	setenv("PIDFDSPAWN_BACKEND", "builder", 1);
	r = outcome(l_old, script, NULL);
	got = l_last();
	unsetenv("PIDFDSPAWN_BACKEND");
	if (builder)
		ok(r == 1007 && got == PIDFDSPAWN_BACKEND_BUILDER,
		   "forced builder: posix_spawn@%s of a script without #!: by the builder (%d, %s)",
		   OLD, r, pidfdspawn_backend_name(got));
	else
		ok(r == ENOTSUP,
		   "forced builder without a builder: posix_spawn@%s refuses with ENOTSUP (%d)",
		   OLD, r);
	unlink(script);
	rmdir(dir);
	return tap_done();
#endif
}
