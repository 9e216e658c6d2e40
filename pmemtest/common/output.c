// SPDX-License-Identifier: MIT
/* The envelope of every --json document: see output.h and pmemtest(1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "kflush.h"
#include "output.h"

void output_set(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

json_object *output_str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

void output_cpuinfo(const char *key, char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t klen = strlen(key);
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, klen) || !colon)
			continue;
		/* "model" must not match "model name": only tabs may follow the key. */
		if (strspn(line + klen, "\t ") != (size_t)(colon - line) - klen)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* The identity the per-CPU rules key on, for the JSON and the text alike. */
struct cpu_id {
	char vendor[32], name[128];
	unsigned int family, model, stepping;
};

static unsigned int cpuinfo_num(const char *key)
{
	char buf[16];

	output_cpuinfo(key, buf, sizeof(buf));
	return (unsigned int)atoi(buf);
}

static void cpu_id_read(struct cpu_id *c)
{
	output_cpuinfo("vendor_id", c->vendor, sizeof(c->vendor));
	output_cpuinfo("model name", c->name, sizeof(c->name));
	c->family = cpuinfo_num("cpu family");
	c->model = cpuinfo_num("model");
	c->stepping = cpuinfo_num("stepping");
}

void output_cpu_text(char *buf, size_t len)
{
	struct cpu_id c;

	cpu_id_read(&c);
	snprintf(buf, len, "%s (%s family 0x%x model 0x%02x stepping %u)", c.name, c.vendor,
		 c.family, c.model, c.stepping);
}

/*
 * The same as a CSV field: a CSV carries no notes, so each row names its
 * CPU, and a comma or quote in the model name would split the row.
 */
void output_cpu_csv(char *buf, size_t len)
{
	output_cpu_text(buf, len);
	for (char *p = buf; *p; p++)
		if (*p == ',' || *p == '"')
			*p = ';';
}

static json_object *features(uint64_t mask)
{
	json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES; i++)
		if (mask & (1ULL << i))
			json_object_array_add(a, json_object_new_string(
				kflush_cpu_feature_name(1ULL << i)));
	return a;
}

static json_object *cpu(void)
{
	json_object *c = json_object_new_object();
	struct cpu_id id;

	cpu_id_read(&id);
	output_set(c, "vendor", output_str(id.vendor));
	output_set(c, "model_name", output_str(id.name));
	output_set(c, "family", json_object_new_int((int)id.family));
	output_set(c, "model", json_object_new_int((int)id.model));
	output_set(c, "stepping", json_object_new_int((int)id.stepping));
	output_set(c, "cpus_online", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	/* What libkflush uses (after KFLUSH_HWCAPS), and what the CPU has. */
	output_set(c, "features", features(kflush_cpu_features()));
	output_set(c, "features_detected", features(kflush_cpu_features_raw()));
	output_set(c, "cpu_rules", json_object_new_boolean(!output_cpu_rules_off()));
	return c;
}

int output_cpu_rules_off(void)
{
	const char *v = getenv("KFLUSH_CPU_RULES");

	/* libkflush(7), ENVIRONMENT: exactly "0" turns them off. */
	return v && strcmp(v, "0") == 0;
}

json_object *output_doc_new(const char *command, const char *clock, int dram,
			    json_object *options)
{
	json_object *d = json_object_new_object(), *k = json_object_new_object();
	char host[256] = "unknown", ts[32];
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = 0;
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	output_set(d, "schema_version", json_object_new_int(OUTPUT_SCHEMA_VERSION));
	output_set(d, "command", output_str(command));
	output_set(d, "pmemtest_version", output_str(PACKAGE_VERSION));
	/* The library loaded, which need not be the one pmemtest was built with. */
	output_set(d, "libkflush_version", output_str(kflush_version(NULL, NULL, NULL)));
	output_set(d, "timestamp", output_str(ts));
	output_set(d, "host", output_str(host));
	output_set(d, "cpu", cpu());
	if (uname(&u) == 0) {
		output_set(k, "sysname", output_str(u.sysname));
		output_set(k, "release", output_str(u.release));
		output_set(k, "version", output_str(u.version));
		output_set(k, "machine", output_str(u.machine));
	}
	output_set(d, "kernel", k);
	output_set(d, "clock", output_str(clock));
	output_set(d, "dram_stands_in_for_pmem", dram < 0 ? NULL : json_object_new_boolean(dram));
	output_set(d, "options", options ? options : json_object_new_object());
	output_set(d, "notes", json_object_new_array());
	return d;
}

void output_doc_print(json_object *doc)
{
	printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}
