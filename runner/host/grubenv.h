/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * GRUB's environment block (grub-editenv's format: 1024 bytes, '#'-padded),
 * which the reboot backend edits for its one-shot boots (next_entry) and
 * the menu entries read (load_env).
 */
#ifndef IPIBENCH_HOST_GRUBENV_H
#define IPIBENCH_HOST_GRUBENV_H

#include <stddef.h>

#define GRUBENV_SIZE 1024
#define GRUBENV_SIG "# GRUB Environment Block\n"
#define GRUBENV_MAX_VARS 64

struct grubenv_var {
	char key[128];
	char val[GRUBENV_SIZE];
};

struct grubenv {
	unsigned int n;
	struct grubenv_var v[GRUBENV_MAX_VARS];
};

/* Parse a block (escapes: backslash before any character). 0, or -1 + err. */
int grubenv_parse(const char *buf, size_t len, struct grubenv *e, char *err, size_t errlen);
/* Exactly GRUBENV_SIZE bytes, '#'-padded; -1 + err when it does not fit. */
int grubenv_format(const struct grubenv *e, char out[GRUBENV_SIZE], char *err, size_t errlen);
const char *grubenv_get(const struct grubenv *e, const char *key);
/* 0, or -1 for a bad key (empty, '=' or newline) or a full table. */
int grubenv_set(struct grubenv *e, const char *key, const char *val);
void grubenv_unset(struct grubenv *e, const char *key);
/* Read PATH; a missing file is an empty env (returns 1).  -1 + err otherwise. */
int grubenv_load(const char *path, struct grubenv *e, char *err, size_t errlen);
/*
 * Write PATH in place (same 1024 bytes, no truncation, fsync): GRUB's own
 * save_env writes into the file's blocks, which must not move.  Creates the
 * file when missing.
 */
int grubenv_store(const char *path, const struct grubenv *e, char *err, size_t errlen);

#endif
