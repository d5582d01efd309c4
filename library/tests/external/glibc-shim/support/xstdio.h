/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for glibc's support/xstdio.h: see pfs-shim.h. */
#include <support/pfs-shim.h>
