/* SPDX-License-Identifier: MIT */
/*
 * The shared library's two posix_spawn generations, as glibc's: the old
 * posix_spawn@GLIBC_2.2.5 / posix_spawnp@GLIBC_2.2.5 (GLIBC_2.2 on i386)
 * run a script without "#!" with /bin/sh, the current @GLIBC_2.15 ones
 * fail with ENOEXEC.  Each is compared with glibc's own symbol of the
 * same version (dlvsym), and the library's default posix_spawn must be
 * the 2.15 one (what LD_PRELOAD gives programs linked today).
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

static char dir[] = "/tmp/pfs-compat-sh-XXXXXX";

/* Run @fn on the script; its error, or 1000 + the exit status. */
static int outcome(spawn_fn *fn, const char *file)
{
	char *argv[] = { "nosh", "a", "b", NULL };
	pid_t pid;
	int err;

	err = fn(&pid, file, NULL, NULL, argv, environ);
	return err ? err : 1000 + wait_status(pid);
}

int main(void)
{
#ifndef OLD
	tap_plan(1);
	skip(1, "no old posix_spawn version on this architecture");
	return 0;
#else
	char so[PATH_MAX + 64], script[64], path[PATH_MAX + 32];
	void *lib, *libc;
	spawn_fn *l_old, *l_new, *l_def, *g_old, *g_new, *lp_old, *lp_new,
		*gp_old, *gp_new;
	int fd, g, l;

	snprintf(path, sizeof(path), "%s", helper_path());
	snprintf(so, sizeof(so), "%s/../libpidfdspawn.so", dirname(path));
	lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (!lib || !libc || !mkdtemp(dir)) {
		printf("Bail out! %s: %s\n", so, dlerror());
		return 1;
	}
	l_old = (spawn_fn *)dlvsym(lib, "posix_spawn", OLD);
	l_new = (spawn_fn *)dlvsym(lib, "posix_spawn", "GLIBC_2.15");
	l_def = (spawn_fn *)dlsym(lib, "posix_spawn");
	lp_old = (spawn_fn *)dlvsym(lib, "posix_spawnp", OLD);
	lp_new = (spawn_fn *)dlvsym(lib, "posix_spawnp", "GLIBC_2.15");
	g_old = (spawn_fn *)dlvsym(libc, "posix_spawn", OLD);
	g_new = (spawn_fn *)dlvsym(libc, "posix_spawn", "GLIBC_2.15");
	gp_old = (spawn_fn *)dlvsym(libc, "posix_spawnp", OLD);
	gp_new = (spawn_fn *)dlvsym(libc, "posix_spawnp", "GLIBC_2.15");

	tap_plan(6);
	ok(l_old && l_new && lp_old && lp_new && l_old != l_new &&
	   l_def == l_new && g_old && g_new && gp_old && gp_new &&
	   (void *)l_new != (void *)g_new,
	   "the library exports posix_spawn[p]@%s and @@GLIBC_2.15 (default)",
	   OLD);
	if (!l_old || !l_new || !lp_old || !lp_new || !g_old || !g_new ||
	    !gp_old || !gp_new)
		return tap_done();

	/* No "#!": the kernel says ENOEXEC; sh runs it: exit 7 with a b. */
	snprintf(script, sizeof(script), "%s/pfs-nosh", dir);
	fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (fd < 0 || dprintf(fd, "[ \"$1 $2\" = \"a b\" ] && exit 7\nexit 3\n") < 0 ||
	    close(fd) < 0) {
		printf("Bail out! %s\n", script);
		return 1;
	}
	g = outcome(g_old, script);
	l = outcome(l_old, script);
	ok(l == g && l == 1007 && l_old != g_old,
	   "posix_spawn@%s: a script without #! runs with /bin/sh and its "
	   "arguments (library %d, glibc %d)", OLD, l, g);
	g = outcome(g_new, script);
	l = outcome(l_new, script);
	ok(l == g && l == ENOEXEC,
	   "posix_spawn@@GLIBC_2.15: ENOEXEC (library %d, glibc %d)", l, g);

	setenv("PATH", dir, 1);
	g = outcome(gp_old, "pfs-nosh");
	l = outcome(lp_old, "pfs-nosh");
	ok(l == g && l > 1000 && lp_old != gp_old,
	   "posix_spawnp@%s found in PATH: run by /bin/sh as glibc does "
	   "(library %d, glibc %d)", OLD, l, g);
	g = outcome(gp_new, "pfs-nosh");
	l = outcome(lp_new, "pfs-nosh");
	ok(l == g && l == ENOEXEC,
	   "posix_spawnp@@GLIBC_2.15: ENOEXEC (library %d, glibc %d)", l, g);
	unsetenv("PATH");

	g = outcome(g_old, "/nonexistent/x");
	l = outcome(l_old, "/nonexistent/x");
	ok(l == g && l == ENOENT && no_zombies(),
	   "posix_spawn@%s of a missing file: ENOENT, no sh (library %d, "
	   "glibc %d)", OLD, l, g);
	unlink(script);
	rmdir(dir);
	return tap_done();
#endif
}
