/* SPDX-License-Identifier: MIT */
/* The running library's version (the header's is PIDFDSPAWN_VERSION_STRING). */
#include "internal.h"

PFS_API const char *pidfdspawn_version(void)
{
	return PIDFDSPAWN_VERSION_STRING;
}
