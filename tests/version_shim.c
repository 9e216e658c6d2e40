// SPDX-License-Identifier: MIT
/*
 * Preloaded by tests/version.sh: a kflush_version() that reports 9.8.7, so
 * a program that prints 9.8.7 asked the loaded library, and one that prints
 * the header's or configure's version did not.
 */
#include <stddef.h>

__attribute__((visibility("default"))) const char *kflush_version(unsigned int *major,
								  unsigned int *minor,
								  unsigned int *patch);

const char *kflush_version(unsigned int *major, unsigned int *minor, unsigned int *patch)
{
	if (major)
		*major = 9;
	if (minor)
		*minor = 8;
	if (patch)
		*patch = 7;
	return "9.8.7";
}
