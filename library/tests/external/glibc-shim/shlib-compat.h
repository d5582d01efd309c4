/* SPDX-License-Identifier: MIT */
/*
 * libpidfdspawn's stand-in for glibc's shlib-compat.h, for tests built
 * outside glibc: compat_symbol_reference binds a reference to the oldest
 * version of a libc symbol on this architecture (GLIBC_2_2 means
 * GLIBC_2.2.5 on x86_64, GLIBC_2.2 on i386).  Only what tst-spawn4-compat
 * uses.
 */
#ifndef PFS_SHLIB_COMPAT_H
#define PFS_SHLIB_COMPAT_H
#if defined(__x86_64__) && defined(__LP64__)
#define PFS_VERSION_GLIBC_2_2 "GLIBC_2.2.5"
#elif defined(__i386__)
#define PFS_VERSION_GLIBC_2_2 "GLIBC_2.2"
#else
#error "shlib-compat.h stand-in: unknown architecture"
#endif
#define SHLIB_COMPAT(lib, introduced, obsoleted) 1
#define compat_symbol_reference(lib, local, symbol, version) \
	__asm__(".symver " #local "," #symbol "@" PFS_VERSION_##version)
#endif
