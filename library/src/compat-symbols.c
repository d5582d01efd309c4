/* SPDX-License-Identifier: MIT */
/*
 * glibc exports two versions of posix_spawn and posix_spawnp: the current
 * ones (GLIBC_2.15) and the ones programs linked against glibc before
 * 2.15 still call (GLIBC_2.2.5 on x86-64, GLIBC_2.2 on i386), which run a
 * file the kernel refuses with ENOEXEC (a script without "#!") through
 * /bin/sh.  The shared library defines both, with the same version names
 * (libpidfdspawn.map), so that under LD_PRELOAD each reference binds to
 * the variant it was linked for; an unversioned posix_spawn would take
 * the old references too and lose the shell.  Only in the shared library:
 * a static link has no symbol versions.
 */
#include "internal.h"

#if defined(__x86_64__) && defined(__LP64__)
#define PFS_OLD_VERSION "GLIBC_2.2.5"
#elif defined(__i386__)
#define PFS_OLD_VERSION "GLIBC_2.2"
#endif

#ifdef PFS_OLD_VERSION
/* Exported only under the versioned names (the map makes these local). */
PFS_API int pfs_posix_spawn_old(pid_t *pid, const char *path,
				const posix_spawn_file_actions_t *fa,
				const posix_spawnattr_t *attrp,
				char *const argv[], char *const envp[]);
PFS_API int pfs_posix_spawnp_old(pid_t *pid, const char *file,
				 const posix_spawn_file_actions_t *fa,
				 const posix_spawnattr_t *attrp,
				 char *const argv[], char *const envp[]);

int pfs_posix_spawn_old(pid_t *pid, const char *path,
			const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attrp, char *const argv[],
			char *const envp[])
{
	return pfs_posix_spawn(pid, path, 0, fa, attrp, argv, envp, 1);
}

int pfs_posix_spawnp_old(pid_t *pid, const char *file,
			 const posix_spawn_file_actions_t *fa,
			 const posix_spawnattr_t *attrp, char *const argv[],
			 char *const envp[])
{
	return pfs_posix_spawn(pid, file, 1, fa, attrp, argv, envp, 1);
}

__asm__(".symver pfs_posix_spawn_old, posix_spawn@" PFS_OLD_VERSION);
__asm__(".symver pfs_posix_spawnp_old, posix_spawnp@" PFS_OLD_VERSION);
#endif
