/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for glibc's arch-fd_to_filename.h: see support/pfs-shim.h. */
#include <support/pfs-shim.h>
