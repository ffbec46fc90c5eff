/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent_info.h"
#include "probes/sysctl_wrap.h"
#include "lib/console.h"
#include "agent/hoststate.h"
#include "lib/safeio.h"

/*
 * From the hypervisor's console ring: the APIC driver it switched to
 * (out["genapic"]) and the firmware's hotplug slots (state["hotplug_cpus"]:
 * with any, Xen does not take the ALL-BUT shorthand).
 */
static void console_facts(xc_interface *xch, json_t *out, json_t *state)
{
	unsigned int size = 1 << 20;
	char *buf = calloc(1, size + 1);
	struct console_match m;
	char name[64] = "";
	long hotplug = -1;

	if (!buf)
		return;
	if (xc_readconsolering(xch, buf, &size, 0, 0, NULL) == 0) {
		buf[size] = '\0';
		for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
			enum console_event ev = console_parse_line(line, &m);

			if (ev == CON_GENAPIC)
				snprintf(name, sizeof(name), "%s", m.arg);
			else if (ev == CON_SMP_ALLOWING)
				hotplug = strtol(m.arg, NULL, 10);
		}
	}
	free(buf);
	if (name[0])
		json_object_set_new(out, "genapic", json_string(name));
	/* null: the line has left the ring (or never came). */
	json_object_set_new(state, "hotplug_cpus", hotplug >= 0 ? json_integer(hotplug) : json_null());
}

/* A file's first 64 KiB as text, or NULL. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = f ? calloc(1, 65536) : NULL;

	if (buf && !fread(buf, 1, 65535, f) && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

/*
 * CPU 0's cpufreq driver, governor and turbo (agent/hoststate.h), as
 * xenpm get-cpufreq-para asks: a first call with no arrays tells their
 * sizes (EAGAIN), the next fills them.  Bounded: the sizes can change
 * between the calls (a CPU brought up), not forever.
 */
static json_t *cpufreq_state(xc_interface *xch)
{
	struct xc_get_cpufreq_para p = { 0 };
	struct hoststate_cpufreq cf = { .rc = -1, .err = EAGAIN };

	for (int tries = 0; tries < 4; tries++) {
		free(p.affected_cpus);
		free(p.scaling_available_frequencies);
		free(p.scaling_available_governors);
		p.affected_cpus = p.cpu_num ? calloc(p.cpu_num, sizeof(uint32_t)) : NULL;
		p.scaling_available_frequencies = p.freq_num ? calloc(p.freq_num, sizeof(uint32_t)) : NULL;
		p.scaling_available_governors = p.gov_num ? calloc(p.gov_num, CPUFREQ_NAME_LEN) : NULL;
		if ((p.cpu_num && !p.affected_cpus) || (p.freq_num && !p.scaling_available_frequencies) ||
		    (p.gov_num && !p.scaling_available_governors)) {
			cf.err = ENOMEM;
			break;
		}
		errno = 0;
		cf.rc = xc_get_cpufreq_para(xch, 0, &p);
		cf.err = cf.rc == -EAGAIN ? EAGAIN : errno;
		if (cf.rc != -EAGAIN)
			break;
	}
	if (!cf.rc) {
		_Static_assert(sizeof(p.scaling_driver) == sizeof(cf.driver) &&
			       sizeof(p.scaling_governor) == sizeof(cf.governor), "CPUFREQ_NAME_LEN");
		memcpy(cf.driver, p.scaling_driver, sizeof(cf.driver));
		memcpy(cf.governor, p.scaling_governor, sizeof(cf.governor));
		cf.turbo = p.turbo_enabled;
	} else if (cf.rc > 0) {
		cf.rc = -1;
	}
	free(p.affected_cpus);
	free(p.scaling_available_frequencies);
	free(p.scaling_available_governors);
	return hoststate_cpufreq_json(&cf);
}

/*
 * What else changes IPI latency on real hardware (agent/hoststate.h):
 * Xen's idle-state limit and the C-states it knows, the cpufreq driver,
 * governor and turbo, SMT, the microcode, and the words of its command
 * line that pin them.  A value Xen does not
 * give (no cpuidle driver under QEMU, say) is null.
 */
