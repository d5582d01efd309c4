/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for glibc's support/xthread.h: see pfs-shim.h. */
#include <support/pfs-shim.h>
