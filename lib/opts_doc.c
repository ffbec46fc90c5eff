/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lib/opts_doc.c: a command's manual page (roff, man(7)) or its Markdown
 * section, from the text its --help prints and its option table (opts.h
 * says the rules).  `make man` and docs/commands.md are made from these.
 */
#include "lib/opts.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *const opts_pages[] = {
	"ipibench(1)", "ipibench-run(1)", "ipibench-boot(1)", "ipibench-host(1)",
	"ipibench-trace(1)", "ipibench-report(1)", "ipibench-history(1)",
	"ipibench-agent(8)", "ipibench.ini(5)", NULL,
};

/* The tables opts_help() was given while a page's text was written. */
#define DOC_TABLES 8
static struct {
	int on;
	const struct opt *tables[DOC_TABLES];
	int n;
} doc;

int opts_fmt(const char *arg)
{
	return !strcmp(arg, "man") ? OPTS_FMT_MAN : !strcmp(arg, "md") ? OPTS_FMT_MD : -1;
}

int opts_doc_mark(FILE *f, const struct opt *opts)
{
	if (!doc.on || doc.n == DOC_TABLES)
		return 0;
	doc.tables[doc.n] = opts;
	fprintf(f, "\001O%d\n", doc.n++);
	return 1;
}

/* ---- the two formats ---------------------------------------------------- */

struct out {
	FILE *f;
	enum opts_fmt fmt;
	int nf;         /* in a block kept as it is */
	int para;       /* a paragraph has text */
	int sect;       /* 0 none yet, 1 DESCRIPTION, 2 after OPTIONS */
	int code;       /* md: inside a `code span` */
};

/* One line of text, escaped for the format. */
static void put_text(struct out *o, const char *s, size_t n)
{
	if (o->fmt == OPTS_FMT_MAN) {
		if (n && (s[0] == '.' || s[0] == '\''))
			fputs("\\&", o->f);
		for (size_t i = 0; i < n; i++) {
			char c = s[i], prev = i ? s[i - 1] : ' ';

			if (c == '\\')
				fputs("\\e", o->f);
			else if (c == '-' && !isalnum((unsigned char)prev))
				fputs("\\-", o->f);
			else
				fputc(c, o->f);
		}
		return;
	}
	if (o->nf) {
		fwrite(s, 1, n, o->f);
		return;
	}
	/* Markdown: nothing of the text may become markup but `code`. */
	size_t i = 0;

	if (n && strchr("#>+-=", s[0]))
		fputc('\\', o->f);
	while (i < n && isdigit((unsigned char)s[i]))
		fputc(s[i++], o->f);
	if (i && i < n && (s[i] == '.' || s[i] == ')'))
		fputc('\\', o->f);
	for (; i < n; i++) {
		char c = s[i];

		if (c == '`')
			o->code = !o->code;
		else if (!o->code && strchr("\\*_<[]|", c))
			fputc('\\', o->f);
		fputc(c, o->f);
	}
}

static void close_nf(struct out *o)
{
	if (!o->nf)
		return;
	fputs(o->fmt == OPTS_FMT_MAN ? ".fi\n" : "```\n", o->f);
	o->nf = 0;
}

static void end_para(struct out *o)
{
	close_nf(o);
	if (o->para && o->fmt == OPTS_FMT_MD)
		fputc('\n', o->f);
	o->para = 0;
	o->code = 0;
}

static void heading(struct out *o, int level, const char *title)
{
	end_para(o);
	if (o->fmt == OPTS_FMT_MAN) {
		fprintf(o->f, level == 1 ? ".SH \"%s\"\n" : ".SS \"%s\"\n", title);
		return;
	}
	/* Markdown: "Exit status" for EXIT STATUS. */
	fputs(level == 1 ? "### " : "#### ", o->f);
	for (const char *p = title; *p; p++)
		fputc(level == 1 && p > title ? tolower((unsigned char)*p) : *p, o->f);
	fputs("\n\n", o->f);
}

/* A line of a paragraph; INDENTED lines are kept as they are. */
static void line(struct out *o, const char *s, size_t n)
{
	int indented = n && s[0] == ' ';

	if (!indented)
		close_nf(o);
	if (!o->para && o->fmt == OPTS_FMT_MAN)
		fputs(".PP\n", o->f);
	if (indented && !o->nf) {
		fputs(o->fmt == OPTS_FMT_MAN ? ".nf\n" : "```\n", o->f);
		o->nf = 1;
	}
	put_text(o, s, n);
	fputc('\n', o->f);
	o->para = 1;
}

