/* SPDX-License-Identifier: MIT */
/*
 * addopen flags are passed on as open(2) takes them (issue 20): bits that
 * open(2) does not know are ignored by it and by the kernel builder's
 * OPEN action, so a request with them needs nothing more than OPEN, and a
 * forced builder serves it instead of refusing it with ENOTSUP.  glibc's
 * tst-spawn5 opens with the flags 0666 (its flags and mode swapped).
 */
#include "tap.h"

static char *helper_argv[] = { "helper", NULL };

static const struct {
	int oflag;
	const char *name;
} cases[] = {
	{ 0666, "0666 (tst-spawn5's flags: O_RDWR|O_EXCL|O_NOCTTY and three unknown bits)" },
	{ O_RDONLY | 0x40000000, "O_RDONLY|0x40000000" },
	{ O_RDONLY | 0x10000000, "O_RDONLY|0x10000000" },
	{ O_WRONLY | 04, "O_WRONLY|04 (an unknown low bit)" },
	{ (int)(O_RDONLY | 0x80000000u), "O_RDONLY|0x80000000 (a negative int)" },
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

int main(void)
{
	uint32_t have = expected_builder_features();
	int builder = (have & (PIDFDSPAWN_FEAT_BUILDER | PIDFDSPAWN_FEAT_OPEN)) ==
		      (PIDFDSPAWN_FEAT_BUILDER | PIDFDSPAWN_FEAT_OPEN);

	tap_plan(3 * NCASES);
	for (int i = 0; i < NCASES; i++) {
		posix_spawn_file_actions_t fa;
		uint32_t needs;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 60, "/dev/null",
						 cases[i].oflag, 0);
		needs = pidfdspawn_request_features(&fa, NULL, 0);
		ok(needs == (PIDFDSPAWN_FEAT_BUILDER | PIDFDSPAWN_FEAT_OPEN),
		   "addopen %s needs the builder's OPEN and nothing else (0x%x)",
		   cases[i].name, needs);
		posix_spawn_file_actions_destroy(&fa);
	}

	/*
	 * With the builder forced where the kernel has one (the guest): served
	 * by it, as open(2) would serve it.  Without one (the host): the same
	 * request in auto mode, served by the fallback.
	 */
	if (builder)
		setenv("PIDFDSPAWN_BACKEND", "builder", 1);
	for (int i = 0; i < NCASES; i++) {
		enum pidfdspawn_backend want = builder ? PIDFDSPAWN_BACKEND_BUILDER :
					       PIDFDSPAWN_BACKEND_FALLBACK;
		posix_spawn_file_actions_t fa;
		char out[8192];
		int status = -1, err;

		capture_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 60, "/dev/null",
						 cases[i].oflag, 0);
		err = spawn_capture(helper_path(), 0, &fa, NULL, helper_argv,
				    environ, out, sizeof(out), &status);
		ok(err == 0 && status == 0 && has_fd(out, 60),
		   "%s: addopen %s opens fd 60 (error %d, status %d)",
		   builder ? "forced builder" : "auto", cases[i].name, err,
		   status);
		ok(pidfdspawn_last_backend() == want,
		   "%s: addopen %s was served by the %s (%s)",
		   builder ? "forced builder" : "auto", cases[i].name,
		   pidfdspawn_backend_name(want),
		   pidfdspawn_backend_name(pidfdspawn_last_backend()));
	}
	unsetenv("PIDFDSPAWN_BACKEND");
	return tap_done();
}
