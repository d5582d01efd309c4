/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for gnulib's tests/signature.h: a function has
 * the declared type (a pointer of that type initialised with it). */
#ifndef PFS_GNULIB_SIGNATURE_H
#define PFS_GNULIB_SIGNATURE_H
#define PFS_SIG_CAT2(a, b) a##b
#define PFS_SIG_CAT(a, b) PFS_SIG_CAT2(a, b)
#define SIGNATURE_CHECK(fn, ret, args) \
	__attribute__((unused)) static ret(*PFS_SIG_CAT(pfs_signature_, __LINE__)) args = fn
#endif