/* "-o, --output DIR" in the format's markup. */
static void term(struct out *o, const struct opt *opt)
{
	FILE *f = o->f;
	int man = o->fmt == OPTS_FMT_MAN;

	if (!man)
		fputs("- `", f);
	if (opt->short_name)
		fprintf(f, man ? "\\fB\\-%c\\fR" : "-%c", opt->short_name);
	if (opt->short_name && opt->long_name)
		fputs(", ", f);
	if (opt->long_name) {
		fputs(man ? "\\fB\\-\\-" : "--", f);
		for (const char *p = opt->long_name; *p; p++)
			fputs(*p == '-' && man ? "\\-" : (char[2]){ *p, 0 }, f);
		if (man)
			fputs("\\fR", f);
	}
	if (opt->argh)
		fprintf(f, man ? (opt->flags & OPT_OPTARG ? "[=\\fI%s\\fR]" : " \\fI%s\\fR")
			       : (opt->flags & OPT_OPTARG ? "[=%s]" : " %s"), opt->argh);
	fputs(man ? "\n" : "`\n", f);
}

static void option(struct out *o, const struct opt *opt)
{
	if (o->fmt == OPTS_FMT_MAN)
		fputs(".TP\n", o->f);
	term(o, opt);
	for (const char *h = opt->help; *h; ) {
		size_t n = strcspn(h, "\n");

		if (o->fmt == OPTS_FMT_MD)
			fputs("  ", o->f);
		put_text(o, h, n);
		fputc('\n', o->f);
		h += n + (h[n] == '\n');
	}
	o->code = 0;
}

static void options(struct out *o, const struct opt *opts)
{
	static const struct opt help_opt = OPT_BOOLEAN('h', "help", NULL, "this help");
	static const struct opt help_long = OPT_BOOLEAN(0, "help", NULL, "this help");
	int has_h = 0;

	heading(o, 1, "OPTIONS");
	for (const struct opt *p = opts; p->type != OPT_T_END; p++) {
		has_h |= p->short_name == 'h';
		if (!(p->flags & OPT_HIDDEN))
			option(o, p);
	}
	option(o, has_h ? &help_long : &help_opt);
	if (o->fmt == OPTS_FMT_MD)
		fputc('\n', o->f);
	o->sect = 2;
}

static void synopsis(struct out *o, const struct opts_synopsis *syn)
{
	const char *p = syn->forms;

	heading(o, 1, "SYNOPSIS");
	fputs(o->fmt == OPTS_FMT_MAN ? ".nf\n" : "```\n", o->f);
	for (int first = 1; first || *p; first = 0) {
		size_t n = strcspn(p, "\n");

		if (*p == ' ' && o->fmt == OPTS_FMT_MAN) {
			fprintf(o->f, "%*s", (int)strlen(syn->name) + 1, "");
			put_text(o, p, n);
		} else if (*p == ' ') {
			fprintf(o->f, "%*s%.*s", (int)strlen(syn->name) + 1, "", (int)n, p);
		} else if (o->fmt == OPTS_FMT_MAN) {
			fputs("\\fB", o->f);
			put_text(o, syn->name, strlen(syn->name));
			fputs("\\fR ", o->f);
			put_text(o, p, n);
		} else {
			fprintf(o->f, "%s %.*s", syn->name, (int)n, p);
		}
		fputc('\n', o->f);
		p += n + (p[n] == '\n');
	}
	fputs(o->fmt == OPTS_FMT_MAN ? ".fi\n" : "```\n\n", o->f);
}

/* "Exit status: ..." and the like: the section a paragraph opens, and the
 * length of its label. */
static const char *label(const char *s, size_t n, size_t *len)
{
	static const struct { const char *label, *section; } labels[] = {
		{ "exit status:", "EXIT STATUS" }, { "environment:", "ENVIRONMENT" },
	};

	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		*len = strlen(labels[i].label);
		if (n >= *len && !strncasecmp(s, labels[i].label, *len))
			return labels[i].section;
	}
	return NULL;
}

