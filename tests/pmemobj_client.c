// SPDX-License-Identifier: MIT
/*
 * A libpmemobj program of our own, run under the libpmem drop-in by
 * tests/test_pmem_pmemobj.sh: transactions that allocate, snapshot, free,
 * abort and memmove, an optional SIGKILL in the middle of one, and a check
 * of the pool's invariants after reopening.
 *
 *   pmemobj_client run POOL FIRST COUNT [CRASH_AT]
 *   pmemobj_client verify POOL
 *   pmemobj_client bench POOL SECONDS
 *
 * bench (for tools/fio-bench.sh, not a test) runs the same transactions for
 * SECONDS, keeping the list at 1000 nodes, and prints "tx/s N".
 *
 * The invariants, kept by every transaction: root.count is the length of
 * the list, root.sum the sum of its nodes' sums, each node's sum the hash
 * of its data, root.buf_hash the hash of root.buf. A torn transaction
 * breaks at least one of them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpmemobj.h>

#define LAYOUT "kflush-test"
#define POOL_SIZE (16u << 20)
#define BUF 1024

struct node {
	PMEMoid next;
	uint64_t len, sum;
	unsigned char data[];
};

struct root {
	PMEMoid head;
	uint64_t count, sum, buf_hash, done;
	unsigned char buf[BUF];
};

/* Out of line: inlined next to a transaction's setjmp, its state could be clobbered. */
__attribute__((noinline)) static uint64_t hash(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void die(const char *what)
{
	fprintf(stderr, "pmemobj_client: %s: %s\n", what, pmemobj_errormsg());
	exit(1);
}

/* Above this many nodes every transaction frees one (bench: a bounded pool). */
static uint64_t keep = UINT64_MAX;

/* One transaction: a new node, an overlapping memmove in root.buf, every 5th a free. */
static void one_tx(PMEMobjpool *pop, PMEMoid root_oid, uint64_t i, uint64_t crash_at)
{
	struct root *r = pmemobj_direct(root_oid);
	uint64_t x = i * 2654435761u + 1;
	size_t len = 16 + rnd(&x) % 2000;
	unsigned char tmp[2048];

	for (size_t k = 0; k < len; k++)
		tmp[k] = (unsigned char)rnd(&x);
	TX_BEGIN(pop) {
		PMEMoid n;
		struct node *p;
		size_t from = rnd(&x) % 400, to = rnd(&x) % 400, mv = 1 + rnd(&x) % 600;

		pmemobj_tx_add_range(root_oid, 0, sizeof(*r));
		n = pmemobj_tx_zalloc(sizeof(*p) + len, 1);
		p = pmemobj_direct(n);
		pmemobj_memcpy(pop, p->data, tmp, len, PMEMOBJ_F_MEM_NONTEMPORAL);
		p->len = len;
		p->sum = hash(tmp, len);
		p->next = r->head;
		pmemobj_persist(pop, p, sizeof(*p));
		r->head = n;
		r->count++;
		r->sum += p->sum;
		pmemobj_memmove(pop, r->buf + to, r->buf + from, mv, PMEMOBJ_F_MEM_NODRAIN);
		pmemobj_memset(pop, r->buf + (i % BUF), (int)i, 1, 0);
		r->buf_hash = hash(r->buf, BUF);
		if (i % 5 == 4 || r->count > keep) {
			/* Unlink and free the second node: its predecessor is the new one. */
			PMEMoid victim = p->next;
			struct node *v = pmemobj_direct(victim);

			if (v) {
				p->next = v->next;
				r->count--;
				r->sum -= v->sum;
				pmemobj_tx_free(victim);
			}
		}
		r->done = i + 1;
		if (i == crash_at)
			raise(SIGKILL);
	} TX_ONABORT {
		die("transaction aborted");
	} TX_END
}

/* A transaction that changes the root and aborts must leave it as it was. */
static void aborted_tx(PMEMobjpool *pop, PMEMoid root_oid)
{
	struct root *r = pmemobj_direct(root_oid);
	uint64_t before = hash(r, sizeof(*r));

	TX_BEGIN(pop) {
		pmemobj_tx_add_range(root_oid, 0, sizeof(*r));
		r->count += 1000;
		memset(r->buf, 0x5a, BUF);
		pmemobj_tx_abort(ECANCELED);
	} TX_END
	if (hash(r, sizeof(*r)) != before) {
		fprintf(stderr, "pmemobj_client: an aborted transaction changed the root\n");
		exit(1);
	}
}

static int verify(PMEMobjpool *pop, struct root *r)
{
	uint64_t count = 0, sum = 0;

	for (struct node *p = pmemobj_direct(r->head); p; p = pmemobj_direct(p->next)) {
		if (p->len > 2048 || hash(p->data, p->len) != p->sum) {
			fprintf(stderr, "pmemobj_client: node %llu: data does not match its sum\n",
				(unsigned long long)count);
			return 1;
		}
		count++;
		sum += p->sum;
	}
	if (count != r->count || sum != r->sum || hash(r->buf, BUF) != r->buf_hash) {
		fprintf(stderr, "pmemobj_client: inconsistent: %llu nodes (root says %llu), "
			"sums %s, buffer hash %s\n", (unsigned long long)count,
			(unsigned long long)r->count, sum == r->sum ? "agree" : "differ",
			hash(r->buf, BUF) == r->buf_hash ? "agrees" : "differs");
		return 1;
	}
	printf("consistent: %llu transactions done, %llu objects\n",
	       (unsigned long long)r->done, (unsigned long long)count);
	(void)pop;
	return 0;
}

int main(int argc, char **argv)
{
	PMEMobjpool *pop;
	PMEMoid root;
	int rc = 0;

	int bench = argc == 4 && strcmp(argv[1], "bench") == 0;

	if (!bench && (argc < 3 || (strcmp(argv[1], "run") == 0 && argc < 5) ||
		       (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "verify") != 0))) {
		fprintf(stderr, "usage: %s run POOL FIRST COUNT [CRASH_AT] | verify POOL | "
			"bench POOL SECONDS\n", argv[0]);
		return 2;
	}
	pop = pmemobj_open(argv[2], LAYOUT);
	if (!pop && (bench || strcmp(argv[1], "run") == 0) && errno == ENOENT)
		pop = pmemobj_create(argv[2], LAYOUT, POOL_SIZE, 0600);
	if (!pop)
		die(argv[2]);
	root = pmemobj_root(pop, sizeof(struct root));
	if (OID_IS_NULL(root))
		die("pmemobj_root");
	if (bench) {
		double secs = strtod(argv[3], NULL), t0, t;
		struct timespec ts;
		uint64_t i = 0;

		keep = 1000;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t0 = (double)ts.tv_sec + ts.tv_nsec / 1e9;
		do {
			one_tx(pop, root, i++, UINT64_MAX);
			clock_gettime(CLOCK_MONOTONIC, &ts);
			t = (double)ts.tv_sec + ts.tv_nsec / 1e9;
		} while (t - t0 < secs);
		printf("tx/s %.0f\n", (double)i / (t - t0));
	} else if (strcmp(argv[1], "run") == 0) {
		uint64_t first = strtoull(argv[3], NULL, 0), n = strtoull(argv[4], NULL, 0);
		uint64_t crash = argc > 5 ? strtoull(argv[5], NULL, 0) : UINT64_MAX;

		for (uint64_t i = first; i < first + n; i++) {
			one_tx(pop, root, i, crash);
			if (i % 7 == 0)
				aborted_tx(pop, root);
		}
	}
	rc = verify(pop, pmemobj_direct(root));
	pmemobj_close(pop);
	return rc;
}
