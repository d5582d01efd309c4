/* SPDX-License-Identifier: MIT */
/*
 * posix_spawnattr_*: glibc 2.39's posix_spawnattr_t layout (struct
 * pfs_attr).  All of them return an error number.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"

_Static_assert(sizeof(struct pfs_attr) == sizeof(posix_spawnattr_t),
	       "attr size");
_Static_assert(_Alignof(struct pfs_attr) == _Alignof(posix_spawnattr_t),
	       "attr alignment");
_Static_assert(offsetof(struct pfs_attr, policy) ==
	       offsetof(posix_spawnattr_t, __policy), "attr policy offset");
_Static_assert(offsetof(struct pfs_attr, cgroup) ==
	       offsetof(posix_spawnattr_t, __pad), "attr cgroup offset");

static struct pfs_attr *at(posix_spawnattr_t *a)
{
	return (struct pfs_attr *)a;
}

PFS_API int posix_spawnattr_init(posix_spawnattr_t *a)
{
	memset(a, 0, sizeof(*a));
	return 0;
}

PFS_API int posix_spawnattr_destroy(posix_spawnattr_t *a)
{
	(void)a;
	return 0;
}

PFS_API int posix_spawnattr_getflags(const posix_spawnattr_t *a, short *flags)
{
	*flags = pfs_at(a)->flags;
	return 0;
}

PFS_API int posix_spawnattr_setflags(posix_spawnattr_t *a, short flags)
{
	if (flags & ~PFS_ALL_FLAGS)
		return EINVAL;
	at(a)->flags = flags;
	return 0;
}

PFS_API int posix_spawnattr_getpgroup(const posix_spawnattr_t *a, pid_t *pgrp)
{
	*pgrp = pfs_at(a)->pgrp;
	return 0;
}

PFS_API int posix_spawnattr_setpgroup(posix_spawnattr_t *a, pid_t pgrp)
{
	at(a)->pgrp = pgrp;
	return 0;
}

PFS_API int posix_spawnattr_getsigdefault(const posix_spawnattr_t *a,
					  sigset_t *set)
{
	*set = pfs_at(a)->sigdef;
	return 0;
}

PFS_API int posix_spawnattr_setsigdefault(posix_spawnattr_t *a,
					  const sigset_t *set)
{
	at(a)->sigdef = *set;
	return 0;
}

PFS_API int posix_spawnattr_getsigmask(const posix_spawnattr_t *a,
				       sigset_t *set)
{
	*set = pfs_at(a)->sigmask;
	return 0;
}

PFS_API int posix_spawnattr_setsigmask(posix_spawnattr_t *a,
				       const sigset_t *set)
{
	at(a)->sigmask = *set;
	return 0;
}

PFS_API int posix_spawnattr_getschedpolicy(const posix_spawnattr_t *a,
					   int *policy)
{
	*policy = pfs_at(a)->policy;
	return 0;
}

PFS_API int posix_spawnattr_setschedpolicy(posix_spawnattr_t *a, int policy)
{
	switch (policy) {
	case SCHED_OTHER:
	case SCHED_FIFO:
	case SCHED_RR:
		at(a)->policy = policy;
		return 0;
	}
	return EINVAL;
}

PFS_API int posix_spawnattr_getschedparam(const posix_spawnattr_t *a,
					  struct sched_param *param)
{
	*param = pfs_at(a)->sp;
	return 0;
}

PFS_API int posix_spawnattr_setschedparam(posix_spawnattr_t *a,
					  const struct sched_param *param)
{
	at(a)->sp = *param;
	return 0;
}

PFS_API int posix_spawnattr_getcgroup_np(const posix_spawnattr_t *a,
					 int *cgroup)
{
	*cgroup = pfs_at(a)->cgroup;
	return 0;
}

PFS_API int posix_spawnattr_setcgroup_np(posix_spawnattr_t *a, int cgroup)
{
	at(a)->cgroup = cgroup;
	return 0;
}
