/* SPDX-License-Identifier: MIT */
/*
 * libpidfdspawn's stand-in for the config.h of a gnulib test directory:
 * gnulib's posix_spawn tests compiled against the installed glibc (no
 * gnulib replacement functions), so that the library, preloaded, serves
 * their calls.  glibc 2.36 names the chdir actions with _np.
 */
#ifndef PFS_GNULIB_CONFIG_H
#define PFS_GNULIB_CONFIG_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#define BOURNE_SHELL "/bin/sh"
#ifndef EXEEXT
#define EXEEXT ""
#endif
#define _GL_ARG_NONNULL(params)
#define _GL_UNUSED __attribute__((unused))
#define posix_spawn_file_actions_addchdir posix_spawn_file_actions_addchdir_np
#define posix_spawn_file_actions_addfchdir posix_spawn_file_actions_addfchdir_np
#endif
