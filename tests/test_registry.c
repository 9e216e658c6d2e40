// SPDX-License-Identifier: MIT
/*
 * The registry calls' error contract, as kflush_variant_count(3) states it:
 * out-of-range operations and indexes give -EINVAL, NULL or 0, a name that
 * is not there -ENOENT, kflush_variant_fn() NULL with errno EINVAL or
 * ENOTSUP, and the calls that return an int leave errno alone. The values
 * are written here from the page, not taken from the library. Which
 * variants are usable, bindable and bound is test_dispatch's.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kflush.h>

#include "testutil.h"

/* Out of range: one past the last, the enum's -1, and far beyond. */
static const unsigned int bad_ops[] = { KFLUSH_NR_OPS, KFLUSH_NR_OPS + 1, UINT_MAX, 1u << 31 };
#define NR_BAD_OPS (sizeof(bad_ops) / sizeof(bad_ops[0]))

/* A value no call sets: it must still be there after an int-returning call. */
#define ERRNO_SENTINEL 12345

Test(registry, bad_op)
{
	for (size_t i = 0; i < NR_BAD_OPS; i++) {
		enum kflush_op op = (enum kflush_op)bad_ops[i];

		errno = ERRNO_SENTINEL;
		cr_expect_null(kflush_op_name(op), "op %u", bad_ops[i]);
		cr_expect_eq(kflush_variant_count(op), -EINVAL, "op %u", bad_ops[i]);
		cr_expect_null(kflush_variant_name(op, 0), "op %u", bad_ops[i]);
		cr_expect_eq(kflush_variant_requires(op, 0), 0, "op %u", bad_ops[i]);
		cr_expect_eq(kflush_variant_usable(op, 0), -EINVAL, "op %u", bad_ops[i]);
		cr_expect_eq(kflush_variant_bindable(op, 0), -EINVAL, "op %u", bad_ops[i]);
		cr_expect_eq(kflush_variant_bound(op), -EINVAL, "op %u", bad_ops[i]);
		cr_expect_eq(kflush_variant_find(op, "kernel"), -EINVAL, "op %u", bad_ops[i]);
		cr_expect_eq(errno, ERRNO_SENTINEL, "op %u: an int-returning call set errno",
			     bad_ops[i]);
		errno = 0;
		cr_expect_null(kflush_variant_fn(op, 0), "op %u", bad_ops[i]);
		cr_expect_eq(errno, EINVAL, "op %u: errno %d", bad_ops[i], errno);
	}
}

Test(registry, bad_index)
{
	for (unsigned int op = 0; op < KFLUSH_NR_OPS; op++) {
		int n = kflush_variant_count((enum kflush_op)op);
		const unsigned int bad[] = { (unsigned int)n, (unsigned int)n + 1, UINT_MAX };

		cr_assert_gt(n, 0, "%s: %d variants", kflush_op_name((enum kflush_op)op), n);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			enum kflush_op o = (enum kflush_op)op;

			errno = ERRNO_SENTINEL;
			cr_expect_null(kflush_variant_name(o, bad[i]), "%s[%u]", kflush_op_name(o), bad[i]);
			cr_expect_eq(kflush_variant_requires(o, bad[i]), 0, "%s[%u]", kflush_op_name(o),
				     bad[i]);
			cr_expect_eq(kflush_variant_usable(o, bad[i]), -EINVAL, "%s[%u]",
				     kflush_op_name(o), bad[i]);
			cr_expect_eq(kflush_variant_bindable(o, bad[i]), -EINVAL, "%s[%u]",
				     kflush_op_name(o), bad[i]);
			cr_expect_eq(errno, ERRNO_SENTINEL, "%s[%u]: an int-returning call set errno",
				     kflush_op_name(o), bad[i]);
			errno = 0;
			cr_expect_null(kflush_variant_fn(o, bad[i]), "%s[%u]", kflush_op_name(o), bad[i]);
			cr_expect_eq(errno, EINVAL, "%s[%u]: errno %d", kflush_op_name(o), bad[i], errno);
		}
		/* The last index is in range: the baseline, which every CPU runs. */
		cr_expect_not_null(kflush_variant_name((enum kflush_op)op, (unsigned int)n - 1));
		cr_expect_not_null(kflush_variant_fn((enum kflush_op)op, (unsigned int)n - 1));
	}
}

