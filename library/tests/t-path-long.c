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

/* Spawn with @fn; the error, or 1000 + the exit status. */
static int outcome(spawn_fn *fn, const char *file, int pre_errno)
{
	char *argv[] = { (char *)file, NULL };
	pid_t pid;
	int err;

	errno = pre_errno;
	err = fn(&pid, file, NULL, NULL, argv, environ);
	return err ? err : 1000 + wait_status(pid);
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
	tap_plan(14);
	cases();
	setenv("PIDFDSPAWN_BACKEND", "fallback", 1);
	cases();
	unlink(prog);
	if (chdir(cwd) == 0)
		rmdir(dir);
	return tap_done();
}
