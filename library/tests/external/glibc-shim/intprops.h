/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for glibc's intprops.h: see support/pfs-shim.h. */
#include <support/pfs-shim.h>
