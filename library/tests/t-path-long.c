/* SPDX-License-Identifier: MIT */
/*
 * posix_spawnp with PATH entries at and beyond PATH_MAX, compared with
 * glibc's own posix_spawnp (found in libc.so.6 with dlsym): glibc 2.36's
 * execvpe skips an entry of 4096+ bytes (trying the name alone in its
 * place unless it is the last entry), tries a shorter one even when
 * entry/name is too long (ENAMETOOLONG ends the search), and reports the
 * caller's errno (ECHILD for 0) when it tried nothing.  Both in auto mode
 * and with the fallback forced.
 */
#include <dlfcn.h>
#include <sys/stat.h>

#include "tap.h"

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

static spawn_fn *glibc_spawnp;

/* Spawn with @fn and @fa; the error, or 1000 + the exit status. */
static int outcome_fa(spawn_fn *fn, const char *file, int pre_errno,
		      const posix_spawn_file_actions_t *fa)
{
	char *argv[] = { (char *)file, NULL };
	pid_t pid;
	int err;

	errno = pre_errno;
	err = fn(&pid, file, fa, NULL, argv, environ);
	return err ? err : 1000 + wait_status(pid);
}

static int outcome(spawn_fn *fn, const char *file, int pre_errno)
{
	return outcome_fa(fn, file, pre_errno, NULL);
}

static void same(const char *what, const char *path, const char *file,
		 int pre_errno, int want)
{
	int g, l;

	setenv("PATH", path, 1);
	g = outcome(glibc_spawnp, file, pre_errno);
	l = outcome(posix_spawnp, file, pre_errno);
	unsetenv("PATH");
	ok(g == want && l == g && no_zombies(),
	   "%s: library %d, glibc %d (expected %d), backend %s", what, l, g,
	   want, pidfdspawn_backend_name(pidfdspawn_last_backend()));
}

static char *entry(char fill, size_t len)
{
	char *s = malloc(len + 1);

	memset(s, fill, len);
	s[0] = '/';
	s[len] = '\0';
	return s;
}

static void cases(void)
{
	char *l4999 = entry('a', 4999), *l4096 = entry('b', 4096);
	char *l4095 = entry('c', 4095), *l3999 = entry('d', 3999);
	char buf[12000];

	snprintf(buf, sizeof(buf), "%s:/nonexistent", l4999);
	same("4999-byte entry then a missing dir: the name alone in the "
	     "current directory runs", buf, "pfs-prog", 0, 1000 + 42);
	snprintf(buf, sizeof(buf), "%s:/usr/bin:/bin", l4096);
	same("4096-byte entry is skipped, /usr/bin found", buf, "true", 0, 1000);
	snprintf(buf, sizeof(buf), "%s:/usr/bin:/bin", l4095);
	same("4095-byte entry is tried: ENAMETOOLONG ends the search", buf,
	     "true", 0, ENAMETOOLONG);
	snprintf(buf, sizeof(buf), "%s:/usr/bin:/bin", l3999);
	same("3999-byte entry + name > PATH_MAX: ENAMETOOLONG", buf, "true",
	     0, ENAMETOOLONG);
	snprintf(buf, sizeof(buf), "/nonexistent:%s", l4999);
	same("a long last entry ends the search: ENOENT of the one before",
	     buf, "true", 0, ENOENT);
	same("a long only entry, errno 0: nothing tried, ECHILD", l4999,
	     "true", 0, ECHILD);
	same("a long only entry, errno EXDEV: nothing tried, EXDEV", l4999,
	     "true", EXDEV, EXDEV);
	free(l4999);
	free(l4096);
	free(l4095);
	free(l3999);
}

/*
 * The same with file actions, an open among them: where the kernel
 * searches PATH, the library gives it the PATH as glibc walks it (an
 * entry of PATH_MAX bytes or more as an empty one, or dropped when last),
 * so the builder serves these (@builder: the backend is checked) instead
 * of refusing (ENOTSUP with the builder forced: the fuzzer's seed
 * 1796422736, index 84).  A shorter entry too long for the name stays
 * unservable by the kernel's search: the fallback in auto mode.
 */
static void same_fa(const char *what, const char *path, const char *file,
		    const posix_spawn_file_actions_t *fa, int want,
		    int builder)
{
	int g, l;

	setenv("PATH", path, 1);
	g = outcome_fa(glibc_spawnp, file, 0, fa);
	l = outcome_fa(posix_spawnp, file, 0, fa);
	unsetenv("PATH");
	ok(g == want && l == g && no_zombies(),
	   "with an open: %s: library %d, glibc %d (expected %d), backend %s",
	   what, l, g, want,
	   pidfdspawn_backend_name(pidfdspawn_last_backend()));
	if (builder)
		ok_backend(fa, NULL, 1, what);
	else
		ok(pidfdspawn_last_backend() == PIDFDSPAWN_BACKEND_FALLBACK,
		   "with an open: %s: the fallback serves it (the kernel's "
		   "search would go past the entry glibc stops at): backend %s",
		   what, pidfdspawn_backend_name(pidfdspawn_last_backend()));
}

