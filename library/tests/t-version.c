/* SPDX-License-Identifier: MIT */
/*
 * The version interface (issue 35, item 7): the header's
 * PIDFDSPAWN_VERSION_MAJOR/MINOR/PATCH and _STRING agree with each other
 * and with the running library's pidfdspawn_version(); and
 * PIDFDSPAWN_VERSION_AT_LEAST(major, minor, patch) compares the three
 * numbers in order, in #if as in C.  Linked statically, the library here
 * is the header's own release, so the two must be equal.
 */
#include "tap.h"

/* In the preprocessor, where a program would use it. */
#if !PIDFDSPAWN_VERSION_AT_LEAST(0, 2, 0)
#error "PIDFDSPAWN_VERSION_AT_LEAST(0, 2, 0) is false in #if"
#endif
#if PIDFDSPAWN_VERSION_AT_LEAST(PIDFDSPAWN_VERSION_MAJOR + 1, 0, 0)
#error "PIDFDSPAWN_VERSION_AT_LEAST(next major, 0, 0) is true in #if"
#endif

#define MAJ PIDFDSPAWN_VERSION_MAJOR
#define MIN PIDFDSPAWN_VERSION_MINOR
#define PAT PIDFDSPAWN_VERSION_PATCH

int main(void)
{
	const char *v = pidfdspawn_version();
	char built[64];
	int bad = 0;

	tap_plan(6);
	snprintf(built, sizeof(built), "%d.%d.%d", MAJ, MIN, PAT);
	ok(strcmp(built, PIDFDSPAWN_VERSION_STRING) == 0,
	   "PIDFDSPAWN_VERSION_STRING \"%s\" is MAJOR.MINOR.PATCH (%s)",
	   PIDFDSPAWN_VERSION_STRING, built);
	ok(v && strcmp(v, PIDFDSPAWN_VERSION_STRING) == 0,
	   "pidfdspawn_version() is the header's version (\"%s\")", v ? v : "NULL");
	ok(v == pidfdspawn_version(),
	   "pidfdspawn_version() returns the same static string every call");
	ok(MAJ > 0 || MIN >= 2,
	   "this release is 0.2 or later (%d.%d.%d): the version macros came with 0.2.0",
	   MAJ, MIN, PAT);

	/* Equal, each lower and each higher component, in order. */
	bad |= !PIDFDSPAWN_VERSION_AT_LEAST(MAJ, MIN, PAT) << 0;
	bad |= PIDFDSPAWN_VERSION_AT_LEAST(MAJ, MIN, PAT + 1) << 1;
	bad |= PIDFDSPAWN_VERSION_AT_LEAST(MAJ, MIN + 1, 0) << 2;
	bad |= PIDFDSPAWN_VERSION_AT_LEAST(MAJ + 1, 0, 0) << 3;
	bad |= !PIDFDSPAWN_VERSION_AT_LEAST(0, 0, 0) << 4;
	bad |= !PIDFDSPAWN_VERSION_AT_LEAST(0, 1, 99) << 5;	/* minor wins */
	bad |= !PIDFDSPAWN_VERSION_AT_LEAST(0, 2, 0) << 6;
	if (MAJ > 0 || MIN > 0)	/* a lower minor with any patch */
		bad |= !PIDFDSPAWN_VERSION_AT_LEAST(MAJ, MIN - 1, 1000) << 7;
	ok(!bad, "PIDFDSPAWN_VERSION_AT_LEAST compares major, then minor, then "
	   "patch (failed checks: 0x%x)", bad);

	/* Its arguments are evaluated as expressions (parenthesized). */
	ok(PIDFDSPAWN_VERSION_AT_LEAST(1 - 1, 1 + 1, 0) &&
	   !PIDFDSPAWN_VERSION_AT_LEAST(0 ? 0 : 9, 0, 0),
	   "PIDFDSPAWN_VERSION_AT_LEAST takes expressions as arguments");
	return tap_done();
}
