/* SPDX-License-Identifier: MIT */
/*
 * The probe: which builder features the running kernel supports, learnt by
 * asking the kernel, never from a version number.  Computed once per
 * process and cached (not while descriptors or memory run out).
 *
 * First pidfd_open(0, PIDFD_EMPTY), a system call every supported kernel
 * has (5.3+), must hand out a builder: kernels without the builder refuse
 * it with EINVAL.  Until it did, system calls 472 and 473 are never made:
 * elsewhere they may be something else, or a seccomp filter may kill the
 * process for an unknown system call.  Then methods are tried in order
 * until one answers:
 *   1. the discovery interface: pidfd_config(-1, PIDFD_CONFIG_QUERY, NULL,
 *      &features, sizeof(features)) names the known action types, run
 *      flags and pidfd_config commands, and a query per key,
 *      pidfd_config(-1, PIDFD_CONFIG_QUERY, key, NULL, 0), returns the
 *      command the key takes.  No builder is needed and nothing is
 *      consumed.  EOPNOTSUPP (an unknown command: the RFC kernel) hands
 *      over to the next method; any other error means no builder at all;
 *   2. for kernels without it: consume a throwaway builder per action
 *      type, with an action whose flags no known type accepts, and read the
 *      kernel's verdict: EOPNOTSUPP means "unknown type", EINVAL means
 *      "known type, bad fields".  The kernel checks the whole action array
 *      before any task exists, so no child is created.  Keys are only
 *      discovered by the query (the RFC's builder knows none but "path"),
 *      so this finds no attribute and no PATH search.
 */
#include <errno.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* How the kernel expresses one feature, for the consuming probe. */
struct action_probe {
	uint32_t feature;
	uint32_t type;
};

/* Every action type with a published number, and its feature. */
static const struct action_probe action_probes[] = {
	{ PIDFDSPAWN_FEAT_DUP2, PIDFDSPAWN_ACTION_DUP2 },
	{ PIDFDSPAWN_FEAT_CLOSE_RANGE, PIDFDSPAWN_ACTION_CLOSE_RANGE },
	{ PIDFDSPAWN_FEAT_FCHDIR, PIDFDSPAWN_ACTION_FCHDIR },
	{ PIDFDSPAWN_FEAT_OPEN, PIDFDSPAWN_ACTION_OPEN },
	{ PIDFDSPAWN_FEAT_CLOSE, PIDFDSPAWN_ACTION_CLOSE },
	{ PIDFDSPAWN_FEAT_CHDIR, PIDFDSPAWN_ACTION_CHDIR },
	{ PIDFDSPAWN_FEAT_TCSETPGRP, PIDFDSPAWN_ACTION_TCSETPGRP },
};
#define NR_ACTION_PROBES (sizeof(action_probes) / sizeof(action_probes[0]))

/* The configuration keys the library uses, and the feature each gives. */
static const struct key_probe {
	const char *key;
	unsigned int cmd;
	uint32_t feature;	/* needs every key listed for it */
} key_probes[] = {
	{ PIDFDSPAWN_CONFIG_KEY_SEARCH_PATH, PIDFDSPAWN_CONFIG_SET_STRING,
	  PIDFDSPAWN_FEAT_PATH_SEARCH },
	{ PIDFDSPAWN_CONFIG_KEY_SIGMASK, PIDFDSPAWN_CONFIG_SET_BINARY,
	  PIDFDSPAWN_FEAT_SIGMASK },
	{ PIDFDSPAWN_CONFIG_KEY_SIGDEFAULT, PIDFDSPAWN_CONFIG_SET_BINARY,
	  PIDFDSPAWN_FEAT_SIGDEF },
	{ PIDFDSPAWN_CONFIG_KEY_PGROUP, PIDFDSPAWN_CONFIG_SET_INT,
	  PIDFDSPAWN_FEAT_PGROUP },
	{ PIDFDSPAWN_CONFIG_KEY_SETSID, PIDFDSPAWN_CONFIG_SET_FLAG,
	  PIDFDSPAWN_FEAT_SETSID },
	{ PIDFDSPAWN_CONFIG_KEY_RESETIDS, PIDFDSPAWN_CONFIG_SET_FLAG,
	  PIDFDSPAWN_FEAT_RESETIDS },
	{ PIDFDSPAWN_CONFIG_KEY_SCHED_POLICY, PIDFDSPAWN_CONFIG_SET_INT,
	  PIDFDSPAWN_FEAT_SCHEDULER },
	{ PIDFDSPAWN_CONFIG_KEY_SCHED_PRIORITY, PIDFDSPAWN_CONFIG_SET_INT,
	  PIDFDSPAWN_FEAT_SCHEDULER },
	{ PIDFDSPAWN_CONFIG_KEY_CGROUP, PIDFDSPAWN_CONFIG_SET_FD,
	  PIDFDSPAWN_FEAT_CGROUP },
};

