// SPDX-License-Identifier: MIT
/*
 * The registry of implementations and the one-time binding.
 *
 * The exported entry points are GNU ifuncs: the first resolver the dynamic
 * linker runs detects the CPU, reads KFLUSH_HWCAPS (cpu.c: from the
 * process's initial environment, libc's environ being still unset then)
 * and binds every operation; each resolver returns its operation's bound
 * variant. tools/callbench measured the choices side by side (AMD EPYC
 * family 0x19, 64 B flush-copies, thread CPU time, medians of 21 rounds):
 * PLT + wrapper + jump through a slot 5.4-5.7 ns per call, ifunc 5.2, an
 * exported pointer called directly 5.1, inline 3.1. An exported pointer
 * would be a data symbol in the ABI and a copy relocation in every
 * program; ifunc keeps plain functions.
 *
 * The slots stay: writeback_range() and copy_safe's entry jump through
 * them. They start at the baseline variant, so there is no "initialised
 * yet?" test on any call path; unknown KFLUSH_HWCAPS names are reported by
 * the constructor, once libc can print.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static const struct {
	const char *name;
	const struct kflush_impl_list *list;
} ops[KFLUSH_NR_OPS] = {
	[KFLUSH_OP_MEMCPY_FLUSHCACHE]       = { "memcpy_flushcache", &kflush_memcpy_flushcache_list },
	[KFLUSH_OP_MEMSET_FLUSHCACHE]       = { "memset_flushcache", &kflush_memset_flushcache_list },
	[KFLUSH_OP_FLUSH]                   = { "flush", &kflush_flush_list },
	[KFLUSH_OP_MEMCPY]                  = { "memcpy", &kflush_memcpy_list },
	[KFLUSH_OP_COPY_SAFE]               = { "copy_safe", &kflush_copy_safe_list },
	[KFLUSH_OP_CLEAR_PAGE]              = { "clear_page", &kflush_clear_page_list },
	[KFLUSH_OP_CLEAR_PAGES]             = { "clear_pages", &kflush_clear_pages_list },
	[KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE]  = { "clear_pages_flushcache", &kflush_clear_pages_flushcache_list },
	[KFLUSH_OP_COPY_PAGE]               = { "copy_page", &kflush_copy_page_list },
	[KFLUSH_OP_MEMMOVE_FLUSHCACHE]      = { "memmove_flushcache", &kflush_memmove_flushcache_list },
};

kflush_fn kflush_slot[KFLUSH_NR_OPS] = {
	[KFLUSH_OP_MEMCPY_FLUSHCACHE]       = (kflush_fn)memcpy_flushcache_kernel,
	[KFLUSH_OP_MEMSET_FLUSHCACHE]       = (kflush_fn)memset_flushcache_kernel,
	[KFLUSH_OP_FLUSH]                   = (kflush_fn)flush_clflush,
	[KFLUSH_OP_MEMCPY]                  = (kflush_fn)memcpy_orig,
	[KFLUSH_OP_COPY_SAFE]               = (kflush_fn)copy_safe_movsq,
	[KFLUSH_OP_CLEAR_PAGE]              = (kflush_fn)clear_page_mov,
	[KFLUSH_OP_CLEAR_PAGES]             = (kflush_fn)clear_pages_mov,
	[KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE]  = (kflush_fn)clear_pages_flushcache_movnti,
	[KFLUSH_OP_COPY_PAGE]               = (kflush_fn)copy_page_mov,
	[KFLUSH_OP_MEMMOVE_FLUSHCACHE]      = (kflush_fn)memmove_flushcache_kernel,
};

static int bound_idx[KFLUSH_NR_OPS];

static const struct kflush_impl *impl_of(enum kflush_op op, unsigned int idx)
{
	if ((unsigned int)op >= KFLUSH_NR_OPS || idx >= ops[op].list->nr)
		return NULL;
	return &ops[op].list->impls[idx];
}

static KFLUSH_EARLY int usable(const struct kflush_impl *impl)
{
	return (impl->requires & ~kflush_cpu_mask) == 0;
}

/*
 * This CPU's per-CPU rules first, in their order, unless KFLUSH_CPU_RULES
 * is 0: the first whose variant the CPU (after KFLUSH_HWCAPS) can run.
 * Then the first usable variant in precedence order that is neither
 * never-bound nor rule-only.
 */
static KFLUSH_EARLY void bind(enum kflush_op op)
{
	const struct kflush_impl_list *list = ops[op].list;

	for (unsigned int nth = 0; !kflush_cpu_rules_off; nth++) {
		/* Even when not bound, "tuned" runs with this CPU's switch-over. */
		const char *rule = kflush_cpu_rule(kflush_cpu_vendor, kflush_cpu_eax1, op, nth,
						   op == KFLUSH_OP_MEMCPY ? &kflush_memcpy_tuning : NULL);

		if (!rule)
			break;
		for (unsigned int i = 0; i < list->nr; i++) {
			const struct kflush_impl *impl = &list->impls[i];

			if (kflush_same(impl->name, rule) && usable(impl)) {
				bound_idx[op] = (int)i;
				kflush_slot[op] = impl->fn;
				return;
			}
		}
	}
	for (unsigned int i = 0; i < list->nr; i++) {
		const struct kflush_impl *impl = &list->impls[i];

		if (usable(impl) && !(impl->flags & (KFLUSH_IMPL_NO_BIND | KFLUSH_IMPL_RULE_ONLY))) {
			bound_idx[op] = (int)i;
			kflush_slot[op] = impl->fn;
			return;
		}
	}
	/* Unreachable while every baseline requires nothing; stay on it. */
	bound_idx[op] = (int)list->nr - 1;
	kflush_slot[op] = list->impls[list->nr - 1].fn;
}

