/* SPDX-License-Identifier: MIT */
/*
 * libpidfdspawn's stand-in for glibc's support/test-driver.c: the test
 * includes it last; it provides main() from the same macros glibc's does
 * (TEST_FUNCTION, TEST_FUNCTION_ARGV, PREPARE, CMDLINE_OPTIONS,
 * CMDLINE_PROCESS, EXPECTED_STATUS, EXPECTED_SIGNAL).  See pfs-shim.h.
 */
#include <getopt.h>
#include <support/pfs-shim.h>

int main(int argc, char **argv)
{
	struct pfs_test_config config = { 0 };

#ifdef PREPARE
	config.prepare_function = (PREPARE);
#endif
#if defined(TEST_FUNCTION)
	config.test_function = TEST_FUNCTION;
#elif defined(TEST_FUNCTION_ARGV)
	config.test_function_argv = TEST_FUNCTION_ARGV;
#else
	config.test_function = do_test;
#endif
#ifdef CMDLINE_OPTIONS
	static const struct option options[] = {
		CMDLINE_OPTIONS
		{ NULL, 0, NULL, 0 }
	};
	config.options = options;
#endif
#ifdef CMDLINE_PROCESS
	config.cmdline_function = CMDLINE_PROCESS;
#endif
#ifdef EXPECTED_STATUS
	config.expected_status = (EXPECTED_STATUS);
#endif
#ifdef EXPECTED_SIGNAL
	config.expected_signal = (EXPECTED_SIGNAL);
#endif
	return pfs_test_main(argc, argv, &config);
}