Test(registry, find)
{
	for (unsigned int op = 0; op < KFLUSH_NR_OPS; op++) {
		enum kflush_op o = (enum kflush_op)op;
		int n = kflush_variant_count(o);

		errno = ERRNO_SENTINEL;
		cr_expect_eq(kflush_variant_find(o, NULL), -EINVAL, "%s", kflush_op_name(o));
		cr_expect_eq(kflush_variant_find(o, "no-such-variant"), -ENOENT, "%s",
			     kflush_op_name(o));
		cr_expect_eq(kflush_variant_find(o, ""), -ENOENT, "%s", kflush_op_name(o));
		for (int i = 0; i < n; i++) {
			const char *name = kflush_variant_name(o, (unsigned int)i);
			char longer[64];

			cr_assert_not_null(name);
			cr_expect_eq(kflush_variant_find(o, name), i, "%s: %s", kflush_op_name(o), name);
			/* Whole names only: a prefix finds only a variant of exactly that name. */
			if (strlen(name) > 1) {
				char prefix[64];
				int j;

				snprintf(prefix, sizeof(prefix), "%.*s", (int)strlen(name) - 1, name);
				j = kflush_variant_find(o, prefix);
				cr_expect(j >= 0 || j == -ENOENT, "%s: '%s': %d", kflush_op_name(o), prefix, j);
				if (j >= 0)
					cr_expect_str_eq(kflush_variant_name(o, (unsigned int)j), prefix,
							 "%s: '%s' found %d", kflush_op_name(o), prefix, j);
			}
			snprintf(longer, sizeof(longer), "%sx", name);
			cr_expect_eq(kflush_variant_find(o, longer), -ENOENT, "%s: %s", kflush_op_name(o),
				     longer);
		}
		cr_expect_eq(errno, ERRNO_SENTINEL, "%s: kflush_variant_find() set errno",
			     kflush_op_name(o));
	}
}

/*
 * A variant the CPU cannot run is not handed out: NULL, errno ENOTSUP. Run
 * in a fresh exec of this program with KFLUSH_HWCAPS masking avx2 (read at
 * load), where every avx2 variant is unusable on any host: the constructor
 * below checks there, before Criterion starts, and exits with the count of
 * failures, each named on stderr.
 */
#define CHILD_ENV "KFLUSH_TEST_REGISTRY_UNUSABLE"

static unsigned int check_unusable(unsigned int *unusable)
{
	unsigned int bad = 0;

	*unusable = 0;
	for (unsigned int op = 0; op < KFLUSH_NR_OPS; op++) {
		enum kflush_op o = (enum kflush_op)op;
		int n = kflush_variant_count(o);

		for (int i = 0; i < n; i++) {
			const char *name = kflush_variant_name(o, (unsigned int)i);
			int usable = kflush_variant_usable(o, (unsigned int)i);
			kflush_fn fn;

			errno = 0;
			fn = kflush_variant_fn(o, (unsigned int)i);
			if (usable == 1 && fn)
				continue;
			if (usable != 0 || fn || errno != ENOTSUP) {
				fprintf(stderr, "%s: %s: usable %d, fn %p, errno %d\n", kflush_op_name(o),
					name, usable, (void *)fn, errno);
				bad++;
			}
			(*unusable)++;
		}
	}
	/* memcpy_flushcache's avx2 needs avx2 on every CPU: at least that one. */
	if (kflush_variant_usable(KFLUSH_OP_MEMCPY_FLUSHCACHE,
				  (unsigned int)kflush_variant_find(KFLUSH_OP_MEMCPY_FLUSHCACHE,
								    "avx2")) != 0) {
		fprintf(stderr, "memcpy_flushcache: avx2 usable under the mask\n");
		bad++;
	}
	return bad;
}

__attribute__((constructor)) static void unusable_child(void)
{
	unsigned int unusable, bad;

	if (!getenv(CHILD_ENV))
		return;
	bad = check_unusable(&unusable);
	fprintf(stderr, "%u variants unusable under KFLUSH_HWCAPS=%s, %u wrong\n", unusable,
		getenv("KFLUSH_HWCAPS"), bad);
	_exit(bad || !unusable ? 1 : 0);
}

Test(registry, unusable_is_enotsup)
{
	static const char *const unset[] = { "KFLUSH_HWCAPS", NULL };
	static char self[4096], child[] = CHILD_ENV "=1", mask[] = "KFLUSH_HWCAPS=-avx2";
	char *argv[] = { self, NULL }, *set[] = { child, mask, NULL }, err[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int status;

	cr_assert(sl > 0);
	self[sl] = '\0';
	status = tu_spawn(self, argv, unset, set, NULL, 0, err, sizeof(err));
	cr_assert(status != -1, "cannot run %s", self);
	cr_log_info("%s", err);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "under KFLUSH_HWCAPS=-avx2: %s",
		  err);
}
