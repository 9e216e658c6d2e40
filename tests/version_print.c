// SPDX-License-Identifier: MIT
/*
 * For tests/version.sh: prints what kflush_version() returns and its three
 * numbers, then the header's, so the script can compare them with the
 * version configure and libkflush.pc were made with.
 */
#include <stdio.h>

#include <kflush.h>

int main(void)
{
	unsigned int major = ~0u, minor = ~0u, patch = ~0u;
	const char *v = kflush_version(&major, &minor, &patch);

	printf("%s %u.%u.%u %d.%d.%d\n", v, major, minor, patch,
	       KFLUSH_VERSION_MAJOR, KFLUSH_VERSION_MINOR, KFLUSH_VERSION_PATCH);
	return 0;
}
