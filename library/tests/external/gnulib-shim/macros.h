/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for gnulib's tests/macros.h: ASSERT. */
#ifndef PFS_GNULIB_MACROS_H
#define PFS_GNULIB_MACROS_H
#include <stdio.h>
#include <stdlib.h>
#define ASSERT(expr) \
	do { \
		if (!(expr)) { \
			fprintf(stderr, "%s:%d: assertion '%s' failed\n", \
				__FILE__, __LINE__, #expr); \
			fflush(stderr); \
			abort(); \
		} \
	} while (0)
#define SIZEOF(a) (sizeof(a) / sizeof((a)[0]))
#define STREQ(a, b) (strcmp(a, b) == 0)
#endif
