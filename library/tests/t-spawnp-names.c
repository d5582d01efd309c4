/* SPDX-License-Identifier: MIT */
/*
 * posix_spawnp searches that fail: as glibc, the file actions run first (a
 * failing one gives its error, a creating one creates), then the search
 * fails.  For "" with ENOENT; for a name over NAME_MAX with the error of
 * its candidates (ENOENT where the PATH directory is missing, ENAMETOOLONG
 * where it exists); for a PATH whose walk tries nothing (a single entry of
 * PATH_MAX bytes or more) with the errno the actions left; for a PATH of
 * 64 KiB or more, which the library walks around the builder, with the
 * last candidate's error even where no candidate exists.  Compared with
 * glibc's own posix_spawnp (dlsym in libc.so.6), in every backend.
 */
#include <dlfcn.h>
#include <sys/stat.h>

#include "tap.h"

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static char dir[] = "/tmp/pfs-spawnp-names-XXXXXX";

/* The actions of a case. */
enum {
	CREATES = 1 << 0,	/* an open that creates a file */
	BAD_OPEN = 1 << 1,	/* an open that fails (ENOTDIR) */
	BAD_FCHDIR = 1 << 2,	/* an fchdir of a closed fd (EBADF) */
};

/* One request; @created: whether the open action's file appeared. */
static int try(spawn_fn fn, const char *name, const char *path, int actions,
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
	if (actions & CREATES)
		posix_spawn_file_actions_addopen(&fa, 20, file,
						 O_WRONLY | O_CREAT, 0600);
	if (actions & BAD_OPEN)
		posix_spawn_file_actions_addopen(&fa, 21, "/dev/null/x", O_RDONLY, 0);
	if (actions & BAD_FCHDIR)
		posix_spawn_file_actions_addfchdir_np(&fa, 900);
	/* What a search that tries nothing reports: the errno it found. */
	errno = EDOM;
	err = fn(&pid, name, &fa, NULL, argv, environ);
	if (!err)
		wait_status(pid);
	*created = stat(file, &st) == 0;
	posix_spawn_file_actions_destroy(&fa);
	return err;
}

int main(void)
{
	static char big[300], one_long[PATH_MAX + 10], many[70000];
	/* The builder forced only where the kernel has it (in the guest). */
	const char *modes[] = { "fallback", "auto", "builder" };
	const int nm = (expected_builder_features() &
			PIDFDSPAWN_FEAT_BUILDER) ? 3 : 2;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	spawn_fn glibc = libc ? (spawn_fn)dlsym(libc, "posix_spawnp") : NULL;
	/* @child_only: the fallback serves it in every mode. */
	struct {
		const char *what, *name, *path;
		int actions, child_only;
	} cases[] = {
		{ "\"\"", "", "/bin", CREATES, 1 },
		{ "\"\" + failing action", "", "/bin", CREATES | BAD_OPEN, 1 },
		{ "NAME_MAX+ (PATH dir exists)", big, "/bin", CREATES, 1 },
		{ "NAME_MAX+ (PATH dir missing)", big, "/nonexistent-pfs",
		  CREATES, 1 },
		{ "NAME_MAX+ + failing action", big, "/bin", CREATES | BAD_OPEN,
		  1 },
		{ "PATH tries nothing", "true", one_long, CREATES, 1 },
		{ "PATH tries nothing + failing open", "true", one_long,
		  CREATES | BAD_OPEN, 1 },
		{ "PATH tries nothing + failing fchdir", "true", one_long,
		  BAD_FCHDIR, 1 },
		{ "PATH tries nothing, no action", "true", one_long, 0, 1 },
		{ "64 KiB PATH, no candidate exists", "true", many, 0, 0 },
		{ "64 KiB PATH, no candidate exists + failing fchdir", "true",
		  many, BAD_FCHDIR, 0 },
	};
	const int n = sizeof(cases) / sizeof(cases[0]);

	memset(big, 'n', sizeof(big) - 1);
	/* One entry of PATH_MAX bytes or more: glibc's walk ends there. */
	memset(one_long, 'x', sizeof(one_long) - 1);
	one_long[0] = '/';
	/* Directories that do not exist, beyond the kernel's 64 KiB search. */
	for (size_t used = 0; used + 32 < sizeof(many); )
		used += (size_t)sprintf(many + used, "%s/nonexistent-pfs-%zu",
					used ? ":" : "", used);
	tap_plan(nm * n);
	if (!mkdtemp(dir) || !glibc)
		abort();
	for (int m = 0; m < nm; m++)
		for (int i = 0; i < n; i++) {
			int acts = cases[i].actions, gc, lc, ge, le;
			enum pidfdspawn_backend want, got;

			unsetenv("PIDFDSPAWN_BACKEND");
			ge = try(glibc, cases[i].name, cases[i].path, acts,
				 &gc);
			setenv("PIDFDSPAWN_BACKEND", modes[m], 1);
			le = try(posix_spawnp, cases[i].name, cases[i].path,
				 acts, &lc);
			got = pidfdspawn_last_backend();
			want = m && !cases[i].child_only ?
			       expected_backend(acts & BAD_FCHDIR ?
						PIDFDSPAWN_FEAT_BUILDER |
						PIDFDSPAWN_FEAT_FCHDIR :
						PIDFDSPAWN_FEAT_BUILDER) :
			       PIDFDSPAWN_BACKEND_FALLBACK;
			ok(le == ge && ge && lc == gc &&
			   gc == !!(acts & CREATES) && got == want,
			   "%s: %s: as glibc: error %d (%s), actions ran %d (glibc %d, %s), %s backend",
			   modes[m], cases[i].what, le, strerror(le), lc, ge,
			   strerror(ge), pidfdspawn_backend_name(got));
		}
	rmdir(dir);
	return tap_done();
}
