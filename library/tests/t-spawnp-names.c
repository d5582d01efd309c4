/* SPDX-License-Identifier: MIT */
/*
 * posix_spawnp of "" or of a name over NAME_MAX: as glibc, the file
 * actions run first (a failing one gives its error, a creating one
 * creates), then the search fails: ENOENT for "", and for a long name the
 * error of its candidates (ENOENT where the PATH directory is missing,
 * ENAMETOOLONG where it exists).  Compared with glibc's own posix_spawnp
 * (dlsym in libc.so.6), in both backends.
 */
#include <dlfcn.h>
#include <sys/stat.h>

#include "tap.h"

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static char dir[] = "/tmp/pfs-spawnp-names-XXXXXX";

/* One request; @created: whether the open action's file appeared. */
static int try(spawn_fn fn, const char *name, const char *path, int bad_action,
	       int *created)
{
	char *argv[] = { "x", NULL }, file[PATH_MAX];
	posix_spawn_file_actions_t fa;
	struct stat st;
	pid_t pid;
	int err;

	snprintf(file, sizeof(file), "%s/created", dir);
	unlink(file);
	setenv("PATH", path, 1);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 20, file, O_WRONLY | O_CREAT, 0600);
	if (bad_action)
		posix_spawn_file_actions_addopen(&fa, 21, "/dev/null/x", O_RDONLY, 0);
	err = fn(&pid, name, &fa, NULL, argv, environ);
	if (!err)
		wait_status(pid);
	*created = stat(file, &st) == 0;
	posix_spawn_file_actions_destroy(&fa);
	return err;
}

int main(void)
{
	static char big[300];
	const char *modes[] = { "fallback", "auto" };
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	spawn_fn glibc = libc ? (spawn_fn)dlsym(libc, "posix_spawnp") : NULL;
	struct { const char *what, *name; const char *path; int bad; } cases[] = {
		{ "\"\"", "", "/bin", 0 },
		{ "\"\" + failing action", "", "/bin", 1 },
		{ "NAME_MAX+ (PATH dir exists)", big, "/bin", 0 },
		{ "NAME_MAX+ (PATH dir missing)", big, "/nonexistent-pfs", 0 },
		{ "NAME_MAX+ + failing action", big, "/bin", 1 },
	};
	const int n = sizeof(cases) / sizeof(cases[0]);

	memset(big, 'n', sizeof(big) - 1);
	tap_plan(2 * n);
	if (!mkdtemp(dir) || !glibc)
		abort();
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < n; i++) {
			int gc, lc, ge, le;

			unsetenv("PIDFDSPAWN_BACKEND");
			ge = try(glibc, cases[i].name, cases[i].path, cases[i].bad, &gc);
			setenv("PIDFDSPAWN_BACKEND", modes[m], 1);
			le = try(posix_spawnp, cases[i].name, cases[i].path, cases[i].bad, &lc);
			ok(le == ge && lc == gc && gc,
			   "%s: %s: as glibc: error %d (%s), actions ran %d (glibc %d, %s)",
			   modes[m], cases[i].what, le, strerror(le), lc, ge, strerror(ge));
		}
	rmdir(dir);
	return tap_done();
}
