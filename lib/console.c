/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/console.h"

const char *console_strip_prefix(const char *line)
{
	if (!strncmp(line, "(XEN) ", 6))
		line += 6;
	/* console_timestamps=boot: "[    1.234567] " */
	if (line[0] == '[') {
		const char *e = strchr(line, ']');
		if (e && e[1] == ' ')
			line = e + 2;
	}
	return line;
}

static int copy_word(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	while (src[i] && src[i] != ' ' && src[i] != '.' && src[i] != '\r' &&
	       src[i] != '\n' && i + 1 < n) {
		dst[i] = src[i];
		i++;
	}
	dst[i] = '\0';
	return i > 0;
}

/* "N CPUs (M hotplug CPUs)" (Xen's mpparse.c): M into ARG. */
static bool smp_allowing(const char *p, char *arg, size_t len)
{
	size_t n = strspn(p, "0123456789");
	const char *h;
	size_t k;

	if (!n || n > 6 || strncmp(p + n, " CPUs (", 7))
		return false;
	h = p + n + 7;
	k = strspn(h, "0123456789");
	if (!k || k > 6 || strncmp(h + k, " hotplug CPUs)", 14) || k >= len)
		return false;
	snprintf(arg, len, "%.*s", (int)k, h);
	return true;
}

enum console_event console_parse_line(const char *raw, struct console_match *m)
{
	const char *line = console_strip_prefix(raw);
	const char *p;

	m->ev = CON_NONE;
	m->arg[0] = '\0';
	if ((p = strstr(line, "Switched to APIC driver ")) &&
	    copy_word(m->arg, sizeof(m->arg), p + 24))
		m->ev = CON_GENAPIC;
	else if ((p = strstr(line, "Using APIC driver ")) &&
		 copy_word(m->arg, sizeof(m->arg), p + 18))
		m->ev = CON_GENAPIC;
	else if (!strncmp(line, "Xen version ", 12))
		m->ev = CON_XEN_START;
	else if ((p = strstr(line, "SMP: Allowing ")) && smp_allowing(p + 14, m->arg, sizeof(m->arg)))
		m->ev = CON_SMP_ALLOWING;
	else if (strstr(line, "Interrupt Remapping enabled"))
		m->ev = CON_INTREMAP;
	else if (strstr(line, "WARNING: x2APIC"))
		m->ev = CON_X2APIC_WARNING;
	else if (!strncmp(line, "Panic on CPU", 12))
		m->ev = CON_XEN_PANIC;
	else if (strstr(line, "Kernel panic - not syncing") ||
		 strstr(line, "Domain 0 crashed") ||
		 strstr(line, "Hardware Dom0 crashed"))
		m->ev = CON_DOM0_CRASH;
	else if (!strncmp(line, "ipibench: dom0 up", 17))
		m->ev = CON_DOM0_UP;
	else if (!strncmp(line, "ipibench: agent done rc=", 24)) {
		m->ev = CON_AGENT_DONE;
		copy_word(m->arg, sizeof(m->arg), line + 24);
	} else if (!strncmp(line, "ipibench: ", 10)) {
		m->ev = CON_AGENT_PROGRESS;
		snprintf(m->arg, sizeof(m->arg), "%s", line + 10);
		m->arg[strcspn(m->arg, "\r\n")] = '\0';
	}
	return m->ev;
}

int console_find_irte(const char *text, unsigned int index, struct console_irte *out)
{
	const char *p = text, *last = NULL;

	while ((p = strstr(p, "Interrupt remapping table (")) != NULL)
		last = p++;
	if (!last)
		return -1;
	for (p = strchr(last, '\n'); p && *++p; p = strchr(p, '\n')) {
		const char *line = p, *end = strchr(p, '\n');
		char buf[256];
		unsigned int i, svt, sq, sid, v, avl, fpd, dst, dlm, tm, rh, dm, pr;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len >= sizeof(buf))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = console_strip_prefix(buf);
		/* The next dump section (another IOMMU, or the end of this one). */
		if (!strncmp(line, "iommu ", 6) || strstr(line, "Interrupt remapping table ("))
			return -1;
		if (strncmp(line, "R:  ", 4) ||
		    sscanf(line + 4, "%x: %x %x %x %x %x %x %x %x %x %x %x %x", &i, &svt, &sq, &sid,
			   &v, &avl, &fpd, &dst, &dlm, &tm, &rh, &dm, &pr) != 13 || i != index)
			continue;
		*out = (struct console_irte){ .index = i, .sid = sid, .vector = v, .dst = dst,
					      .dlm = dlm, .tm = tm, .dm = dm };
		return 0;
	}
	return -1;
}
