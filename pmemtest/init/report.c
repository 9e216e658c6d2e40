// SPDX-License-Identifier: MIT
/* init-bench output: the seed-style table, every sample as CSV or JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "init.h"
#include "../common/cli.h"

static const struct {
	const char *name;
	bool durable;
	const char *what;
} methods[REPLAY_NR_METHODS] = {
	[REPLAY_SLOW]    = { "slow",    false, "field-by-field stores (the kernel's loop)" },
	[REPLAY_GENERIC] = { "generic", true,  "template + out-of-line memcpy_nontemporal" },
	[REPLAY_FIXED]   = { "fixed",   true,  "template + constant-size memcpy_flushcache" },
	[REPLAY_WIDE]    = { "wide",    true,  "template + vector NT stores" },
	[REPLAY_PMEM2]   = { "pmem2",   true,  "template + PMDK memcpy_fn(NT|NODRAIN)" },
	[REPLAY_MEMCPY]  = { "memcpy",  false, "template + cached memcpy, not flushed" },
	[REPLAY_ROOF]    = { "roof",    true,  "plain NT stores of the same bytes" },
};

const char *init_method_name(enum replay_method m)
{
	return (unsigned int)m < REPLAY_NR_METHODS ? methods[m].name : "?";
}

bool init_method_durable(enum replay_method m)
{
	return (unsigned int)m < REPLAY_NR_METHODS && methods[m].durable;
}

/* The seed's means (Ice Lake VM, 30 rebinds): slow, generic, fixed in ms. */
static void seed_means(const struct init_ns *ns, double *slow, double *generic, double *fixed)
{
	if (ns->devdax) {
		*slow = 273.31; *generic = 153.55; *fixed = 119.04;
	} else {
		*slow = 244.28; *generic = 150.83; *fixed = 96.79;
	}
}

static const char *verdict_word(enum init_verdict v)
{
	return v == INIT_PASSED ? "yes" : v == INIT_FAILED ? "NO" : "-";
}

/* Every method runs the same rounds; a mismatch stops them all early. */
static unsigned int runs_of(const struct init_result *r)
{
	for (int m = 0; m < REPLAY_NR_METHODS; m++)
		if (r[m].run)
			return r[m].runs;
	return 0;
}

static double ratio(const struct init_result *r, enum replay_method ref, enum replay_method m)
{
	if (!r[ref].run || !r[m].run || r[m].s.median <= 0)
		return 0;
	return r[ref].s.median / r[m].s.median;
}

static void put_ratio(double v, int width)
{
	if (v > 0)
		printf(" %*.2f", width, v);
	else
		printf(" %*s", width, "-");
}

void init_report_table(const struct init_ns *ns, const struct init_opts *o, struct init_result *r)
{
	char b1[32], b2[32];
	double ss, sg, sf;

	printf("\n%s: %s, map=%s, %s, align %s, struct page %u B\n", ns->name,
	       ns->devdax ? "devdax" : "fsdax", ns->altmap ? "dev" : "mem",
	       cli_fmt_bytes(ns->size, b1, sizeof(b1)), cli_fmt_bytes(ns->align, b2, sizeof(b2)), ns->sp);
	printf("  %" PRIu64 " struct pages initialised per run (pfns %#" PRIx64 "-%#" PRIx64 "%s), %s written\n",
	       ns->pfns_init, ns->rp.start_pfn, ns->rp.end_pfn - 1,
	       ns->rp.ppc > 1 ? (ns->vmemmap_opt ? ", compound, vmemmap-optimised" : ", compound")
			      : "",
	       cli_fmt_bytes(ns->written, b1, sizeof(b1)));
	printf("  memmap: %s\n", ns->storage);
	if (ns->data_only)
		printf("  %s is the data area: all its pfns are initialised, as the kernel does;%s\n",
		       ns->name, ns->altmap ? " its altmap lies before the device" : "");
	if (o->variant)
		printf("  generic calls the %s variant of memcpy_flushcache (--variant)\n", o->variant);
	printf("  average of %u rebinds%s, %u thread%s, %s time; ratios from medians (x slow = slow/method)\n",
	       runs_of(r), runs_of(r) < o->repeat ? " (stopped by a verification failure)" : "",
	       o->threads, o->threads == 1 ? "" : "s", o->cpu_clock ? "CPU" : "wall");
	printf("  %-8s %-4s %9s %9s %8s %9s %7s %7s %9s %7s %7s %8s\n", "method", "nt", "mean ms",
	       "median", "stddev", "min ms", "GB/s", "x slow", "x generic", "x pmem2", "of roof",
	       "verified");
	for (int m = 0; m < REPLAY_NR_METHODS; m++) {
		const struct stats_summary *s = &r[m].s;

		if (!r[m].run)
			continue;
		printf("  %-8s %-4s %9.2f %9.2f %8.2f %9.2f %7.2f", methods[m].name,
		       methods[m].durable ? "yes" : "no", s->mean, s->median, s->stddev, s->min,
		       s->median > 0 ? (double)ns->written / (s->median * 1e6) : 0);
		put_ratio(ratio(r, REPLAY_SLOW, (enum replay_method)m), 7);
		put_ratio(ratio(r, REPLAY_GENERIC, (enum replay_method)m), 9);
		put_ratio(ratio(r, REPLAY_PMEM2, (enum replay_method)m), 7);
		put_ratio(ratio(r, REPLAY_ROOF, (enum replay_method)m), 7);
		printf(" %8s\n", verdict_word(r[m].verdict));
	}
	seed_means(ns, &ss, &sg, &sf);
	printf("  seed (%s, Ice Lake VM, means): slow/fixed %.2f  generic/fixed %.2f\n",
	       ns->devdax ? "dax_pmem" : "nd_pmem", ss / sf, sg / sf);
	if (r[REPLAY_FIXED].run && r[REPLAY_FIXED].s.mean > 0 && (r[REPLAY_SLOW].run || r[REPLAY_GENERIC].run)) {
		printf("  here (means):                       ");
		if (r[REPLAY_SLOW].run)
			printf(" slow/fixed %.2f ", r[REPLAY_SLOW].s.mean / r[REPLAY_FIXED].s.mean);
		if (r[REPLAY_GENERIC].run)
			printf(" generic/fixed %.2f", r[REPLAY_GENERIC].s.mean / r[REPLAY_FIXED].s.mean);
		printf("\n");
	}
}

