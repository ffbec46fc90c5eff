/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/plot.c: every plot is a gnuplot script plus its data file, kept
 * in OUT so people can tweak and re-run them (`cd OUT && gnuplot NAME.gp`).
 * ipibench runs the same script in OUT with outdir set to a private
 * directory OUT/.NAME.XXXXXX (sio_mkdtemp_in), so gnuplot's PNG and SVG
 * never have a name another report could be writing, and renames them into
 * place: a reader never sees a half-written plot.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/safeio.h"
#include "lib/spawn.h"
#include "analysis/internal.h"

bool plot_undrawn_ok;
size_t plot_undrawn;

const char *plot_gnuplot(void)
{
	const char *g = getenv("IPIBENCH_GNUPLOT");
	return g && *g ? g : "gnuplot";
}

/*
 * Single quotes are gnuplot's literal strings: nothing is expanded inside
 * them (backquote command substitution and @macros apply everywhere else,
 * double quotes included).  Their one escape, '' for a quote, is unreliable
 * in gnuplot 5.4: '''a' and 'a''''b' (an escaped quote first, or two in a
 * row) are syntax errors.  So a string with a quote in it is written
 * double-quoted, with each character gnuplot would act on there as a
 * backslash or octal escape (\" \\ \140 for ` and \100 for @), which are
 * decoded only after substitution.  Control characters become spaces: a
 * newline would end the command.
 */
char *gp_quote(const char *s)
{
	bool dq = strchr(s, '\'') != NULL;
	struct sbuf b = { 0 };
	sb_puts(&b, dq ? "\"" : "'");
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			sb_puts(&b, " ");
		else if (dq && (*s == '"' || *s == '\\'))
			sb_printf(&b, "\\%c", *s);
		else if (dq && (*s == '`' || *s == '@'))
			sb_printf(&b, "\\%03o", (unsigned)*s);
		else
			sb_printf(&b, "%c", *s);
	}
	sb_puts(&b, dq ? "\"" : "'");
	return b.s;
}

char *gp_datafile(const char *name)
{
	char *f = xasprintf("%s.dat", name);
	char *q = gp_quote(f);
	free(f);
	return q;
}

/* Is the gnuplot binary there?  A missing gnuplot is an error, not a skip. */
int plot_check(char *err)
{
	const char *g = plot_gnuplot();
	if (strchr(g, '/')) {
		if (access(g, X_OK) == 0)
			return 0;
	} else {
		const char *path = getenv("PATH");
		char *copy = xstrdup(path ? path : "/usr/bin:/bin");
		int found = 0;
		for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found;
		     dir = strtok_r(NULL, ":", &save)) {
			char *p = xasprintf("%s/%s", dir, g);
			found = access(p, X_OK) == 0;
			free(p);
		}
		free(copy);
		if (found)
			return 0;
	}
	an_err(err,
	       "gnuplot not found ('%s'): install gnuplot-nox (make deps) or set IPIBENCH_GNUPLOT",
	       g);
	return -1;
}