static void page_head(struct out *o, const struct opts_synopsis *syn)
{
	char title[128];
	int sec = syn->section;

	snprintf(title, sizeof(title), "%s", syn->name);
	for (char *p = title; *p; p++)
		if (*p == ' ')
			*p = '-';
	if (o->fmt == OPTS_FMT_MAN) {
		fputs(".\\\" SPDX-License-Identifier: GPL-3.0-or-later\n"
		      ".\\\" Generated by lib/opts_doc.c from the command's --help and option table.\n",
		      o->f);
		fputs(".TH \"", o->f);
		for (const char *p = title; *p; p++)
			fputc(toupper((unsigned char)*p), o->f);
		fprintf(o->f, "\" \"%d\" \"\" \"ipibench\" \"ipibench manual\"\n.nh\n.ad l\n", sec);
		heading(o, 1, "NAME");
		put_text(o, title, strlen(title));
		fputs(" \\- ", o->f);
		put_text(o, syn->summary, strlen(syn->summary));
		fputc('\n', o->f);
	} else {
		fprintf(o->f, "## %s\n\n", syn->name);
		put_text(o, syn->summary, strlen(syn->summary));
		fputs(" (manual page: ", o->f);
		fprintf(o->f, "%s(%d)).\n\n", title, sec);
	}
	synopsis(o, syn);
}

static void page_tail(struct out *o, const struct opts_synopsis *syn)
{
	char self[160];
	int first = 1;

	if (o->fmt == OPTS_FMT_MD) {
		end_para(o);
		return;
	}
	snprintf(self, sizeof(self), "%s(%d)", syn->name, syn->section);
	for (char *p = self; *p; p++)
		if (*p == ' ')
			*p = '-';
	heading(o, 1, "SEE ALSO");
	for (const char *const *p = opts_pages; *p; p++) {
		const char *paren = strchr(*p, '(');

		if (!strcmp(*p, self))
			continue;
		if (!first)
			fputs(",\n", o->f);
		fputs(".BR ", o->f);
		put_text(o, *p, (size_t)(paren - *p));
		fprintf(o->f, " %s", paren);
		first = 0;
	}
	fputc('\n', o->f);
}

/* TEXT (the --help with marks) as the page's body. */
static void body(struct out *o, const char *text)
{
	const char *p = text;
	int skip = 0;   /* in the usage: paragraph */

	while (*p) {
		size_t n = strcspn(p, "\n"), ll;
		const char *sect;

		if (n == 0) {
			end_para(o);
			skip = 0;
		} else if (p[0] == '\001' && p[1] == 'O') {
			options(o, doc.tables[atoi(p + 2)]);
		} else if (p[0] == '\001' && p[1] == 'S' && n > 4) {
			char t[128];

			snprintf(t, sizeof(t), "%.*s", (int)(n - 4), p + 4);
			heading(o, p[2] == 'H' ? 1 : 2, t);
			o->sect = p[2] == 'H' ? 1 : o->sect ? o->sect : 1;
			skip = 0;
		} else if (skip || (!o->para && !strncmp(p, "usage:", 6))) {
			skip = 1;
		} else if (n == 8 && !strncmp(p, "options:", 8)) {
			;
		} else if (!o->para && (sect = label(p, n, &ll))) {
			heading(o, 1, sect);
			o->sect = 2;
			while (ll < n && p[ll] == ' ')
				ll++;
			if (ll < n)
				line(o, p + ll, n - ll);
		} else {
			if (!o->para && !o->sect) {
				heading(o, 1, "DESCRIPTION");
				o->sect = 1;
			} else if (!o->para && o->sect == 2 && !o->nf) {
				heading(o, 1, "NOTES");
				o->sect = 3;
			}
			line(o, p, n);
		}
		p += n + (p[n] == '\n');
	}
	end_para(o);
}

int opts_page(FILE *f, enum opts_fmt fmt, const struct opts_synopsis *syn,
	      void (*write)(FILE *f, const void *data), const void *data)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct out o = { .f = f, .fmt = fmt };

	if (!m)
		return 1;
	doc.on = 1;
	doc.n = 0;
	write(m, data);
	doc.on = 0;
	if (fclose(m) || !text)
		return free(text), 1;
	page_head(&o, syn);
	body(&o, text);
	page_tail(&o, syn);
	free(text);
	return fflush(f) ? 1 : 0;
}

void opts_text(FILE *f, enum opts_fmt fmt, const char *s)
{
	struct out o = { .f = f, .fmt = fmt };

	while (*s) {
		size_t n = strcspn(s, "\n");

		put_text(&o, s, n);
		s += n;
		if (*s == '\n') {
			fputc(fmt == OPTS_FMT_MAN ? '\n' : ' ', f);
			s++;
		}
	}
}

static void cmd_text(FILE *f, const void *data)
{
	const struct opts_cmd *cmd = data;

	cmd->usage(f, cmd);
}

int opts_cmd_page(FILE *f, enum opts_fmt fmt, const struct opts_cmd *cmd)
{
	return opts_page(f, fmt, cmd->syn, cmd_text, cmd);
}
