// SPDX-License-Identifier: MIT
/*
 * Dispatch under KFLUSH_HWCAPS masks. The mask is read once, when the
 * library loads, so each case re-executes this program with the variable
 * set and TEST_DISPATCH_DUMP=1: a constructor then prints what the library
 * detected and bound and exits before Criterion starts. The parent checks
 * that the masked features are gone from kflush_cpu_features() but still
 * in kflush_cpu_features_raw(), that every operation bound the first
 * variant (registry order) the masked CPU can run, that across the masks
 * every flush-family variant gets bound at least once, and that unknown
 * entries are reported once on stderr and otherwise ignored.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kflush.h"

#define DUMP_ENV "TEST_DISPATCH_DUMP"
#define OUT_MAX 8192

__attribute__((constructor)) static void dump_and_exit(void)
{
	if (!getenv(DUMP_ENV))
		return;
	printf("raw %" PRIx64 "\nfeatures %" PRIx64 "\n", kflush_cpu_features_raw(),
	       kflush_cpu_features());
	for (int op = 0; op < KFLUSH_NR_OPS; op++)
		printf("bound %s %d\n", kflush_op_name((enum kflush_op)op),
		       kflush_variant_bound((enum kflush_op)op));
	fflush(stdout);
	_exit(ferror(stdout) ? 1 : 0);
}

struct child {
	uint64_t raw, features;
	int bound[KFLUSH_NR_OPS];
	char err[OUT_MAX];
};

static void read_all(int fd, char *buf, size_t max)
{
	size_t len = 0;
	ssize_t r;

	while (len < max - 1 && (r = read(fd, buf + len, max - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	close(fd);
}

/* Re-run this program with KFLUSH_HWCAPS=mask (NULL: unset) and parse its dump. */
static void spawn_dump(const char *mask, struct child *c)
{
	static char self[4096];
	char out[OUT_MAX], *envp[512], *hw = NULL, *line, *save;
	static char dump_var[] = DUMP_ENV "=1";
	char *argv[] = { self, NULL };
	int po[2], pe[2], status, nenv = 0, nbound = 0;
	posix_spawn_file_actions_t fa;
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	pid_t pid;

	cr_assert(sl > 0);
	self[sl] = '\0';
	for (char **e = environ; *e && nenv < 508; e++)
		if (strncmp(*e, "KFLUSH_HWCAPS=", 14) != 0)
			envp[nenv++] = *e;
	envp[nenv++] = dump_var;
	if (mask) {
		cr_assert(asprintf(&hw, "KFLUSH_HWCAPS=%s", mask) > 0);
		envp[nenv++] = hw;
	}
	envp[nenv] = NULL;

	cr_assert(pipe(po) == 0 && pipe(pe) == 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawn_file_actions_addclose(&fa, po[0]);
	posix_spawn_file_actions_addclose(&fa, pe[0]);
	cr_assert(posix_spawn(&pid, self, &fa, NULL, argv, envp) == 0);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	/* The child writes a few hundred bytes: no pipe can fill up. */
	read_all(po[0], out, sizeof(out));
	read_all(pe[0], c->err, sizeof(c->err));
	cr_assert(waitpid(pid, &status, 0) == pid);
	free(hw);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child with KFLUSH_HWCAPS=%s failed; stderr: %s", mask ? mask : "(unset)", c->err);

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		int idx;

		if (sscanf(line, "raw %" SCNx64, &c->raw) == 1 ||
		    sscanf(line, "features %" SCNx64, &c->features) == 1)
			continue;
		cr_assert(sscanf(line, "bound %63s %d", name, &idx) == 2, "bad line: %s", line);
		cr_assert_lt(nbound, KFLUSH_NR_OPS);
		cr_assert_str_eq(name, kflush_op_name((enum kflush_op)nbound));
		c->bound[nbound++] = idx;
	}
	cr_assert_eq(nbound, KFLUSH_NR_OPS, "child printed %d ops", nbound);
}

