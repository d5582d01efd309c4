/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for glibc's array_length.h: see support/pfs-shim.h. */
#include <support/pfs-shim.h>
