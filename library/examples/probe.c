/* SPDX-License-Identifier: MIT */
/*
 * What the running kernel's pidfd spawn builder can do: the library's
 * probe, by feature name, on one line ("builder dup2 close_range ...").
 * Without a builder the line is empty and stderr says why; the posix_spawn
 * family then spawns through the library's fallback.
 */
#include <stdio.h>

#include <pidfdspawn.h>

int main(void)
{
	uint32_t features = pidfdspawn_probe();
	const char *sep = "";

	for (int i = 0; i < PIDFDSPAWN_FEAT_COUNT; i++) {
		if (!(features & (1u << i)))
			continue;
		printf("%s%s", sep, pidfdspawn_feature_name(1u << i));
		sep = " ";
	}
	printf("\n");
	if (!(features & PIDFDSPAWN_FEAT_BUILDER))
		fprintf(stderr, "probe: this kernel has no pidfd spawn builder: "
			"every spawn uses the library's fallback\n");
	return 0;
}