/* Move PRIV/NAME.EXT to OUT/NAME.EXT. */
static int finish_output(const char *outdir, const char *priv, const char *name,
			 const char *ext, char *err)
{
	char *tmp = xasprintf("%s/%s.%s", priv, name, ext);
	char *dst = xasprintf("%s/%s.%s", outdir, name, ext);
	struct stat st;
	int rc = 0;
	if (lstat(tmp, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		an_err(err, "%s: gnuplot wrote no %s (see its messages above)",
		       dst, ext);
		rc = -1;
	} else if (rename(tmp, dst) != 0) {
		an_err(err, "%s: %s", dst, strerror(errno));
		rc = -1;
	}
	free(tmp);
	free(dst);
	return rc;
}

/* Remove the private directory and whatever gnuplot left in it. */
static void remove_private(const char *priv)
{
	DIR *d = opendir(priv);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char *p = xasprintf("%s/%s", priv, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(priv);
}

/* The kept NAME.gp: both terminals around the plot's body. */
static void plot_script(struct sbuf *s, const char *name, const char *body, int width,
			int height)
{
	char *png = xasprintf("%s.png", name), *svg = xasprintf("%s.svg", name);
	char *qpng = gp_quote(png), *qsvg = gp_quote(svg);
	sb_printf(s,
		  "# ipibench plot %s: data in %s.dat.\n"
		  "# Re-create %s.png and %s.svg with: gnuplot %s.gp\n"
		  "if (!exists(\"outdir\")) outdir = ''\n"
		  "set terminal pngcairo size %d,%d noenhanced font ',10'\n"
		  "set output outdir.%s\n"
		  "set datafile separator whitespace\n"
		  "set grid ytics lc rgb '#dddddd'\n"
		  "%s"
		  "set terminal svg size %d,%d dynamic noenhanced font 'sans,10' background rgb 'white'\n"
		  "set output outdir.%s\n"
		  "replot\n"
		  "unset output\n",
		  name, name, name, name, name, width, height, qpng, body, width,
		  height, qsvg);
	free(png);
	free(svg);
	free(qpng);
	free(qsvg);
}

/* gnuplot NAME.gp in outdir, writing into the private directory priv;
 * gpf names the script in errors. */
static int run_gnuplot(const char *outdir, const char *priv, const char *name,
		       const char *gpf, char *err)
{
	/* OUT/.NAME.XXXXXX: mkdtemp's letters and the slug, nothing to quote
	 * but quoted all the same. */
	const char *base = strrchr(priv, '/') ? strrchr(priv, '/') + 1 : priv;
	char *dir = xasprintf("%s/", base), *qdir = gp_quote(dir);
	char *setdir = xasprintf("outdir=%s", qdir), *gpname = xasprintf("%s.gp", name);
	free(dir);
	free(qdir);
	int rc = -1, st;
	struct sio_child c = SIO_CHILD_INIT;

	/* gnuplot's own messages go where ours do. */
	c.argv = (const char *[]){ plot_gnuplot(), "-e", setdir, gpname, NULL };
	c.dir = outdir;
	c.out = c.err = SIO_CHILD_INHERIT;
	st = sio_child_run(&c);
	if (st == 0)
		rc = 0;
	else if (st < 0)
		an_err(err, "%s: cannot start gnuplot: %s", gpf, strerror(errno));
	else if (st == 127)
		an_err(err, "%s: cannot run gnuplot ('%s')", gpf, plot_gnuplot());
	else
		an_err(err, "%s: gnuplot failed (status %d)", gpf, st);
	free(setdir);
	free(gpname);
	return rc;
}

int plot_render(const char *outdir, const char *name, const char *data,
		const char *body, int width, int height, char *err)
{
	bool draw = plot_check(err) == 0;
	if (!draw && !plot_undrawn_ok)
		return -1;
	char *dat = xasprintf("%s/%s.dat", outdir, name);
	char *gpf = xasprintf("%s/%s.gp", outdir, name);
	char *priv = NULL;
	struct sbuf s = { 0 };
	plot_script(&s, name, body, width, height);
	int rc = -1;
	if (sio_write_file(dat, data, strlen(data), 0644, err, AN_ERRLEN) ||
	    sio_write_file(gpf, s.s, s.len, 0644, err, AN_ERRLEN))
		goto out;
	if (!draw) {
		/* The script and its data only: `gnuplot NAME.gp` draws it later. */
		plot_undrawn++;
		err[0] = '\0';
		rc = 0;
		goto out;
	}
	priv = sio_mkdtemp_in(outdir, name, err, AN_ERRLEN);
	if (!priv || run_gnuplot(outdir, priv, name, gpf, err) ||
	    finish_output(outdir, priv, name, "png", err) ||
	    finish_output(outdir, priv, name, "svg", err))
		goto out;
	progress("plot %s/%s.png, .svg", outdir, name);
	rc = 0;
out:
	if (priv)
		remove_private(priv);
	sb_free(&s);
	free(priv);
	free(dat);
	free(gpf);
	return rc;
}
