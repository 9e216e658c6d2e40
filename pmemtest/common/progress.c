// SPDX-License-Identifier: MIT
/* The progress line and Ctrl-C: see progress.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "progress.h"
#include "stats.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

void progress_catch_interrupt(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

bool progress_interrupted(void)
{
	return interrupted != 0;
}

static int columns(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	if (env && atoi(env) > 0)
		return atoi(env);
	return 80;
}

static void draw(struct progress *p, uint64_t now, bool final)
{
	char tail[64], eta[32] = "--:--";
	double frac = p->total ? (double)p->done / (double)p->total : 1;
	double secs = (double)(now - p->t0) / 1e9, show;
	int cols = columns(), bar, fill;

	if (frac > 1)
		frac = 1;
	/*
	 * A cell measured again adds to the total, and the fraction drops
	 * (one clear-bench run with every size measured again went 100 % to
	 * 83 %): hold what was shown. 100 % waits for progress_end(), since
	 * the work planned can run out before the work found on the way.
	 */
	if (frac > p->shown)
		p->shown = frac;
	show = final ? 1 : p->shown > 0.99 ? 0.99 : p->shown;
	/* Half a second of history before guessing, else the first sample rules. */
	if (p->done && secs >= 0.5) {
		unsigned long left = (unsigned long)(secs / frac - secs + 0.5);

		if (left >= 3600)
			snprintf(eta, sizeof(eta), "%lu:%02lu:%02lu", left / 3600,
				 left / 60 % 60, left % 60);
		else
			snprintf(eta, sizeof(eta), "%lu:%02lu", left / 60, left % 60);
	}
	snprintf(tail, sizeof(tail), " %3d%% ETA %s", (int)(show * 100), eta);
	/* One column spare: writing the last one wraps on some terminals. */
	bar = cols - 1 - (int)strlen(p->label) - (int)strlen(tail) - 3;
	if (bar > 50)
		bar = 50;
	fprintf(stderr, "\r%s", p->label);
	if (bar >= 5) {
		fill = (int)(show * bar);
		fprintf(stderr, " [%.*s%*s]", fill,
			"==================================================", bar - fill, "");
	}
	fprintf(stderr, "%s\033[K", tail);
	fflush(stderr);
	p->drawn = now;
}

void progress_begin(struct progress *p, const char *label, uint64_t total, bool quiet)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->label, sizeof(p->label), "%s", label);
	p->total = total;
	p->on = !quiet && total && isatty(STDERR_FILENO);
	p->t0 = stats_now_ns();
	if (p->on)
		draw(p, p->t0, false);
}

void progress_add(struct progress *p, uint64_t units)
{
	uint64_t now;

	p->done += units;
	if (!p->on)
		return;
	now = stats_now_ns();
	/* Ten redraws a second are plenty, and cost nothing measured. */
	if (now - p->drawn >= 100000000ull)
		draw(p, now, false);
}

void progress_more(struct progress *p, uint64_t units)
{
	p->total += units;
}

void progress_end(struct progress *p)
{
	if (p->on && p->done >= p->total)
		draw(p, stats_now_ns(), true);
	if (p->on)
		fprintf(stderr, "\r\033[K");
	p->on = false;
}
