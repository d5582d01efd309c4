/* SPDX-License-Identifier: MIT */
/* libpidfdspawn's stand-in for gnulib's tests/qemu.h: these tests never
 * run under qemu-user (the guest is a full system VM). */
#ifndef PFS_GNULIB_QEMU_H
#define PFS_GNULIB_QEMU_H
#include <stdbool.h>
static inline bool is_running_under_qemu_user(void)
{
	return false;
}
#endif
