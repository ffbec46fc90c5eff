/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * safeio: reading untrusted files within limits and writing files so that
 * no reader ever sees half of one.  Every component (runner, agent,
 * analysis, probes' tools) reads the files it is handed (configs, JSON,
 * traces) and writes its results through these, so the guarantees are
 * stated once (the kernel's own files, /proc and /sys, are read directly):
 *
 *   sio_open_regular() the one rule for opening an untrusted input: with
 *                     O_NONBLOCK (a FIFO never waits for a writer), then
 *                     refused unless a regular file (not a FIFO, device or
 *                     directory) of at most MAX bytes.  Symlinks are
 *                     followed: the rule holds for what they point at.
 *   sio_read_file()   such a file read whole; /dev/zero is refused at once
 *                     instead of being read forever.
 *   sio_load_json()   the same, parsed by jansson; errors name the file and
 *                     line/column jansson reports.
 *   struct sio_atomic one file written atomically, as git's lockfile API:
 *                     a temp file with a unique name in the target's own
 *                     directory (created by mkostemp, O_CREAT|O_EXCL: an
 *                     existing name, a planted symlink included, is never
 *                     opened, and two writers never share it), written,
 *                     chmod'ed and fsync'ed, renamed over the target, and
 *                     the directory fsync'ed.  Any write error, even one
 *                     fwrite reported only through ferror(), fails commit
 *                     and the target keeps its old content.
 *   sio_quote()       how an untrusted string enters a one-line message:
 *                     quoted, escaped, cut (sio_shown(): left as it is
 *                     when it is printable ASCII).
 *   sio_json_str()    any bytes as a JSON string: valid UTF-8 as it is,
 *                     every other byte as the text \xNN, so a name that
 *                     is not UTF-8 is shown, never dropped (jansson's
 *                     json_string() returns NULL for it).
 *   sio_name_ok()     the one rule for names that become parts of paths or
 *                     appear in reports (host names, workload names, run
 *                     ids): [A-Za-z0-9][A-Za-z0-9._-]*, at most
 *                     SIO_NAME_MAX bytes, no "..".
 *
 * And sio_write_file(), sio_write_json() (whole files through struct
 * sio_atomic), sio_mkdtemp_in() (a private folder beside a target) and
 * sio_json_kind() (a JSON value's type, for refusals).
 *
 * Errors are one line, written into err (errlen bytes); functions return 0
 * on success and -1 on failure unless stated otherwise.
 */
#ifndef IPIBENCH_SAFEIO_H
#define IPIBENCH_SAFEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <jansson.h>

/* Size limits of the inputs ipibench reads (bytes). */
#define SIO_MAX_CONFIG   (1u << 20)	/* an INI config */
#define SIO_MAX_JSON     (256u << 20)	/* results.json, agent.json, hyperfine */
#define SIO_NAME_MAX     64

/* Open PATH read-only by the rule above: the descriptor (O_CLOEXEC, still
 * O_NONBLOCK, which regular files ignore), *st filled, or -1 with one line
 * in err naming PATH (through sio_shown()). */
int sio_open_regular(const char *path, unsigned long long max, struct stat *st,
		     char *err, size_t errlen);

/* Read PATH whole into a NUL-terminated malloc'ed buffer (*len excludes the
 * NUL).  Refused: not a regular file, larger than max. */
int sio_read_file(const char *path, size_t max, char **buf, size_t *len,
		  char *err, size_t errlen);

/* Read and parse a JSON file (sio_read_file + json_loadb); NULL on error. */
json_t *sio_load_json(const char *path, size_t max, char *err, size_t errlen);

/*
 * A JSON string of S, whatever its bytes: valid UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF) kept as it is,
 * each byte of anything else as the four characters \xNN (lower-case
 * hex).  A valid string is never changed, so the only strings that can
 * look alike are a non-UTF-8 name and a valid one spelling \xNN itself.
 * NULL only when out of memory (or S is NULL).
 */
json_t *sio_json_str(const char *s);
/* 1 when S is valid UTF-8 (as above). */
bool sio_utf8_ok(const char *s);

/* 1 when s follows the name rule above. */
bool sio_name_ok(const char *s);

/* "an object", "an integer", ... "null": a JSON value's type, for refusals. */
const char *sio_json_kind(const json_t *v);

struct sio_atomic {
	char *path;	/* the target */
	char *tmp;	/* DIR/.BASE.XXXXXX while open */
	FILE *f;	/* write through this */
	mode_t mode;
};

/* Open a temp file beside PATH; MODE is the final file's (e.g. 0644). */
int sio_atomic_open(struct sio_atomic *a, const char *path, mode_t mode,
		    char *err, size_t errlen);
/* Flush, fsync, rename over the target; always releases a (also on error,
 * when the temp file is removed). */
int sio_atomic_commit(struct sio_atomic *a, char *err, size_t errlen);
/* Give up: remove the temp file and release a.  Safe on a released a. */
void sio_atomic_abort(struct sio_atomic *a);

/* Whole-buffer and JSON conveniences on the above. */
int sio_write_file(const char *path, const void *data, size_t len, mode_t mode,
		   char *err, size_t errlen);
int sio_write_json(const char *path, json_t *obj, size_t flags,
		   char *err, size_t errlen);

/* A fresh private directory DIR/.PREFIX.XXXXXX (for tools such as gnuplot
 * that write their own files before they are renamed into place); returns
 * the malloc'ed path or NULL. */
char *sio_mkdtemp_in(const char *dir, const char *prefix, char *err, size_t errlen);

/*
 * An untrusted string (a config value, a JSON string, an environment
 * variable) for a one-line message: in double quotes, bytes other than
 * printable ASCII as \xNN, '"' and '\\' escaped, cut with "..." when it
 * does not fit in len (at least 8, else BUF is "").
 */
void sio_quote(char *buf, size_t len, const char *s);
/* S for a message: as it is when printable ASCII, else sio_quote()d; BUF. */
const char *sio_shown(char *buf, size_t len, const char *s);

#endif