/* 0 and *mask set, or an error number when this method cannot answer. */
static int probe_by_query(uint32_t *mask)
{
	struct pidfdspawn_features f;
	uint32_t found = PIDFDSPAWN_FEAT_BUILDER, keys = 0, bad = 0;

	memset(&f, 0, sizeof(f));
	if (pidfdspawn_config(-1, PIDFDSPAWN_CONFIG_QUERY, NULL, &f,
			      (int)sizeof(f)) < 0) {
		if (errno == EOPNOTSUPP)
			return EOPNOTSUPP;	/* no QUERY: ask differently */
		*mask = 0;			/* ENOSYS...: no builder */
		return 0;
	}
	for (size_t i = 0; i < NR_ACTION_PROBES; i++) {
		uint32_t type = action_probes[i].type;

		if (type >= 64 || !(f.actions & (1ull << type)))
			continue;
		/* Path-carrying records need the version 1 layout. */
		if ((type == PIDFDSPAWN_ACTION_OPEN ||
		     type == PIDFDSPAWN_ACTION_CHDIR) &&
		    f.action_size < PIDFDSPAWN_ACTION_SIZE_VER1)
			continue;
		found |= action_probes[i].feature;
	}
	if (f.run_flags & PIDFDSPAWN_RUN_CLOEXEC_DEFAULT)
		found |= PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT;
	if ((f.run_flags & PIDFDSPAWN_RUN_NOFD) &&
	    f.run_size >= PIDFDSPAWN_RUN_SIZE_VER1) {
		found |= PIDFDSPAWN_FEAT_NOFD;
		if (f.run_flags & PIDFDSPAWN_RUN_PIDFD)
			found |= PIDFDSPAWN_FEAT_NOFD_PIDFD;
	}
	for (size_t i = 0; i < sizeof(key_probes) / sizeof(key_probes[0]); i++) {
		const struct key_probe *k = &key_probes[i];

		keys |= k->feature;
		if (!(f.config_cmds & (1ull << k->cmd)) ||
		    pidfdspawn_config(-1, PIDFDSPAWN_CONFIG_QUERY, k->key, NULL,
				      0) != (int)k->cmd)
			bad |= k->feature;
	}
	*mask = found | (keys & ~bad);
	return 0;
}

/*
 * pidfd_open(0, PIDFD_EMPTY) for the library's own builders.  glibc's
 * posix_spawn needs no descriptor of its own, so it works with every fd
 * below RLIMIT_NOFILE taken (glibc's tst-spawn3); the builder needs one.
 * At EMFILE, when the soft limit is below the hard one, the library lends
 * itself one more descriptor: the soft limit is raised by one for the
 * pidfd_open() and put back at once, so the caller, and the child created
 * later by the run, keep the caller's limit.  (Another thread opening a
 * file in that window could get the lent slot too.)  At the hard limit,
 * EMFILE stays: automatic mode then uses the fallback.
 */
int pfs_open_builder(void)
{
	struct rlimit old, lent;
	int fd = pidfdspawn_open_empty(0), err;

	if (fd >= 0 || errno != EMFILE)
		return fd;
	if (prlimit(0, RLIMIT_NOFILE, NULL, &old) < 0 ||
	    old.rlim_cur == RLIM_INFINITY || old.rlim_cur >= old.rlim_max)
		goto emfile;
	lent = old;
	lent.rlim_cur++;
	if (prlimit(0, RLIMIT_NOFILE, &lent, NULL) < 0)
		goto emfile;
	fd = pidfdspawn_open_empty(0);
	err = errno;
	(void)prlimit(0, RLIMIT_NOFILE, &old, NULL);
	errno = err;
	return fd;
emfile:
	errno = EMFILE;
	return -1;
}

/*
 * Run a throwaway builder with one deliberately invalid action of @type:
 * the run's errno, or -1 when no builder could be opened at all.
 */
static int try_action_type(uint32_t type)
{
	static char *const argv[] = { NULL };
	struct pidfdspawn_action action = {
		.type = type,
		.flags = ~0u,	/* no known action type accepts these flags */
	};
	struct pidfdspawn_run_args args = {
		.path = (uintptr_t)"/",
		.argv = (uintptr_t)argv,
		.nr_actions = 1,
		.actions = (uintptr_t)&action,
		.action_size = sizeof(action),
	};
	int fd, ret, err;

	fd = pfs_open_builder();
	if (fd < 0)
		return -1;	/* EINVAL: no PIDFD_EMPTY in this kernel */
	ret = pidfdspawn_run(fd, &args, sizeof(args));
	err = ret < 0 ? errno : 0;
	if (ret > 0) {
		/* Cannot happen with a valid kernel; never leave a zombie. */
		siginfo_t si;

		pfs_waitid_pidfd(fd, &si, WEXITED);
	}
	close(fd);
	return err;
}

