/* SPDX-License-Identifier: MIT */
/*
 * libpidfdspawn's stand-in for gnulib's findprog.h: find_in_path(NAME)
 * is the first executable regular file NAME in $PATH, or NAME itself when
 * it holds a slash or nothing is found.
 */
#ifndef PFS_GNULIB_FINDPROG_H
#define PFS_GNULIB_FINDPROG_H
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
static inline const char *find_in_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(name, '/') || !path)
		return name;
	for (p = path; ; p = end + 1) {
		struct stat st;
		size_t len;
		char *cand;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		cand = malloc(len + strlen(name) + 3);
		if (!cand)
			return name;
		if (len == 0)
			strcpy(cand, ".");
		else
			memcpy(cand, p, len), cand[len] = '\0';
		strcat(strcat(cand, "/"), name);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!*end)
			return name;
	}
}
#endif