void init_report_csv_header(void)
{
	printf("namespace,mode,map,size,align,struct_page,threads,clock,method,nt,rep,ms,gbps,verified\n");
}

void init_report_csv(const struct init_ns *ns, const struct init_opts *o, struct init_result *r)
{
	for (int m = 0; m < REPLAY_NR_METHODS; m++) {
		if (!r[m].run)
			continue;
		/* verified: 1 or 0 from the check, empty for the unchecked roof. */
		const char *v = r[m].verdict == INIT_PASSED ? "1" : r[m].verdict == INIT_FAILED ? "0" : "";

		for (unsigned int i = 0; i < r[m].runs; i++)
			printf("%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%u,%u,%s,%s,%d,%u,%.4f,%.3f,%s\n", ns->name,
			       ns->devdax ? "devdax" : "fsdax", ns->altmap ? "dev" : "mem", ns->size,
			       ns->align, ns->sp, o->threads, o->cpu_clock ? "cpu" : "wall", methods[m].name, methods[m].durable, i,
			       r[m].samples[i], (double)ns->written / (r[m].samples[i] * 1e6), v);
	}
}

static json_object *json_doc;

static json_object *jdouble(double v)
{
	return json_object_new_double(v);
}

/* A ratio against a method that did not run is null, not 0. */
static json_object *jratio(double v)
{
	return v > 0 ? json_object_new_double(v) : NULL;
}

/* A method's verdict: true or false from the check, null when not checked. */
static json_object *jverdict(enum init_verdict v)
{
	return v == INIT_NOT_CHECKED ? NULL : json_object_new_boolean(v == INIT_PASSED);
}

