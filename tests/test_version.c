// SPDX-License-Identifier: MIT
/*
 * kflush_version() against the header it was built with and configure's
 * PACKAGE_VERSION (config.h). Both come from include/kflush.h's three
 * lines, read independently (the C preprocessor here, sed in configure
 * and tests/version.sh), so a version bumped in one place only fails.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <kflush.h>

Test(version, numbers_match_the_header)
{
	unsigned int major = ~0u, minor = ~0u, patch = ~0u;

	kflush_version(&major, &minor, &patch);
	cr_expect_eq(major, KFLUSH_VERSION_MAJOR);
	cr_expect_eq(minor, KFLUSH_VERSION_MINOR);
	cr_expect_eq(patch, KFLUSH_VERSION_PATCH);
}

Test(version, string_is_configures_version)
{
	cr_expect_str_eq(kflush_version(NULL, NULL, NULL), PACKAGE_VERSION);
}

Test(version, string_spells_the_numbers)
{
	char want[64];

	snprintf(want, sizeof(want), "%d.%d.%d", KFLUSH_VERSION_MAJOR, KFLUSH_VERSION_MINOR,
		 KFLUSH_VERSION_PATCH);
	cr_expect_str_eq(kflush_version(NULL, NULL, NULL), want);
}

/* Each pointer may be NULL on its own; the others are still filled in. */
Test(version, null_pointers_are_skipped)
{
	unsigned int major = ~0u, minor = ~0u, patch = ~0u;

	cr_expect_str_eq(kflush_version(NULL, &minor, NULL), PACKAGE_VERSION);
	cr_expect_eq(minor, KFLUSH_VERSION_MINOR);
	kflush_version(&major, NULL, &patch);
	cr_expect_eq(major, KFLUSH_VERSION_MAJOR);
	cr_expect_eq(patch, KFLUSH_VERSION_PATCH);
}

/* The same static string every time: callers may keep the pointer. */
Test(version, string_is_static)
{
	cr_expect_eq(kflush_version(NULL, NULL, NULL), kflush_version(NULL, NULL, NULL));
}
