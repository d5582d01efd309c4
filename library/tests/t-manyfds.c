/* SPDX-License-Identifier: MIT */
/* A parent with thousands of open fds: inherited, or closed by closefrom. */
#include <sys/resource.h>

#include "tap.h"

#define NFDS 5000

int main(void)
{
	struct rlimit rl = { NFDS + 64, NFDS + 64 };
	char *argv[] = { "helper", NULL }, out[65536], buf[64];
	posix_spawn_file_actions_t fa;
	int status = -1, err, opened = 0, inherited;

	tap_plan(5);
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	while (opened < NFDS && open("/dev/null", O_RDONLY) >= 0)
		opened++;
	ok(opened == NFDS, "the parent holds %d extra fds", opened);

	err = spawn_capture(helper_path(), 0, NULL, NULL, argv, environ, out,
			    sizeof(out), &status);
	inherited = atoi(report_get(out, "nfds", buf, sizeof(buf)));
	ok(err == 0 && inherited >= NFDS + 3,
	   "without actions the child inherits them all (%s)", buf);

	capture_init(&fa);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	err = spawn_capture(helper_path(), 0, &fa, NULL, argv, environ, out,
			    sizeof(out), &status);
	ok(err == 0 && strcmp(report_get(out, "fds", buf, sizeof(buf)),
			      "0,1,2") == 0,
	   "closefrom(3) leaves the child 0, 1, 2 (%s)", buf);
	ok_backend(&fa, NULL, 0, "closefrom with thousands of fds");

	capture_init(&fa);
	posix_spawn_file_actions_addclose(&fa, NFDS);
	posix_spawn_file_actions_addclose(&fa, NFDS - 1);
	err = spawn_capture(helper_path(), 0, &fa, NULL, argv, environ, out,
			    sizeof(out), &status);
	ok(err == 0 &&
	   atoi(report_get(out, "nfds", buf, sizeof(buf))) == inherited - 2,
	   "two close actions close exactly two of them (%s)", buf);
	return tap_done();
}
