/* SPDX-License-Identifier: MIT */
/*
 * libpidfdspawn's stand-in for glibc's legacy test-skeleton.c: tests that
 * include it define TEST_FUNCTION as a call expression (and may define
 * PREPARE as a call taking argc, argv); this turns them into the driver's
 * function names and includes the driver.  See support/pfs-shim.h.
 */
#include <assert.h>
#include <getopt.h>
#include <malloc.h>
#include <paths.h>
#include <stdint.h>
#include <sys/param.h>
#include <sys/resource.h>
#include <time.h>
#include <support/pfs-shim.h>

static int pfs_legacy_test(int argc __attribute__((unused)),
			   char **argv __attribute__((unused)))
{
#ifdef TEST_FUNCTION
	return TEST_FUNCTION;
#undef TEST_FUNCTION
#else
	return do_test(argc, argv);
#endif
}
#define TEST_FUNCTION_ARGV pfs_legacy_test

#ifdef PREPARE
static void pfs_legacy_prepare(int argc __attribute__((unused)),
			       char **argv __attribute__((unused)))
{
	PREPARE(argc, argv);
}
#undef PREPARE
#define PREPARE pfs_legacy_prepare
#endif

#ifdef CMDLINE_PROCESS
static void pfs_legacy_cmdline(int c)
{
	switch (c) {
	CMDLINE_PROCESS
	}
}
#undef CMDLINE_PROCESS
#define CMDLINE_PROCESS pfs_legacy_cmdline
#endif

#include <support/test-driver.c>