/* The KFLUSH_CPU_* bits a mask names ("-a,-b"); unknown entries add nothing. */
static uint64_t mask_bits(const char *mask)
{
	uint64_t bits = 0;

	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES; i++) {
		const char *name = kflush_cpu_feature_name(1ULL << i);
		size_t len = strlen(name);

		for (const char *p = mask; (p = strchr(p, '-')); p++)
			if ((p == mask || p[-1] == ',') && strncmp(p + 1, name, len) == 0 &&
			    (p[1 + len] == ',' || p[1 + len] == '\0'))
				bits |= 1ULL << i;
	}
	return bits;
}

/*
 * The variant a CPU with `features` should bind: the first bindable one
 * whose needs it meets (copy_safe registers benchmark-only variants that
 * dispatch must skip).
 */
static int first_usable(enum kflush_op op, uint64_t features)
{
	for (int i = 0; i < kflush_variant_count(op); i++)
		if ((kflush_variant_requires(op, (unsigned int)i) & ~features) == 0 &&
		    kflush_variant_bindable(op, (unsigned int)i) == 1)
			return i;
	return -1;
}

static void check_binding(const char *mask, const struct child *c)
{
	uint64_t off = mask_bits(mask);

	cr_assert_eq(c->raw, kflush_cpu_features_raw(),
		     "KFLUSH_HWCAPS=%s: raw features %#" PRIx64 " differ from unmasked %#" PRIx64,
		     mask, c->raw, kflush_cpu_features_raw());
	cr_assert_eq(c->features, c->raw & ~off,
		     "KFLUSH_HWCAPS=%s: features %#" PRIx64 ", expected raw %#" PRIx64
		     " less %#" PRIx64, mask, c->features, c->raw, off);
	for (int op = 0; op < KFLUSH_NR_OPS; op++) {
		int b = c->bound[op], want = first_usable((enum kflush_op)op, c->features);
		const char *opn = kflush_op_name((enum kflush_op)op);

		cr_assert(b >= 0 && b < kflush_variant_count((enum kflush_op)op),
			  "KFLUSH_HWCAPS=%s: %s bound out of range (%d)", mask, opn, b);
		cr_assert_eq(kflush_variant_requires((enum kflush_op)op, (unsigned int)b) &
			     ~c->features, 0,
			     "KFLUSH_HWCAPS=%s: %s bound %s, which needs a masked-off feature",
			     mask, opn, kflush_variant_name((enum kflush_op)op, (unsigned int)b));
		cr_assert_eq(b, want, "KFLUSH_HWCAPS=%s: %s bound %s, expected %s", mask, opn,
			     kflush_variant_name((enum kflush_op)op, (unsigned int)b),
			     kflush_variant_name((enum kflush_op)op, (unsigned int)want));
	}
}

struct mask_case {
	char mask[64];
};

static const char *const masks[] = {
	"", "-avx512f", "-avx512f,-avx2", "-avx512f,-avx2,-movdir64b", "-clwb",
	"-clwb,-clflushopt",
	/* Only the kernel-port baselines, which require no feature bit, are left. */
	"-avx512f,-avx2,-movdir64b,-sse2,-clwb,-clflushopt,-clflush",
};
#define NR_MASKS (sizeof(masks) / sizeof(masks[0]))

ParameterizedTestParameters(dispatch, mask)
{
	static struct mask_case cases[NR_MASKS];

	for (size_t i = 0; i < NR_MASKS; i++)
		snprintf(cases[i].mask, sizeof(cases[i].mask), "%s", masks[i]);
	return cr_make_param_array(struct mask_case, cases, NR_MASKS);
}

ParameterizedTest(struct mask_case *m, dispatch, mask)
{
	struct child c;

	spawn_dump(m->mask, &c);
	cr_assert_str_empty(c.err, "KFLUSH_HWCAPS=%s printed: %s", m->mask, c.err);
	check_binding(m->mask, &c);
	/* What a masked bit hides must really exist to be hidden. */
	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES; i++) {
		uint64_t bit = 1ULL << i;

		if (mask_bits(m->mask) & bit & c.raw)
			cr_assert(!(c.features & bit) && (c.raw & bit));
	}
}

