// SPDX-License-Identifier: MIT
/*
 * kflush_version(): the version this library was built as, for programs
 * that need to know what they run on rather than what they were compiled
 * against (<kflush.h>'s KFLUSH_VERSION_* macros).
 */
#include "internal.h"

#define KFLUSH_STR_(x) #x
#define KFLUSH_STR(x) KFLUSH_STR_(x)

static const char kflush_version_string[] =
	KFLUSH_STR(KFLUSH_VERSION_MAJOR) "." KFLUSH_STR(KFLUSH_VERSION_MINOR) "."
	KFLUSH_STR(KFLUSH_VERSION_PATCH);

/**
 * kflush_version() - the version of the loaded library
 * @major: if not NULL, receives the major version
 * @minor: if not NULL, receives the minor version
 * @patch: if not NULL, receives the patch level
 *
 * The numbers are the library's own, fixed when it was built; compare
 * them with KFLUSH_VERSION_MAJOR/MINOR/PATCH to detect a program running on
 * an older library than its header.
 *
 * Return: "MAJOR.MINOR.PATCH", a static string.
 */
KFLUSH_API const char *kflush_version(unsigned int *major, unsigned int *minor,
				      unsigned int *patch)
{
	if (major)
		*major = KFLUSH_VERSION_MAJOR;
	if (minor)
		*minor = KFLUSH_VERSION_MINOR;
	if (patch)
		*patch = KFLUSH_VERSION_PATCH;
	return kflush_version_string;
}
