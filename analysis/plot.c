/*
 * analysis/plot.c: every plot is a gnuplot script plus its data file, kept
 * in OUT so people can tweak and re-run them (`cd OUT && gnuplot NAME.gp`).
 * ipibench runs the same script with suffix='.tmp' and renames the PNG and
 * SVG into place, so a reader never sees a half-written plot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/internal.h"

const char *plot_gnuplot(void)
{
	const char *g = getenv("IPIBENCH_GNUPLOT");
	return g && *g ? g : "gnuplot";
}

char *gp_quote(const char *s)
{
	struct sbuf b = { 0 };
	sb_puts(&b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(&b, "''");
		else if (*s == '\n')
			sb_puts(&b, " ");
		else
			sb_printf(&b, "%c", *s);
	}
	sb_puts(&b, "'");
	return b.s;
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
	snprintf(err, AN_ERRLEN,
		 "gnuplot not found ('%s'): install gnuplot-nox (make deps) or set IPIBENCH_GNUPLOT",
		 g);
	return -1;
}

static int finish_output(const char *outdir, const char *name, const char *ext,
			 char *err)
{
	char *tmp = xasprintf("%s/%s.%s.tmp", outdir, name, ext);
	char *dst = xasprintf("%s/%s.%s", outdir, name, ext);
	struct stat st;
	int rc = 0;
	if (stat(tmp, &st) != 0 || st.st_size == 0) {
		snprintf(err, AN_ERRLEN, "%s: gnuplot wrote no %s (see its messages above)",
			 dst, ext);
		unlink(tmp);
		rc = -1;
	} else if (rename(tmp, dst) != 0) {
		snprintf(err, AN_ERRLEN, "%s: %s", dst, strerror(errno));
		rc = -1;
	}
	free(tmp);
	free(dst);
	return rc;
}

int plot_render(const char *outdir, const char *name, const char *data,
		const char *body, int width, int height, char *err)
{
	if (plot_check(err))
		return -1;
	char *dat = xasprintf("%s/%s.dat", outdir, name);
	char *gpf = xasprintf("%s/%s.gp", outdir, name);
	struct sbuf s = { 0 };
	sb_printf(&s,
		  "# ipibench plot %s: data in %s.dat.\n"
		  "# Re-create %s.png and %s.svg with: gnuplot %s.gp\n"
		  "if (!exists(\"suffix\")) suffix = ''\n"
		  "set terminal pngcairo size %d,%d noenhanced font ',10'\n"
		  "set output '%s.png'.suffix\n"
		  "set datafile separator whitespace\n"
		  "set grid ytics lc rgb '#dddddd'\n"
		  "%s"
		  "set terminal svg size %d,%d dynamic noenhanced font 'sans,10' background rgb 'white'\n"
		  "set output '%s.svg'.suffix\n"
		  "replot\n"
		  "unset output\n",
		  name, name, name, name, name, width, height, name, body, width,
		  height, name);
	int rc = -1;
	if (write_atomic(dat, data, strlen(data), err) ||
	    write_atomic(gpf, s.s, s.len, err))
		goto out;

	char *gpname = xasprintf("%s.gp", name);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, AN_ERRLEN, "fork: %s", strerror(errno));
		free(gpname);
		goto out;
	}
	if (pid == 0) {
		if (chdir(outdir) != 0)
			_exit(126);
		execlp(plot_gnuplot(), plot_gnuplot(), "-e", "suffix='.tmp'", gpname,
		       (char *)NULL);
		_exit(127);
	}
	free(gpname);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
			snprintf(err, AN_ERRLEN, "%s: cannot run gnuplot ('%s')", gpf,
				 plot_gnuplot());
		else
			snprintf(err, AN_ERRLEN, "%s: gnuplot failed (status %d)", gpf,
				 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		goto out;
	}
	if (finish_output(outdir, name, "png", err) ||
	    finish_output(outdir, name, "svg", err))
		goto out;
	progress("plot %s/%s.png, .svg", outdir, name);
	rc = 0;
out:
	sb_free(&s);
	free(dat);
	free(gpf);
	return rc;
}
