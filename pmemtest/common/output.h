/* SPDX-License-Identifier: MIT */
/*
 * The one output schema every command's --json shares (pmemtest(1),
 * OUTPUT): the envelope says what ran where, then "results" with every
 * sample. Commands add their own keys; the envelope's are the same for all.
 */
#ifndef PMEMTEST_OUTPUT_H
#define PMEMTEST_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* Bumped when a key changes meaning or goes away; new keys do not bump it. */
#define OUTPUT_SCHEMA_VERSION 1

/*
 * A new document: schema_version, command, pmemtest_version,
 * libkflush_version, timestamp, host, cpu, kernel, clock ("wall" or
 * "cpu"; NULL: null), dram_stands_in_for_pmem (@dram 1 or 0; -1, for a
 * command that measures nothing: null) and options (taken over; NULL: {}).
 * and an empty "notes"; "notes" and "results" are the command's to fill.
 */
json_object *output_doc_new(const char *command, const char *clock, int dram,
			    json_object *options);
/* Print @doc on stdout (one document, pretty) and free it. */
void output_doc_print(json_object *doc);

/* One field of /proc/cpuinfo's first processor ("model name"), or "unknown". */
void output_cpuinfo(const char *key, char *buf, size_t len);

/*
 * The CPU as text: model name, vendor, family, model and stepping in the
 * form the per-CPU rules use (libkflush(7)): "Intel(R) Xeon(R) Processor
 * (GenuineIntel family 0x6 model 0xa7 stepping 1)". A hypervisor may give
 * every guest the same model name, so the name alone does not say which
 * rule applies.
 */
void output_cpu_text(char *buf, size_t len);
/* output_cpu_text() with no comma or quote, for a CSV row. */
void output_cpu_csv(char *buf, size_t len);

/* Whether libkflush runs without its per-CPU rules (KFLUSH_CPU_RULES=0). */
int output_cpu_rules_off(void);

/* Shorthands for building documents: NULL stays JSON null. */
void output_set(json_object *o, const char *key, json_object *v);
json_object *output_str(const char *s);

#endif /* PMEMTEST_OUTPUT_H */
