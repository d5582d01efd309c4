/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for glibc's support/xunistd.h: see pfs-shim.h. */
#include <support/pfs-shim.h>