/* With no variable at all, nothing is masked and nothing is printed. */
Test(dispatch, unset)
{
	struct child c;

	spawn_dump(NULL, &c);
	cr_assert_str_empty(c.err);
	cr_assert_eq(c.features, c.raw);
	check_binding("", &c);
}

/* This process's own view matches the rule too (whatever mask it runs under). */
Test(dispatch, self)
{
	for (int op = 0; op < KFLUSH_NR_OPS; op++) {
		int b = kflush_variant_bound((enum kflush_op)op);

		cr_assert_eq(b, first_usable((enum kflush_op)op, kflush_cpu_features()));
		cr_assert_eq(kflush_variant_usable((enum kflush_op)op, (unsigned int)b), 1);
		cr_assert_not_null(kflush_variant_fn((enum kflush_op)op, (unsigned int)b));
	}
	cr_assert_eq(kflush_cpu_features() & ~kflush_cpu_features_raw(), 0);
	cr_assert(kflush_cpu_features_raw() & KFLUSH_CPU_SSE2);
	cr_assert(kflush_cpu_features_raw() & KFLUSH_CPU_CLFLUSH);
}

/* Each flush-family variant a masked CPU would prefer is bound under some mask. */
Test(dispatch, every_family_bound)
{
	static const enum kflush_op ops[] = {
		KFLUSH_OP_MEMCPY_FLUSHCACHE, KFLUSH_OP_MEMSET_FLUSHCACHE, KFLUSH_OP_FLUSH,
	};
	unsigned int seen[3] = { 0 };
	uint64_t raw = kflush_cpu_features_raw();

	for (size_t m = 0; m < NR_MASKS; m++) {
		struct child c;

		spawn_dump(masks[m], &c);
		for (size_t o = 0; o < 3; o++)
			seen[o] |= 1U << c.bound[ops[o]];
	}
	for (size_t o = 0; o < 3; o++) {
		for (int i = 0; i < kflush_variant_count(ops[o]); i++) {
			uint64_t req = kflush_variant_requires(ops[o], (unsigned int)i);
			int shadowed = 0;

			/* An earlier variant needing no more than this one always wins. */
			for (int j = 0; j < i; j++)
				if ((kflush_variant_requires(ops[o], (unsigned int)j) & ~req) == 0)
					shadowed = 1;
			if ((req & ~raw) || shadowed)
				continue;
			cr_expect(seen[o] & (1U << i), "%s variant %s was never bound",
				  kflush_op_name(ops[o]), kflush_variant_name(ops[o], (unsigned int)i));
		}
	}
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

Test(dispatch, unknown_names)
{
	struct child c, ref;

	spawn_dump("", &ref);
	spawn_dump("-bogus,foo", &c);
	cr_assert_eq(count(c.err, "'-bogus'"), 1, "stderr: %s", c.err);
	cr_assert_eq(count(c.err, "'foo'"), 1, "stderr: %s", c.err);
	cr_assert_eq(count(c.err, "\n"), 2, "stderr: %s", c.err);
	cr_assert_eq(c.features, c.raw);
	for (int op = 0; op < KFLUSH_NR_OPS; op++)
		cr_assert_eq(c.bound[op], ref.bound[op]);

	/* Known entries next to unknown ones still apply; empty entries are no error. */
	spawn_dump("-bogus,-clwb,,clwb", &c);
	cr_assert_eq(count(c.err, "'-bogus'"), 1, "stderr: %s", c.err);
	cr_assert_eq(count(c.err, "'clwb'"), 1, "stderr: %s", c.err);
	cr_assert_eq(count(c.err, "\n"), 2, "stderr: %s", c.err);
	cr_assert_eq(c.features, c.raw & ~KFLUSH_CPU_CLWB);
	check_binding("-clwb", &c);
}