/* 0 and *mask set, or an error number when this method cannot answer. */
static int probe_by_consuming_builders(uint32_t *mask)
{
	uint32_t found = 0;

	for (size_t i = 0; i < NR_ACTION_PROBES; i++) {
		int err = try_action_type(action_probes[i].type);

		if (err == EINVAL)
			found |= action_probes[i].feature;
		else if (err != EOPNOTSUPP)
			return err;	/* ENOSYS, EPERM (before patch 72: traced), ... */
	}
	/* The builder answered as a builder does: it exists. */
	*mask = found | PIDFDSPAWN_FEAT_BUILDER;
	return 0;
}

typedef int (*probe_method)(uint32_t *mask);

static const probe_method probe_methods[] = {
	probe_by_query,
	probe_by_consuming_builders,
};

/*
 * The cached answer: bit 31 of probed_state says it is final, the low bits
 * are the mask (PIDFDSPAWN_FEAT_COUNT < 31).  No lock: threads that find
 * no answer yet each probe (the probe's calls are idempotent: queries and
 * throwaway builders) and publish the same mask.  A lock held by a thread
 * that is inside the probe when another thread forks would stay held in
 * the child forever, and the child's first spawn would hang on it.
 */
#define PROBED_FINAL (1u << 31)
static uint32_t probed_state;

/*
 * Whether this kernel has the builder, asking only pidfd_open(): 1 yes,
 * 0 no, -1 cannot tell now (out of descriptors or memory: ask again on
 * the next call rather than remember "no builder" for good).
 */
static int builder_exists(void)
{
	int fd = pfs_open_builder();

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (errno == EMFILE || errno == ENFILE || errno == ENOMEM)
		return -1;
	return 0;	/* EINVAL: no PIDFD_EMPTY; ENOSYS: before 5.3; EPERM */
}

/* The mask, and whether it may be cached. */
static int run_probe(uint32_t *mask)
{
	int exists = builder_exists();

	*mask = 0;
	if (exists <= 0)
		return exists == 0;
	for (size_t i = 0; i < sizeof(probe_methods) / sizeof(probe_methods[0]);
	     i++)
		if (probe_methods[i](mask) == 0)
			return 1;
	*mask = 0;
	return 1;
}

PFS_API uint32_t pidfdspawn_probe(void)
{
	uint32_t state = __atomic_load_n(&probed_state, __ATOMIC_ACQUIRE), mask;
	int saved;

	if (state & PROBED_FINAL)
		return state & ~PROBED_FINAL;
	saved = errno;
	if (run_probe(&mask))
		__atomic_store_n(&probed_state, mask | PROBED_FINAL,
				 __ATOMIC_RELEASE);
	errno = saved;
	return mask;
}

static const char *const feature_names[PIDFDSPAWN_FEAT_COUNT] = {
	"builder", "dup2", "close_range", "fchdir", "open", "chdir",
	"tcsetpgrp", "sigmask", "sigdef", "pgroup", "setsid", "resetids",
	"scheduler", "cgroup", "path_search", "close", "cloexec_default",
	"nofd", "nofd_pidfd",
};

PFS_API const char *pidfdspawn_feature_name(uint32_t feature)
{
	for (int i = 0; i < PIDFDSPAWN_FEAT_COUNT; i++)
		if (feature == 1u << i)
			return feature_names[i];
	return NULL;
}

PFS_API uint32_t pidfdspawn_feature_from_name(const char *name)
{
	for (int i = 0; i < PIDFDSPAWN_FEAT_COUNT; i++)
		if (strcmp(name, feature_names[i]) == 0)
			return 1u << i;
	return 0;
}

static uint32_t action_needs(const struct pfs_action *a, uint32_t have)
{
	switch (a->tag) {
	case PFS_DO_OPEN:
		/*
		 * Any flags: the OPEN action is open(2), which ignores the
		 * low bits it does not know (glibc's tst-spawn5 passes 0666).
		 */
		return PIDFDSPAWN_FEAT_OPEN;
	case PFS_DO_CLOSE:
		/* close_range(fd, fd) does the same where CLOSE is missing. */
		return have & PIDFDSPAWN_FEAT_CLOSE ? PIDFDSPAWN_FEAT_CLOSE :
		       PIDFDSPAWN_FEAT_CLOSE_RANGE;
	case PFS_DO_CLOSEFROM:
		return PIDFDSPAWN_FEAT_CLOSE_RANGE;
	case PFS_DO_DUP2:
		return PIDFDSPAWN_FEAT_DUP2;
	case PFS_DO_CHDIR:
		return PIDFDSPAWN_FEAT_CHDIR;
	case PFS_DO_FCHDIR:
		return PIDFDSPAWN_FEAT_FCHDIR;
	case PFS_DO_TCSETPGRP:
		return PIDFDSPAWN_FEAT_TCSETPGRP;
	}
	return PIDFDSPAWN_FEAT_UNSUPPORTED;
}