/*
 * No lock: the dynamic linker runs resolvers and constructors one at a
 * time, under its own lock for dlopen().
 */
static int bound_all;

static KFLUSH_EARLY void bind_all(void)
{
	if (bound_all)
		return;
	kflush_cpu_detect();
	for (unsigned int op = 0; op < KFLUSH_NR_OPS; op++)
		bind((enum kflush_op)op);
	bound_all = 1;
}

KFLUSH_EARLY kflush_fn kflush_resolve(enum kflush_op op)
{
	bind_all();
	return kflush_slot[op];
}

/* Normally every resolver has run by now; this only reports. */
__attribute__((constructor)) static void kflush_init(void)
{
	bind_all();
	kflush_cpu_report();
}

/**
 * kflush_op_name() - name of a dispatched operation
 * @op: the operation
 *
 * Return: a static string such as "memcpy_flushcache", or NULL if @op is
 * out of range.
 */
KFLUSH_API const char *kflush_op_name(enum kflush_op op)
{
	if ((unsigned int)op >= KFLUSH_NR_OPS)
		return NULL;
	return ops[op].name;
}

/**
 * kflush_variant_count() - how many variants an operation has
 * @op: the operation
 *
 * Return: the number of registered variants (usable or not), or -EINVAL.
 */
KFLUSH_API int kflush_variant_count(enum kflush_op op)
{
	if ((unsigned int)op >= KFLUSH_NR_OPS)
		return -EINVAL;
	return (int)ops[op].list->nr;
}

/**
 * kflush_variant_name() - name of one variant
 * @op: the operation
 * @idx: the variant, 0 .. kflush_variant_count() - 1
 *
 * Return: a static string, or NULL if @op or @idx is out of range.
 */
KFLUSH_API const char *kflush_variant_name(enum kflush_op op, unsigned int idx)
{
	const struct kflush_impl *impl = impl_of(op, idx);

	return impl ? impl->name : NULL;
}

/**
 * kflush_variant_requires() - CPU features a variant needs
 * @op: the operation
 * @idx: the variant
 *
 * Return: KFLUSH_CPU_* bits, all of which must be present; 0 if out of range.
 */
KFLUSH_API uint64_t kflush_variant_requires(enum kflush_op op, unsigned int idx)
{
	const struct kflush_impl *impl = impl_of(op, idx);

	return impl ? impl->requires : 0;
}

/**
 * kflush_variant_usable() - whether this CPU, after masking, runs a variant
 * @op: the operation
 * @idx: the variant
 *
 * Return: 1 if usable, 0 if not, -EINVAL if out of range.
 */
KFLUSH_API int kflush_variant_usable(enum kflush_op op, unsigned int idx)
{
	const struct kflush_impl *impl = impl_of(op, idx);

	if (!impl)
		return -EINVAL;
	return usable(impl);
}

/**
 * kflush_variant_bindable() - whether dispatch may bind a variant
 * @op: the operation
 * @idx: the variant
 *
 * Some variants are registered only so benchmarks can race them (the
 * large-tail alternatives of copy_safe): dispatch never binds those.
 * A rule-only variant counts as bindable: a per-CPU rule may bind it,
 * though the precedence walk passes over it.
 *
 * Return: 1 if dispatch may bind the variant, 0 if it never does,
 * -EINVAL if out of range.
 */
KFLUSH_API int kflush_variant_bindable(enum kflush_op op, unsigned int idx)
{
	const struct kflush_impl *impl = impl_of(op, idx);

	if (!impl)
		return -EINVAL;
	return !(impl->flags & KFLUSH_IMPL_NO_BIND);
}

/**
 * kflush_variant_bound() - which variant the operation's entry point calls
 * @op: the operation
 *
 * Return: the bound variant's index, or -EINVAL.
 */
KFLUSH_API int kflush_variant_bound(enum kflush_op op)
{
	if ((unsigned int)op >= KFLUSH_NR_OPS)
		return -EINVAL;
	return bound_idx[op];
}

/**
 * kflush_variant_find() - look a variant up by name
 * @op: the operation
 * @name: the variant's name
 *
 * Return: its index, -ENOENT if there is no such variant, -EINVAL for a
 * bad @op or a NULL @name.
 */
KFLUSH_API int kflush_variant_find(enum kflush_op op, const char *name)
{
	if ((unsigned int)op >= KFLUSH_NR_OPS || !name)
		return -EINVAL;
	for (unsigned int i = 0; i < ops[op].list->nr; i++)
		if (strcmp(ops[op].list->impls[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

/**
 * kflush_variant_fn() - the entry point of one variant, for direct calls
 * @op: the operation
 * @idx: the variant
 *
 * Cast the result to the operation's type (kflush_memcpy_flushcache_fn and
 * so on). Tests and benchmarks use this to run variants side by side.
 *
 * Return: the function, or NULL with errno set to EINVAL (out of range) or
 * ENOTSUP (this CPU, after KFLUSH_HWCAPS masking, cannot run it).
 */
KFLUSH_API kflush_fn kflush_variant_fn(enum kflush_op op, unsigned int idx)
{
	const struct kflush_impl *impl = impl_of(op, idx);

	if (!impl) {
		errno = EINVAL;
		return NULL;
	}
	if (!usable(impl)) {
		errno = ENOTSUP;
		return NULL;
	}
	return impl->fn;
}
