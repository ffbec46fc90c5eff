/* SPDX-License-Identifier: MIT */
/*
 * The results contract (ipibench/counters.h) as Markdown: one table per
 * object, every row of the three tables.  docs/results-schema.md holds it
 * between the two marker lines below; `make schema-doc` puts it there
 * (probes/tools/schema-md.c) and probes/tests/test_counters.c fails when
 * the committed document differs from what this prints.
 */
#ifndef IPIBENCH_COUNTERS_MD_H
#define IPIBENCH_COUNTERS_MD_H

#include <stdio.h>

#include "ipibench/counters.h"

#define IPB_MD_BEGIN "<!-- BEGIN results-contract: printed by `make schema-doc` from " \
	"include/ipibench/counters.h; edit the rows there, not here -->"
#define IPB_MD_END "<!-- END results-contract -->"

static inline const char *ipb_kind_md(enum ipb_counter_kind k)
{
	switch (k) {
	case IPB_COUNT: return "integer";
	case IPB_PER_CPU: return "integers per CPU";
	case IPB_MEAN: return "number";
	case IPB_FLAG: return "true/false";
	case IPB_NAME: return "name";
	case IPB_TEXT: return "text";
	case IPB_SAMPLES: return "numbers";
	case IPB_OBJECT: return "object";
	case IPB_LIST: return "array of objects";
	}
	return "?";
}

static inline const char *ipb_per_md(enum ipb_per p)
{
	return p == IPB_PER_OP ? "yes" : p == IPB_DIV_OPS ? "/ operations" : "";
}

/* S with '|' escaped (a table cell). */
static inline void ipb_md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* Every row at AT: one table, under the object's JSON path. */
static inline void ipb_md_table(FILE *out, enum ipb_at at)
{
	fprintf(out, "\n`%s`:\n\n| key | kind | unit | per operation | report | what |\n"
		"|---|---|---|---|---|---|\n", ipb_at_path(at));
	for (int i = 0; ipb_contract_row(i); i++) {
		const struct ipb_counter_field *f = ipb_contract_row(i);

		if (f->at != at)
			continue;
		fprintf(out, "| `%s` | %s%s%s | ", f->key, ipb_kind_md(f->kind),
			f->flags & IPB_NUL ? " or null" : "", f->flags & IPB_REQ ? ", required" : "");
		ipb_md_cell(out, f->unit);
		fprintf(out, " | %s | ", ipb_per_md(f->per));
		ipb_md_cell(out, f->header);
		fputs(" | ", out);
		ipb_md_cell(out, f->doc);
		fputs(" |\n", out);
	}
}

/* The whole generated part, the marker lines included. */
static inline void ipb_contract_md(FILE *out)
{
	fprintf(out, "%s\n\nSchema version %d.  Kinds: an integer or a number is from 0 to 2^53, "
		"integers per CPU an array of at most 65,536 of them, a name follows the name rule "
		"(`[A-Za-z0-9][A-Za-z0-9._-]*`, no `..`), a text is at most 4,096 bytes; "
		"\"or null\": null is read as absent; a field not marked required may be absent.  "
		"\"per operation\": yes when the figure is per operation (per call), "
		"\"/ operations\" when the report shows the total over `counters.operations`; "
		"\"report\": the report's header or section that shows it.\n",
		IPB_MD_BEGIN, IPB_RESULTS_SCHEMA_VERSION);
	for (int at = 0; at < IPB_NR_AT; at++)
		ipb_md_table(out, (enum ipb_at)at);
	fprintf(out, "\n%s\n", IPB_MD_END);
}

#endif
