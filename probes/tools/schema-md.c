/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * schema-md: the results contract (ipibench/counters.h) as Markdown
 * tables.  With no argument it prints them; with --update FILE it puts them
 * between FILE's marker lines (IPB_MD_BEGIN, IPB_MD_END), written
 * atomically, the prose around them left as it is.  `make schema-doc` runs
 * it on docs/results-schema.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipibench/counters_md.h"
#include "lib/safeio.h"

int main(int argc, char **argv)
{
	char err[512], *doc = NULL, *gen = NULL;
	size_t len = 0, glen = 0;
	const char *b, *e;
	FILE *m;

	if (argc == 1) {
		ipb_contract_md(stdout);
		return fflush(stdout) ? 1 : 0;
	}
	if (argc != 3 || strcmp(argv[1], "--update")) {
		fprintf(stderr, "usage: schema-md [--update FILE]\n");
		return 2;
	}
	if (sio_read_file(argv[2], 1 << 20, &doc, &len, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	b = strstr(doc, IPB_MD_BEGIN);
	e = b ? strstr(b, IPB_MD_END) : NULL;
	if (!b || !e || (b > doc && b[-1] != '\n') || e[strlen(IPB_MD_END)] != '\n') {
		fprintf(stderr, "%s: no line %s followed by a line %s\n", argv[2], IPB_MD_BEGIN,
			IPB_MD_END);
		free(doc);
		return 1;
	}
	m = open_memstream(&gen, &glen);
	if (!m)
		return 1;
	fwrite(doc, 1, (size_t)(b - doc), m);
	ipb_contract_md(m);
	fputs(e + strlen(IPB_MD_END) + 1, m);
	if (fclose(m)) {
		fprintf(stderr, "%s: out of memory\n", argv[2]);
		free(doc);
		free(gen);
		return 1;
	}
	if (sio_write_file(argv[2], gen, glen, 0644, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		free(doc);
		free(gen);
		return 1;
	}
	free(doc);
	free(gen);
	return 0;
}
