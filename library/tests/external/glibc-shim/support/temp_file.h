/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for glibc's support/temp_file.h: see pfs-shim.h. */
#include <support/pfs-shim.h>
