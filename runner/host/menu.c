/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The GRUB menu entries of `ipibench host install` (custom.cfg). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ipibench/modes.h"
#include "runner/backends/reboot.h"
#include "runner/host/menu.h"

void host_entry_id(const char *mode, char *buf, size_t len)
{
	snprintf(buf, len, HOST_ENTRY_PREFIX "%s", mode);
}

const char *host_entry_list(char *buf, size_t len, const char *sep)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; ipibench_mode_name(i) && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s" HOST_ENTRY_PREFIX "%s", i ? sep : "",
				      ipibench_mode_name(i));
	return buf;
}

/* GRUB single-quoted string: ' becomes '\''. */
static size_t gq(char *out, size_t len, const char *s)
{
	size_t n = 0;

#define PUT(c) do { if (n + 1 < len) out[n] = (c); n++; } while (0)
	PUT('\'');
	for (; *s; s++) {
		if (*s == '\'') {
			PUT('\''); PUT('\\'); PUT('\''); PUT('\'');
		} else {
			PUT(*s);
		}
	}
	PUT('\'');
#undef PUT
	if (len)
		out[n < len ? n : len - 1] = '\0';
	return n;
}

/*
 * A command line as GRUB words: each word as it is, or single-quoted when
 * GRUB's lexer would read something in it ($ expands, ; ends the command,
 * quotes and \\ are removed, # starts a comment), so the hypervisor and
 * dom0 get exactly the words given.  The length it needs, as gq().
 */
static size_t gwords(char *out, size_t len, const char *cmdline)
{
	static const char special[] = "'\"\\$;|&<>{}#`";
	size_t n = 0;

	if (len)
		out[0] = '\0';
	for (const char *w = cmdline; *w;) {
		char word[1100], q[2300];
		size_t k;

		w += strspn(w, " \t\r\n");
		k = strcspn(w, " \t\r\n");
		if (!k)
			break;
		snprintf(word, sizeof(word), "%.*s", (int)(k < sizeof(word) ? k : sizeof(word) - 1), w);
		if (strpbrk(word, special))
			gq(q, sizeof(q), word);
		else
			snprintf(q, sizeof(q), "%s", word);
		n += (size_t)snprintf(out + (n < len ? n : len), n < len ? len - n : 0, "%s%s",
				      n ? " " : "", q);
		w += k;
	}
	return n;
}

int host_entries_text(const struct host_install *h, char *buf, size_t len)
{
	size_t n = 0;
	char qx[1100], qk[1100], qi[1100], wx[2300], wd[2300];

	gq(qx, sizeof(qx), h->grub_xen);
	gq(qk, sizeof(qk), h->grub_kernel);
	gq(qi, sizeof(qi), h->grub_initrd);
	if (gwords(wx, sizeof(wx), h->xen_cmdline) >= sizeof(wx) ||
	    gwords(wd, sizeof(wd), h->dom0_cmdline) >= sizeof(wd))
		return -1;
#define OUT(...) do { \
		int k_ = snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__); \
		n += (size_t)(k_ > 0 ? k_ : 0); \
	} while (0)
	OUT("%s\n", HOST_CFG_BEGIN);
	OUT("# Booted once each by the reboot backend (next_entry in grubenv), never\n"
	    "# by default.  ipibench_run and ipibench_cmdline come from grubenv.\n");
	for (size_t i = 0; ipibench_mode_name(i); i++) {
		char id[64];

		host_entry_id(ipibench_mode_name(i), id, sizeof(id));
		OUT("menuentry 'ipibench: Xen x2apic-mode=%s' --id %s {\n", ipibench_mode_name(i), id);
		OUT("\tload_env ipibench_run ipibench_cmdline\n");
		OUT("\tinsmod part_msdos\n\tinsmod part_gpt\n\tinsmod %s\n", h->grub_fs);
		OUT("\tinsmod gzio\n\tinsmod multiboot2\n");
		OUT("\tsearch --no-floppy --file --set=root %s\n", qx);
		OUT("\techo 'ipibench: Xen x2apic-mode=%s, run '\"${ipibench_run}\"\n", ipibench_mode_name(i));
		OUT("\tmultiboot2 %s %s x2apic-mode=%s ipibench.run=${ipibench_run} ${ipibench_cmdline}\n",
		    qx, wx, ipibench_mode_name(i));
		OUT("\tmodule2 %s placeholder %s\n", qk, wd);
		if (h->grub_initrd[0])
			OUT("\tmodule2 --nounzip %s\n", qi);
		OUT("}\n");
	}
	OUT("%s\n", HOST_CFG_END);
#undef OUT
	return n < len ? 0 : -1;
}

char *host_cfg_strip(const char *text, int *found)
{
	char *out = malloc(strlen(text) + 1);
	const char *b = strstr(text, HOST_CFG_BEGIN), *e;

	*found = 0;
	if (!out)
		return NULL;
	if (!b || !(e = strstr(b, HOST_CFG_END))) {
		strcpy(out, text);
		return out;
	}
	*found = 1;
	e += strlen(HOST_CFG_END);
	if (*e == '\n')
		e++;
	memcpy(out, text, (size_t)(b - text));
	strcpy(out + (b - text), e);
	return out;
}

int host_grub_path(const char *path, char *buf, size_t len)
{
	char real[PATH_MAX], cur[PATH_MAX], parent[PATH_MAX];
	struct stat st, up;
	size_t mnt = 0;      /* real[0..mnt) is the mount point ("" for /) */

	if (!realpath(path, real) || stat(real, &st))
		return -1;
	snprintf(cur, sizeof(cur), "%s", real);
	while (strcmp(cur, "/")) {
		char *slash;

		snprintf(parent, sizeof(parent), "%s", cur);
		slash = strrchr(parent, '/');
		if (slash == parent)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(parent, &up) || up.st_dev != st.st_dev) {
			mnt = strlen(cur);   /* cur is the mount point */
			break;
		}
		snprintf(cur, sizeof(cur), "%s", parent);
	}
	snprintf(buf, len, "%s", real[mnt] ? real + mnt : "/");
	return 0;
}