static void host_state(xc_interface *xch, const xc_physinfo_t *pi, const char *cmdline,
		       json_t *state)
{
	uint32_t max_cstate;
	int max_cx;
	char buf[256], *cpuinfo;

	if (xc_get_cpuidle_max_cstate(xch, &max_cstate) == 0)
		json_object_set_new(state, "max_cstate", max_cstate == XEN_SYSCTL_CX_UNLIMITED ?
				    json_string("unlimited") : json_integer(max_cstate));
	else
		json_object_set_new(state, "max_cstate", json_null());
	json_object_set_new(state, "cx_states_cpu0",
			    xc_pm_get_max_cx(xch, 0, &max_cx) == 0 && max_cx >= 0 ?
			    json_integer(max_cx) : json_null());
	json_t *cf = cpufreq_state(xch);
	json_object_update(state, cf);
	json_decref(cf);
	json_object_set_new(state, "smt", json_boolean(pi->threads_per_core > 1));
	cpuinfo = read_text("/proc/cpuinfo");
	json_object_set_new(state, "microcode",
			    cpuinfo && !hoststate_microcode(cpuinfo, buf, sizeof(buf)) ?
			    json_string(buf) : json_null());
	free(cpuinfo);
	hoststate_pins(cmdline, buf, sizeof(buf));
	json_object_set_new(state, "xen_pins", json_string(buf));
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
			json_object_set_new(out, "cpu_model", sio_json_str(p));
			break;
		}
	}
	if (f)
		fclose(f);
}

/*
 * PCI 1234:11e8 devices (irq_delivery's test device) as dom0 sees them:
 * out["dom0_test_devices"], one {sbdf, command, config_writable} each.
 * config_writable: a write of the Interrupt Line register (0x3c, scratch
 * for software) reads back, and is undone; Xen drops dom0's writes to a
 * device it owns (pci_ro_device()).
 */
static void dom0_test_devices(json_t *out)
{
	const char *dir = "/sys/bus/pci/devices";
	json_t *devs = json_array();
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		char path[512], *v, *dv;
		unsigned char cfg[2], line, back = 0;
		int fd, writable = 0;
		int is_edu;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/vendor", dir, e->d_name);
		v = read_text(path);
		snprintf(path, sizeof(path), "%s/%s/device", dir, e->d_name);
		dv = read_text(path);
		is_edu = v && dv && strtoul(v, NULL, 16) == 0x1234 &&
			 strtoul(dv, NULL, 16) == 0x11e8;
		free(v);
		free(dv);
		if (!is_edu)
			continue;
		snprintf(path, sizeof(path), "%s/%s/config", dir, e->d_name);
		fd = open(path, O_RDWR);
		if (fd < 0 || pread(fd, cfg, 2, 4) != 2 || pread(fd, &line, 1, 0x3c) != 1) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		line ^= 0x5a;
		if (pwrite(fd, &line, 1, 0x3c) == 1 && pread(fd, &back, 1, 0x3c) == 1)
			writable = back == line;
		line ^= 0x5a;
		if (writable && pwrite(fd, &line, 1, 0x3c) != 1)
			writable = 0;
		close(fd);
		json_array_append_new(devs, json_pack("{s:s,s:i,s:b}", "sbdf", e->d_name,
						      "command", cfg[0] | cfg[1] << 8,
						      "config_writable", writable));
	}
	if (d)
		closedir(d);
	json_object_set_new(out, "dom0_test_devices", devs);
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
	json_object_set_new(xen, "version", sio_json_str(version));
	json_object_set_new(xen, "changeset", sio_json_str(cs));
	json_object_set_new(xen, "cmdline", sio_json_str(cmdline));
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
	json_t *state = json_object();
	console_facts(ctx->xch, out, state);
	host_state(ctx->xch, &pi, cmdline, state);
	if (json_object_get(out, "cpu_model"))
		json_object_set(state, "cpu_model", json_object_get(out, "cpu_model"));
	json_object_set_new(out, "host_state", state);
	dom0_test_devices(out);
	return 0;
}
