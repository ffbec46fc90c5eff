#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/agent/agent_info.h"
#include "runner/agent/sysctl_wrap.h"
#include "runner/console.h"

/* The APIC driver the hypervisor switched to, from its console ring. */
static void genapic_from_console(xc_interface *xch, json_t *out)
{
	unsigned int size = 1 << 20;
	char *buf = calloc(1, size + 1);
	struct console_match m;
	char name[64] = "";

	if (!buf)
		return;
	if (xc_readconsolering(xch, buf, &size, 0, 0, NULL) == 0) {
		buf[size] = '\0';
		for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
			if (console_parse_line(line, &m) == CON_GENAPIC)
				snprintf(name, sizeof(name), "%s", m.arg);
	}
	free(buf);
	if (name[0])
		json_object_set_new(out, "genapic", json_string(name));
}

/* The CPU model as dom0 sees it (CPUID passes the host's brand string). */
static void cpu_model(json_t *out)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && p) {
			p += 1 + strspn(p + 1, " \t");
			p[strcspn(p, "\n")] = '\0';
			json_object_set_new(out, "cpu_model", json_string(p));
			break;
		}
	}
	if (f)
		fclose(f);
}

int agent_info(struct agent_ctx *ctx, json_t *out, char *err, size_t errlen)
{
	xc_physinfo_t pi = { 0 };
	xen_extraversion_t extra = { 0 };
	xen_changeset_info_t cs = { 0 };
	xen_commandline_t cmdline = { 0 };
	int ver = xc_version(ctx->xch, XENVER_version, NULL);
	char version[128];
	json_t *xen, *phys;

	if (ver < 0 || xc_physinfo(ctx->xch, &pi)) {
		snprintf(err, errlen, "xc_version/xc_physinfo failed (not dom0?)");
		return -1;
	}
	xc_version(ctx->xch, XENVER_extraversion, &extra);
	xc_version(ctx->xch, XENVER_changeset, &cs);
	xc_version(ctx->xch, XENVER_commandline, &cmdline);
	snprintf(version, sizeof(version), "%d.%d%s", ver >> 16, ver & 0xffff, extra);

	xen = json_object();
	json_object_set_new(xen, "version", json_string(version));
	json_object_set_new(xen, "changeset", json_string(cs));
	json_object_set_new(xen, "cmdline", json_string(cmdline));
	/* The sysctl interface version it took (0x15: 4.17-4.20, 0x16: 4.21+). */
	snprintf(version, sizeof(version), "0x%02x", (unsigned int)agent_sysctl_version());
	json_object_set_new(xen, "sysctl_interface", json_string(version));
	json_object_set_new(out, "xen", xen);

	phys = json_object();
	json_object_set_new(phys, "nr_cpus", json_integer(pi.nr_cpus));
	json_object_set_new(phys, "max_cpu_id", json_integer(pi.max_cpu_id));
	json_object_set_new(phys, "threads_per_core", json_integer(pi.threads_per_core));
	json_object_set_new(phys, "cores_per_socket", json_integer(pi.cores_per_socket));
	json_object_set_new(phys, "nr_nodes", json_integer(pi.nr_nodes));
	json_object_set_new(phys, "cpu_khz", json_integer(pi.cpu_khz));
	json_object_set_new(phys, "total_pages", json_integer(pi.total_pages));
	json_object_set_new(out, "physinfo", phys);
	ctx->nr_cpus = pi.nr_cpus;

	cpu_model(out);
	genapic_from_console(ctx->xch, out);
	return 0;
}
