/* SPDX-License-Identifier: MIT */
/* posix_spawnp: the PATH walk, its errors, empty PATH entries, argv[0]. */
#include <ftw.h>
#include <sys/stat.h>

#include "tap.h"

static char top[] = "/tmp/pfs-spawnp-XXXXXX";

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st; (void)type; (void)ftw;
	remove(path);
	return 0;
}

static void make_dir(const char *name, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", top, name);
	mkdir(out, 0755);
}

/* A copy of the helper named @name in @dir, with @mode. */
static void place_helper(const char *dir, const char *name, mode_t mode)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (symlink(helper_path(), path) < 0 && mode == 0755)
		abort();
	if (mode != 0755) {	/* a real file that cannot be executed */
		unlink(path);
		close(open(path, O_CREAT | O_WRONLY, mode));
	}
}

static int spawnp_fa(const char *path_env, const char *file,
		     posix_spawn_file_actions_t *fa, char *out, size_t size,
		     int *status)
{
	char *argv[] = { "given-argv0", NULL };
	int err;

	if (path_env)
		setenv("PATH", path_env, 1);
	else
		unsetenv("PATH");
	err = spawn_capture(file, 1, fa, NULL, argv, environ, out, size,
			    status);
	return err;
}

static int spawnp_with_path(const char *path_env, const char *file,
			    char *out, size_t size, int *status)
{
	return spawnp_fa(path_env, file, NULL, out, size, status);
}

/* File actions, searches and PATH lengths beyond the plain walk. */
static void test_with_actions(const char *a, const char *b, const char *c)
{
	posix_spawn_file_actions_t fa;
	char path[3 * PATH_MAX + 8], file[PATH_MAX + 16], out[8192], *longpath;
	size_t len = 0;
	int status = -1, err;

	/* The actions run once, not once per candidate. */
	snprintf(file, sizeof(file), "%s/excl", c);
	snprintf(path, sizeof(path), "%s:%s:%s", a, c, b);
	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 30, file, O_WRONLY | O_CREAT | O_EXCL,
					 0600);
	err = spawnp_fa(path, "pfs-prog", &fa, out, sizeof(out), &status);
	ok(err == 0 && status == 0,
	   "an O_CREAT|O_EXCL open runs once for the whole search (%d)", err);
	ok_backend(&fa, NULL, 1, "posix_spawnp search with addopen");
	unlink(file);

	/* Relative entries resolve after the child's chdir actions. */
	capture_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, top);
	err = spawnp_fa("a:b", "pfs-prog", &fa, out, sizeof(out), &status);
	ok(err == 0 && status == 0,
	   "a relative PATH entry resolves in the directory of addchdir_np (%d)", err);
	ok_backend(&fa, NULL, 1, "posix_spawnp search after addchdir_np");

	/* 70000 bytes of PATH: more than the kernel's search takes. */
	longpath = malloc(80000);
	while (len < 70000)
		len += (size_t)sprintf(longpath + len, "/nonexistent/pfs-%05zu:", len);
	snprintf(longpath + len, 80000 - len, "%s", b);
	err = spawnp_with_path(longpath, "pfs-prog", out, sizeof(out), &status);
	ok(err == 0 && status == 0 &&
	   pidfdspawn_last_backend() == expected_backend(PIDFDSPAWN_FEAT_BUILDER),
	   "a PATH of %zu bytes is searched (%d, backend %s)", strlen(longpath),
	   err, pidfdspawn_backend_name(pidfdspawn_last_backend()));
	capture_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 30, file, O_WRONLY | O_CREAT | O_EXCL,
					 0600);
	err = spawnp_fa(longpath, "pfs-prog", &fa, out, sizeof(out), &status);
	ok(err == 0 && status == 0 &&
	   pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_FALLBACK,
	   "with an open action, such a PATH is left to the fallback (%d, %s)",
	   err, pidfdspawn_backend_name(pidfdspawn_last_backend()));
	unlink(file);
	free(longpath);
}

int main(void)
{
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], path[3 * PATH_MAX + 8];
	char out[8192], buf[256], longname[400], *saved = strdup(getenv("PATH") ?: "");
	int status = -1, err;

	tap_plan(22);
	if (!mkdtemp(top))
		abort();
	make_dir("a", a, sizeof(a));
	make_dir("b", b, sizeof(b));
	make_dir("c", c, sizeof(c));
	place_helper(b, "pfs-prog", 0755);
	place_helper(a, "pfs-noexec", 0644);

	snprintf(path, sizeof(path), "%s:%s:%s", a, b, c);
	err = spawnp_with_path(path, "pfs-prog", out, sizeof(out), &status);
	ok(err == 0 && status == 0, "found in the second PATH entry (%d)", err);
	ok_backend(NULL, NULL, 1, "posix_spawnp search");
	ok(strcmp(report_get(out, "argv0", buf, sizeof(buf)), "given-argv0") == 0,
	   "argv[0] is the caller's, not the resolved path");

	err = spawnp_with_path(path, "pfs-missing", out, sizeof(out), &status);
	ok(err == ENOENT, "a name in no entry is ENOENT (%d)", err);
	ok(no_zombies(), "no child left after a failed search");

	err = spawnp_with_path(path, "pfs-noexec", out, sizeof(out), &status);
	ok(err == EACCES, "only a non-executable match: EACCES remembered (%d)", err);

	place_helper(c, "pfs-noexec", 0755);
	err = spawnp_with_path(path, "pfs-noexec", out, sizeof(out), &status);
	ok(err == 0 && status == 0, "EACCES does not stop the search (%d)", err);

	snprintf(path, sizeof(path), "%s/pfs-prog", b);
	err = spawnp_with_path("/nonexistent", path, out, sizeof(out), &status);
	ok(err == 0 && status == 0, "a name with a slash is not searched (%d)", err);

	if (chdir(b) == 0) {
		err = spawnp_with_path("", "pfs-prog", out, sizeof(out), &status);
		ok(err == 0 && status == 0, "an empty PATH is the current directory (%d)", err);
		snprintf(path, sizeof(path), "/nonexistent::%s", c);
		err = spawnp_with_path(path, "pfs-prog", out, sizeof(out), &status);
		ok(err == 0 && status == 0, "an empty PATH entry is the current directory (%d)", err);
		ok_backend(NULL, NULL, 1, "relative PATH entry");
		if (chdir("/") < 0)
			abort();
	} else {
		ok(0, "chdir"); ok(0, "chdir"); ok(0, "chdir");
	}

	err = spawnp_with_path(NULL, "sh", out, sizeof(out), &status);
	ok(err == 0, "PATH unset: the default /bin:/usr/bin finds sh (%d)", err);

	err = spawnp_with_path(a, "", out, sizeof(out), &status);
	ok(err == ENOENT, "an empty file name is ENOENT (%d)", err);

	memset(longname, 'x', 300);
	longname[300] = '\0';
	err = spawnp_with_path(a, longname, out, sizeof(out), &status);
	ok(err == ENAMETOOLONG, "a name longer than NAME_MAX is ENAMETOOLONG (%d)", err);

	snprintf(path, sizeof(path), "%s/pfs-script", a);
	close(open(path, O_CREAT | O_WRONLY, 0755));
	snprintf(path, sizeof(path), "%s:%s", a, b);
	err = spawnp_with_path(path, "pfs-script", out, sizeof(out), &status);
	ok(err == ENOEXEC, "ENOEXEC stops the search, no shell fallback (%d)", err);
	ok(no_zombies(), "no child left");

	test_with_actions(a, b, c);
	setenv("PATH", saved, 1);
	/* Leave nothing in /tmp. */
	nftw(top, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