void init_report_json_ns(const struct init_ns *ns, struct init_result *r)
{
	json_object *j = json_object_new_object(), *ms = json_object_new_array();
	bool verified = true;

	if (!json_doc) {
		json_doc = json_object_new_object();
		json_object_object_add(json_doc, "command", json_object_new_string("init-bench"));
		json_object_object_add(json_doc, "namespaces", json_object_new_array());
	}
	json_object_object_add(j, "name", json_object_new_string(ns->name));
	json_object_object_add(j, "mode", json_object_new_string(ns->devdax ? "devdax" : "fsdax"));
	json_object_object_add(j, "map", json_object_new_string(ns->altmap ? "dev" : "mem"));
	json_object_object_add(j, "size", json_object_new_int64((int64_t)ns->size));
	json_object_object_add(j, "align", json_object_new_int64((int64_t)ns->align));
	json_object_object_add(j, "struct_page", json_object_new_int((int)ns->sp));
	json_object_object_add(j, "compound_pfns", json_object_new_int((int)ns->rp.ppc));
	json_object_object_add(j, "compound_initialised", json_object_new_int((int)ns->rp.compound_nr));
	json_object_object_add(j, "pfns_initialised", json_object_new_int64((int64_t)ns->pfns_init));
	json_object_object_add(j, "bytes_written", json_object_new_int64((int64_t)ns->written));
	json_object_object_add(j, "memmap_bytes", json_object_new_int64((int64_t)ns->memmap_bytes));
	json_object_object_add(j, "storage", json_object_new_string(ns->storage));
	/* Where the array was written and what kind of memory that is. */
	json_object_object_add(j, "memmap_on_target", json_object_new_boolean(ns->on_target));
	json_object_object_add(j, "write_first", json_object_new_int64((int64_t)ns->write_lo));
	json_object_object_add(j, "write_last", json_object_new_int64((int64_t)ns->write_hi - 1));
	json_object_object_add(j, "real_dax", json_object_new_boolean(ns->real_dax));
	json_object_object_add(j, "map_sync", json_object_new_boolean(ns->map_sync));
	json_object_object_add(j, "granularity", ns->gran ? json_object_new_string(ns->gran) : NULL);
	json_object_object_add(j, "granularity_forced", json_object_new_boolean(ns->gran_forced));
	json_object_object_add(j, "data_area", json_object_new_boolean(ns->data_only));
	/* The namespace is verified when no checked method failed. */
	for (int m = 0; m < REPLAY_NR_METHODS; m++)
		if (r[m].run && r[m].verdict == INIT_FAILED)
			verified = false;
	json_object_object_add(j, "verified", json_object_new_boolean(verified));
	for (int m = 0; m < REPLAY_NR_METHODS; m++) {
		json_object *x, *sa;

		if (!r[m].run)
			continue;
		x = json_object_new_object();
		sa = json_object_new_array();
		for (unsigned int i = 0; i < r[m].runs; i++)
			json_object_array_add(sa, jdouble(r[m].samples[i]));
		json_object_object_add(x, "method", json_object_new_string(methods[m].name));
		json_object_object_add(x, "nt", json_object_new_boolean(methods[m].durable));
		json_object_object_add(x, "verified", jverdict(r[m].verdict));
		json_object_object_add(x, "samples_ms", sa);
		json_object_object_add(x, "mean_ms", jdouble(r[m].s.mean));
		json_object_object_add(x, "median_ms", jdouble(r[m].s.median));
		json_object_object_add(x, "stddev_ms", jdouble(r[m].s.stddev));
		json_object_object_add(x, "min_ms", jdouble(r[m].s.min));
		json_object_object_add(x, "max_ms", jdouble(r[m].s.max));
		json_object_object_add(x, "gbps", jdouble(r[m].s.median > 0 ?
			(double)ns->written / (r[m].s.median * 1e6) : 0));
		json_object_object_add(x, "x_slow", jratio(ratio(r, REPLAY_SLOW, (enum replay_method)m)));
		json_object_object_add(x, "x_generic", jratio(ratio(r, REPLAY_GENERIC, (enum replay_method)m)));
		json_object_object_add(x, "x_pmem2", jratio(ratio(r, REPLAY_PMEM2, (enum replay_method)m)));
		json_object_object_add(x, "of_roof", jratio(ratio(r, REPLAY_ROOF, (enum replay_method)m)));
		json_object_array_add(ms, x);
	}
	json_object_object_add(j, "methods", ms);
	json_object_array_add(json_object_object_get(json_doc, "namespaces"), j);
}

void init_report_json_end(const struct init_opts *o)
{
	json_object *seed = json_object_new_object();

	if (!json_doc)
		return;
	json_object_object_add(json_doc, "repeat", json_object_new_int((int)o->repeat));
	json_object_object_add(json_doc, "threads", json_object_new_int((int)o->threads));
	json_object_object_add(json_doc, "generic_variant",
			       o->variant ? json_object_new_string(o->variant) : NULL);
	json_object_object_add(json_doc, "clock", json_object_new_string(o->cpu_clock ? "cpu" : "wall"));
	json_object_object_add(seed, "nd_pmem_slow_over_fixed", jdouble(244.28 / 96.79));
	json_object_object_add(seed, "nd_pmem_generic_over_fixed", jdouble(150.83 / 96.79));
	json_object_object_add(seed, "dax_pmem_slow_over_fixed", jdouble(273.31 / 119.04));
	json_object_object_add(seed, "dax_pmem_generic_over_fixed", jdouble(153.55 / 119.04));
	json_object_object_add(json_doc, "seed_reference", seed);
	printf("%s\n", json_object_to_json_string_ext(json_doc, JSON_C_TO_STRING_PRETTY));
	json_object_put(json_doc);
	json_doc = NULL;
}
