/* SPDX-License-Identifier: MIT */
/*
 * The ptrace driver of the persistence tracer. A forked child stops itself
 * once; for each traced call the parent points the child's registers at the
 * function (System V arguments, a return address pushed on a fresh frame)
 * and single-steps it until it returns there, handing every instruction's
 * memory effect, in order, to a sink. So exactly the call's own
 * instructions are seen, none of the caller's. Memory the call works on
 * must be MAP_SHARED and mapped before tt_start(), so the parent reads the
 * result without copying it out of the child. Linked into Criterion
 * programs only: it gives them their main(), for tt_no_tracer()'s exit 77.
 */
#ifndef KFLUSH_TRACE_TRACER_H
#define KFLUSH_TRACE_TRACER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "decode.h"

struct tt_tracer {
	pid_t pid;
	struct user_regs_struct base;	/* the child at its stop */
	uint64_t entry_rsp;		/* rsp at each traced call's first instruction */
	size_t steps;			/* instructions stepped, all calls */
};

/* Receives each instruction's effect; in is the decoded instruction. */
typedef void (*tt_sink)(void *ctx, const struct td_insn *in, const struct td_effect *e);

/*
 * Fork the tracee. Returns 0; 1 when tracing is not possible here (valgrind,
 * ptrace refused), with the reason in why; -1 on any other error.
 */
int tt_start(struct tt_tracer *t, char *why, size_t whylen);

/*
 * What a Criterion test does when tt_start() returned 1, why being its
 * reason and unobserved what went unproved: fails, unless
 * KFLUSH_TEST_ALLOW_NO_TRACE=1, when it skips with a message starting
 * TT_NO_TRACE and the program (this file's main()) exits 77, automake's
 * SKIP. Under valgrind it skips, and the status stays 0. Does not return.
 */
#define TT_NO_TRACE "no tracer: "
void tt_no_tracer(const char *why, const char *unobserved);

/*
 * Call fn(a0, a1, a2) in the child, single-stepping every instruction until
 * it returns. Returns 0, or -1 (with err) if the call faulted, ran away,
 * an instruction's address could not be computed, or it returned without
 * the callee-saved registers (rbx, rbp, r12-r15) it was called with or with
 * the direction flag set; an undecodable or unmodelled instruction goes to
 * the sink as TD_UNKNOWN.
 */
int tt_call(struct tt_tracer *t, const void *fn, uint64_t a0, uint64_t a1, uint64_t a2,
	    tt_sink sink, void *ctx, char *err, size_t errlen);

/* The stack the traced calls use, [*lo, *hi): stores there are not the destination's. */
void tt_stack(const struct tt_tracer *t, uint64_t *lo, uint64_t *hi);

void tt_stop(struct tt_tracer *t);

/*
 * The usual start of a traced test: map len bytes MAP_SHARED before the
 * fork (so the child's stores land where the parent reads them), then
 * tt_start(). Returns as tt_start(); on 0 *arena is the mapping, otherwise
 * nothing stays mapped. tt_stop_arena() undoes both.
 */
int tt_start_arena(struct tt_tracer *t, unsigned char **arena, size_t len, char *why,
		   size_t whylen);
void tt_stop_arena(struct tt_tracer *t, unsigned char *arena, size_t len);

#endif /* KFLUSH_TRACE_TRACER_H */