static uint32_t attr_needs(const struct pfs_attr *attr)
{
	static const struct { short flag; uint32_t feature; } map[] = {
		{ POSIX_SPAWN_RESETIDS, PIDFDSPAWN_FEAT_RESETIDS },
		{ POSIX_SPAWN_SETPGROUP, PIDFDSPAWN_FEAT_PGROUP },
		{ POSIX_SPAWN_SETSIGDEF, PIDFDSPAWN_FEAT_SIGDEF },
		{ POSIX_SPAWN_SETSIGMASK, PIDFDSPAWN_FEAT_SIGMASK },
		{ POSIX_SPAWN_SETSCHEDPARAM, PIDFDSPAWN_FEAT_SCHEDULER },
		{ POSIX_SPAWN_SETSCHEDULER, PIDFDSPAWN_FEAT_SCHEDULER },
		{ POSIX_SPAWN_SETSID, PIDFDSPAWN_FEAT_SETSID },
		{ POSIX_SPAWN_SETCGROUP, PIDFDSPAWN_FEAT_CGROUP },
		{ POSIX_SPAWN_CLOEXEC_DEFAULT_NP, PIDFDSPAWN_FEAT_CLOEXEC_DEFAULT },
	};
	uint32_t needs = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (attr->flags & map[i].flag)
			needs |= map[i].feature;
	return needs;
}

int pfs_kernel_search(const struct pfs_request *req, uint32_t have)
{
	long len;

	if (!pfs_searches(req) || !(have & PIDFDSPAWN_FEAT_PATH_SEARCH))
		return 0;
	if (!req->search_path)
		return 1;
	len = pfs_kernel_search_path(req->search_path, req->file, NULL);
	return len >= 0 && len < PFS_SEARCH_PATH_MAX;
}

/*
 * Builder features a request needs.  Where the kernel cannot search PATH
 * the library searches around the builder, one run per candidate, which
 * repeats the file actions for each candidate: harmless for dup2, close
 * and fchdir, whose every run starts again from the caller's state, but
 * not for an open (O_CREAT|O_EXCL, O_TRUNC, a fifo), which therefore needs
 * the kernel's own search.  The kernel is given the PATH as glibc walks it
 * (entries of PATH_MAX bytes or more emptied or dropped, see
 * pfs_kernel_search_path); a PATH that is 64 KiB or more even so, or that
 * the kernel's search cannot walk as glibc does (a shorter entry too long
 * for the name: glibc's ENAMETOOLONG; every entry dropped), is walked by
 * the library too, or, with an open, left to the fallback.
 */
uint32_t pfs_request_needs(const struct pfs_request *req)
{
	return pfs_request_needs_with(req, pidfdspawn_probe());
}

/* The same for a kernel with the features @have (0: no builder). */
uint32_t pfs_request_needs_with(const struct pfs_request *req, uint32_t have)
{
	uint32_t needs = PIDFDSPAWN_FEAT_BUILDER | attr_needs(req->attr);

	for (int i = 0; i < req->nr_actions; i++)
		needs |= action_needs(&req->actions[i], have);
	/*
	 * glibc's old /bin/sh fallback runs in the same child, after the
	 * actions; the builder runs them again for the shell, which an open
	 * cannot take (O_EXCL, O_TRUNC, a FIFO): see run_shell().
	 */
	if (req->try_shell && (needs & PIDFDSPAWN_FEAT_OPEN))
		needs |= PIDFDSPAWN_FEAT_UNSUPPORTED;
	/* The kernel cannot fail these after the actions as glibc does. */
	if (pfs_search_fails_in_child(req))
		needs |= PIDFDSPAWN_FEAT_UNSUPPORTED;
	if (pfs_searches(req)) {
		if (pfs_kernel_search(req, have))
			needs |= PIDFDSPAWN_FEAT_PATH_SEARCH;
		else if (needs & PIDFDSPAWN_FEAT_OPEN)
			needs |= PIDFDSPAWN_FEAT_PATH_SEARCH |
				 ((have & PIDFDSPAWN_FEAT_PATH_SEARCH) ?
				  PIDFDSPAWN_FEAT_UNSUPPORTED : 0);
	}
	return needs;
}