static void cases_with_actions(void)
{
	char *l4999 = entry('a', 4999), *l4096 = entry('b', 4096);
	char *l4095 = entry('c', 4095), *big, *o;
	const char *mode = getenv("PIDFDSPAWN_BACKEND");
	posix_spawn_file_actions_t fa, bad;
	uint32_t want = PIDFDSPAWN_FEAT_BUILDER | PIDFDSPAWN_FEAT_OPEN |
			PIDFDSPAWN_FEAT_PATH_SEARCH;
	char buf[12000];

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 20, "/dev/null", O_RDONLY, 0);
	snprintf(buf, sizeof(buf), "%s:/nonexistent", l4999);
	same_fa("4999-byte entry then a missing dir: the name alone in the "
		"current directory runs", buf, "pfs-prog", &fa, 1000 + 42, 1);
	snprintf(buf, sizeof(buf), "/nonexistent:%s:%s:/nonexistent", l4999,
		 l4999);
	same_fa("two 4999-byte entries between missing dirs: the current "
		"directory", buf, "pfs-prog", &fa, 1000 + 42, 1);
	snprintf(buf, sizeof(buf), "%s:/usr/bin:/bin", l4096);
	same_fa("4096-byte entry, /usr/bin found", buf, "true", &fa, 1000, 1);
	snprintf(buf, sizeof(buf), "/nonexistent:%s", l4999);
	same_fa("a long last entry ends the search", buf, "pfs-prog", &fa,
		ENOENT, 1);
	/* 14 long entries: 70 KiB, over the kernel's 64 KiB once; not now */
	big = malloc(15 * 5000 + 32);
	o = big;
	for (int i = 0; i < 14; i++)
		o += sprintf(o, "%s:", l4999);
	strcpy(o, "/usr/bin:/bin");
	same_fa("a 70 KiB PATH of long entries, then /usr/bin", big, "true",
		&fa, 1000, 1);
	free(big);
	snprintf(buf, sizeof(buf), "%s:/usr/bin:/bin", l4095);
	same_fa("4095-byte entry: ENAMETOOLONG", buf, "true", &fa,
		ENAMETOOLONG, 0);

	/* An earlier action's error, the builder forced where it can serve. */
	posix_spawn_file_actions_init(&bad);
	posix_spawn_file_actions_addopen(&bad, 20, "/", O_WRONLY, 0);
	if (!mode && (expected_builder_features() & want) == want)
		setenv("PIDFDSPAWN_BACKEND", "builder", 1);
	snprintf(buf, sizeof(buf), "/bin:%s:/usr/bin", l4999);
	same_fa("an open failing before the search", buf, "true", &bad,
		EISDIR, 1);
	if (!mode)
		unsetenv("PIDFDSPAWN_BACKEND");
	posix_spawn_file_actions_destroy(&bad);
	posix_spawn_file_actions_destroy(&fa);
	free(l4999);
	free(l4096);
	free(l4095);
}

int main(void)
{
	char dir[] = "/tmp/pfs-pathlong-XXXXXX", prog[64], cwd[PATH_MAX];
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	int fd;

	glibc_spawnp = h ? (spawn_fn *)dlsym(h, "posix_spawnp") : NULL;
	if (!glibc_spawnp || glibc_spawnp == posix_spawnp || !mkdtemp(dir) ||
	    !getcwd(cwd, sizeof(cwd))) {
		printf("Bail out! no glibc posix_spawnp or no temp dir\n");
		return 1;
	}
	snprintf(prog, sizeof(prog), "%s/pfs-prog", dir);
	fd = open(prog, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (fd < 0 || write(fd, "#!/bin/sh\nexit 42\n", 18) != 18 ||
	    close(fd) < 0 || chdir(dir) < 0) {
		printf("Bail out! %s: %s\n", prog, strerror(errno));
		return 1;
	}
	tap_plan(42);
	cases();
	cases_with_actions();
	setenv("PIDFDSPAWN_BACKEND", "fallback", 1);
	cases();
	cases_with_actions();
	unlink(prog);
	if (chdir(cwd) == 0)
		rmdir(dir);
	return tap_done();
}
