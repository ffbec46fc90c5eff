/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "ipibench/ipipaths.h"
#include "ipibench/modes.h"
#include "ipibench/senders.h"
#include "runner/backend.h"
#include "runner/config.h"
#include "runner/util.h"
#include "lib/safeio.h"

struct parse {
	struct config *c;
	const char *p, *end;    /* the text inih has not read yet */
	int line;               /* the line inih is on (1-based) */
	int err_line;           /* the first error's line; 0: none yet */
	char msg[256];          /* the first error */
	int have_host, have_matrix;
	int modes_line, xen_line;
	char xen_specs[CFG_MAX_XEN][256];
	unsigned int nxen;
	json_t *seen;           /* section -> the line of its header */
	json_t *backend_keys;   /* [host] keys of the backend's table -> their line */
	json_t *host_lines;     /* every [host] key -> its line */
	json_t *wl_lines;       /* workload name -> {key -> its line} */
	int matrix_cpus_line;   /* the line of [matrix] cpus; 0: not given */
	/* The line of each [guest] key (guest_keys[]' order); 0: not given */
	int guest_lines[CFG_GUEST_KEYS_MAX];
};

/* The first error, on the line inih is on; parsing stops there. */
static int set_err(struct parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int set_err(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->err_line) {
		ps->err_line = ps->line;
		va_start(ap, fmt);
		vsnprintf(ps->msg, sizeof(ps->msg), fmt, ap);
		va_end(ap);
	}
	return 0;   /* inih: error on this line */
}

/*
 * A [host] key: one of every backend (host_common_settings[]) at once; any
 * other is a key of some backend's table, checked in finish() against the
 * one chosen (backend may come last).
 */
static int host_key(struct parse *ps, const char *k, const char *v)
{
	const struct key *s;
	char err[256];

	json_object_set_new(ps->host_lines, k, json_integer(ps->line));
	if ((s = keys_find(host_common_settings, k)))
		return keys_set(s, &ps->c->host, v, ps, err, sizeof(err)) ? set_err(ps, "%s", err) : 1;
	if (!host_setting_owners(err, sizeof(err), k)[0])
		return set_err(ps, "unknown key '%s' in [host]", k);
	json_object_set_new(ps->backend_keys, k, json_integer(ps->line));
	return 1;
}

/*
 * The backend's own keys, by its table, into its settings struct; an error
 * is said on the key's line.  0, or -1 with err set.
 */
static int backend_settings(const char *file, struct parse *ps, char *err, size_t errlen)
{
	struct config *c = ps->c;
	const struct host_backend_ops *be = host_backend_find(c->host.backend);
	json_t *host = json_object_get(c->sections, "host"), *line;
	const char *k;
	char e[256], owners[128], names[128];

	if (!(c->host.settings = host_settings_new(be))) {
		snprintf(err, errlen, "%s: out of memory", file);
		return -1;
	}
	json_object_foreach(ps->backend_keys, k, line) {
		const struct key *s = keys_find(be->settings, k);
		const char *v = json_string_value(json_object_get(host, k));

		if (!s)
			snprintf(e, sizeof(e), "%s = %s: a key of the %s backend, not of backend = %s",
				 k, sio_shown(owners, sizeof(owners), v),
				 host_setting_owners(names, sizeof(names), k), be->name);
		if (!s || keys_set(s, c->host.settings, v, ps, e, sizeof(e))) {
			snprintf(err, errlen, "%s:%d: %s", file, (int)json_integer_value(line), e);
			return -1;
		}
	}
	return 0;
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* The items of a list value (keys_list_split()'s arrays). */
#define LIST_ITEMS(buf, items) char buf[KEYS_LIST_MAX], *items[KEYS_LIST_MAX / 2 + 1]

/* [matrix]'s keys that read a list (matrix_keys[] below; CTX: the parse). */
static int mk_modes(const struct key *k, void *base, const char *v, void *ctx, char *err,
		    size_t errlen)
{
	struct config *c = base;
	struct parse *ps = ctx;
	LIST_ITEMS(buf, items);
	size_t n;

	if (!(n = keys_list_split(k->key, v, buf, items, err, errlen)))
		return -1;
	c->matrix.nmodes = 0;
	for (size_t j = 0; j < n; j++) {
		const char *m = items[j];

		if (!mode_genapic(m))
			return snprintf(err, errlen, "modes: '%s' is not a mode (%s)", m, mode_list()), -1;
		for (unsigned int i = 0; i < c->matrix.nmodes; i++)
			if (!strcmp(c->matrix.modes[i], m))
				return snprintf(err, errlen, "modes: '%s' is listed twice", m), -1;
		if (c->matrix.nmodes == CFG_MAX_MODES)
			return snprintf(err, errlen, "modes: too many modes in '%s'", v), -1;
		snprintf(c->matrix.modes[c->matrix.nmodes++], 16, "%s", m);
	}
	c->matrix.modes_given = 1;
	if (ps)
		ps->modes_line = ps->line;
	return 0;
}

/* The build names, resolved in finish(): whether each is built is not a syntax matter. */
static int mk_xen(const struct key *k, void *base, const char *v, void *ctx, char *err,
		  size_t errlen)
{
	struct parse *ps = ctx;
	LIST_ITEMS(buf, items);
	size_t n;

	(void)base;
	if (!(n = keys_list_split(k->key, v, buf, items, err, errlen)) || !ps)
		return n ? 0 : -1;
	ps->nxen = 0;
	for (size_t j = 0; j < n; j++) {
		const char *x = items[j];

		if (ps->nxen == CFG_MAX_XEN)
			return snprintf(err, errlen, "xen: at most %d builds", CFG_MAX_XEN), -1;
		if (strlen(x) >= sizeof(ps->xen_specs[0]))
			return snprintf(err, errlen, "xen: a build name longer than %zu bytes",
					sizeof(ps->xen_specs[0]) - 1), -1;
		for (unsigned int i = 0; i < ps->nxen; i++)
			if (!strcmp(ps->xen_specs[i], x))
				return snprintf(err, errlen, "xen: %s is listed twice", x), -1;
		snprintf(ps->xen_specs[ps->nxen++], sizeof(ps->xen_specs[0]), "%s", x);
	}
	ps->xen_line = ps->line;
	return 0;
}

static int mk_cpus(const struct key *k, void *base, const char *v, void *ctx, char *err,
		   size_t errlen)
{
	struct config *c = base;
	struct parse *ps = ctx;
	LIST_ITEMS(buf, items);
	size_t n;
	long x;

	if (ps)
		ps->matrix_cpus_line = ps->line;
	if (!(n = keys_list_split(k->key, v, buf, items, err, errlen)))
		return -1;
	c->matrix.ncpus = 0;
	for (size_t j = 0; j < n; j++) {
		if (c->matrix.ncpus == CFG_MAX_SWEEP)
			return snprintf(err, errlen, "cpus: at most 16 CPU counts in '%s'", v), -1;
		if (keys_parse_int("cpus", items[j], 10, 1, 4096, &x, err, errlen))
			return -1;
		for (unsigned int i = 0; i < c->matrix.ncpus; i++)
			if (c->matrix.cpus[i] == (unsigned int)x)
				return snprintf(err, errlen, "cpus: %s is listed twice", items[j]), -1;
		c->matrix.cpus[c->matrix.ncpus++] = (unsigned int)x;
	}
	return 0;
}

/* [matrix] order = NAME: enum cfg_order's names. */
static const char *const order_names[] = {
	[ORDER_INTERLEAVED] = "interleaved", [ORDER_RANDOMIZED] = "randomized",
	[ORDER_BLOCKED] = "blocked", NULL
};

/* [matrix]'s keys, over struct config. */
static const struct key matrix_keys[] = {
	{ "modes", KEY_LIST, 0, 0, NULL, "the x2APIC destination modes to boot, in this order",
	  .cb = mk_modes, .doc_range = "physical, cluster, mixed (each once)",
	  .doc_def = "every mode of the build" },
	{ "repetitions", KEY_UINT, 1, 1000, "1",
	  "boots of each mode (each boot runs every workload once)",
	  KEY_FIELD(struct config, matrix.repetitions) },
	{ "order", KEY_CHOICE, 0, 0, "interleaved",
	  "the order of the boots: mode by mode in each repetition (interleaved),\n"
	  "a seeded shuffle (randomized) or every repetition of a mode together (blocked)",
	  .flags = KEY_F_INDEX, .choices = order_names, KEY_FIELD(struct config, matrix.order) },
	{ "seed", KEY_UINT, 0, 0x7fffffff, "0",
	  "seed of order = randomized and of the paired senders' order",
	  KEY_FIELD(struct config, matrix.seed) },
	{ "cpus", KEY_LIST, 0, 0, NULL, "a CPU sweep: one result set per CPU count, in DIR/cN/",
	  .cb = mk_cpus, .doc_range = "1 to 4096 each, at most 16, each once",
	  .doc_def = "none: [host] cpus" },
	{ "xen", KEY_LIST, 0, 0, NULL,
	  "hypervisor builds (runner/xenbuild.h): one result set per build in\n"
	  "DIR/xen-LABEL/ when there are several",
	  .cb = mk_xen, .doc_range = "version names (4.17, 4.20) or paths, at most " STR(CFG_MAX_XEN),
	  .doc_def = "the default build (build/xen)" },
	{ NULL },
};

/* A key of [matrix] or [guest] by its table TAB over BASE. */
static int table_key(struct parse *ps, const char *section, const struct key *tab, void *base,
		     const char *k, const char *v)
{
	const struct key *key = keys_find(tab, k);
	char err[256];

	if (!key)
		return set_err(ps, "unknown key '%s' in [%s]", k, section);
	return keys_set(key, base, v, ps, err, sizeof(err)) ? set_err(ps, "%s", err) : 1;
}

/* The kernel argument of each IPI path: the ipibench initramfs's /init
 * (guest/init) then has the ipbipi module send its IPIs by the
 * kernel's smp_ops (event channels in a Xen guest) or by apic->send_IPI
 * (x2APIC ICR writes to Xen's emulated local APIC).  A PVH guest has no
 * kernel switch for its own IPIs: xen_nopv and nopv are HVM-only, and
 * xen_no_vector_callback takes the event channels' way in away too. */
#define IPI_ARG "ipb.ipi="
static const struct {
	const char *name;	/* ipi_path = NAME */
	const char *arg;	/* the guest kernel's argument */
} ipi_paths[] = {
	[IPI_PATH_EVTCHN] = { IPIBENCH_IPI_PATH_EVTCHN, IPI_ARG "kernel" },
	[IPI_PATH_APIC] = { IPIBENCH_IPI_PATH_APIC, IPI_ARG "apic" },
};

const char *cfg_ipi_path_name(enum cfg_ipi_path p)
{
	return ipi_paths[p].name;
}

/* type = NAME: xl's type; an HVM guest boots its kernel through the device
 * model (SeaBIOS, hvmloader) with its console on the emulated UART.
 * held: the guest does not power itself off after IPB-GUEST-DONE
 * (guest/init's ipb.hold) and the run ends by xl destroy: the emulated
 * test host went down when an HVM guest powered itself off
 * (docs/guests.md).  The one switch of that end. */
#define HOLD_ARG "ipb.hold"
static const char *const guest_type_names[] = { [GUEST_PVH] = "pvh", [GUEST_HVM] = "hvm", NULL };
static const struct {
	const char *console;	/* the kernel's console= */
	int held;
} guest_types[] = {
	[GUEST_PVH] = { NULL, 0 },
	[GUEST_HVM] = { "ttyS0", 1 },
};

const char *cfg_guest_type_name(enum cfg_guest_type t)
{
	return guest_type_names[t];
}

/* msi_path = NAME: the HVM guest kernel's argument, and the IPI path that
 * goes with it (xen_nopv takes all of Xen's paths away, the IPIs' too). */
#define NOPV_ARG "xen_nopv"
static const struct {
	const char *name;
	const char *arg;
	enum cfg_ipi_path ipi;
} msi_paths[] = {
	[MSI_PATH_PIRQ] = { IPIBENCH_MSI_PATH_PIRQ, NULL, IPI_PATH_EVTCHN },
	[MSI_PATH_APIC] = { IPIBENCH_MSI_PATH_APIC, NOPV_ARG, IPI_PATH_APIC },
};

const char *cfg_msi_path_name(enum cfg_msi_path p)
{
	return msi_paths[p].name;
}

enum cfg_ipi_path cfg_msi_path_ipi(enum cfg_msi_path p)
{
	return msi_paths[p].ipi;
}

/* nic = MODEL: qemu-system-xen's device (xl's vif model=).  Only models
 * with MSI measure the MSI paths; the others are named to say why not. */
#define NIC_ARG "ipb.nic="
static const struct {
	const char *name;
	const char *no_msi;	/* why it cannot be used; NULL: it can */
} nic_models[] = {
	{ "e1000e", NULL },
	{ "e1000", "the 82540EM has no MSI (INTx only)" },
	{ "rtl8139", "the RTL8139 has no MSI (INTx only)" },
};

/* ---- [guest]'s keys: one table (guest_keys[]) ------------------------------- */

/* The guest kinds a key belongs to (struct key's .only). */
enum {
	GK_PVH = 1 << 0,        /* type = pvh */
	GK_HVM = 1 << 1,        /* type = hvm without a NIC */
	GK_NIC = 1 << 2,        /* type = hvm with nic = MODEL: the NIC load's runs */
	GK_ANY = GK_PVH | GK_HVM | GK_NIC,
};

/* The [guest] keys that read their value themselves (CTX: the parse, or
 * NULL for a default); BASE is the struct cfg_guest. */
static int gk_nic(const struct key *k, void *base, const char *v, void *ctx, char *err,
		  size_t errlen)
{
	char q[128];

	(void)ctx;
	for (size_t i = 0; i < sizeof(nic_models) / sizeof(nic_models[0]); i++)
		if (!strcmp(v, nic_models[i].name)) {
			if (nic_models[i].no_msi)
				return snprintf(err, errlen, "%s = %s: %s; expected %s", k->key, v,
						nic_models[i].no_msi, nic_models[0].name), -1;
			((struct cfg_guest *)base)->nic = nic_models[i].name;
			return 0;
		}
	snprintf(err, errlen, "%s = '%s': expected %s", k->key, sio_shown(q, sizeof(q), v),
		 nic_models[0].name);
	return -1;
}

/* The NIC models a config may name (nic_models[] without no_msi), for the docs. */
static const char *const nic_usable[] = { "e1000e", NULL };

/*
 * A list of path names (ipi_path, msi_path): one guest run per path, in
 * the order given (the seed's before and after first).  NAME(i) of COUNT
 * names; the indexes into OUT (*N of them).  0, or -1 with err.
 */
static int path_list(const char *k, const char *v, const char *(*name)(unsigned int),
		     unsigned int count, unsigned int *out, unsigned int *nout, char *err,
		     size_t errlen)
{
	LIST_ITEMS(buf, items);
	char q[128];
	size_t n = keys_list_split(k, v, buf, items, err, errlen);
	unsigned int i;

	if (!n)
		return -1;
	*nout = 0;
	for (size_t j = 0; j < n; j++) {
		for (i = 0; i < count && strcmp(items[j], name(i)); i++)
			;
		if (i == count)
			return snprintf(err, errlen, "%s = '%s': expected %s or %s (or both)", k,
					sio_shown(q, sizeof(q), items[j]), name(0), name(1)), -1;
		for (unsigned int m = 0; m < *nout; m++)
			if (out[m] == i)
				return snprintf(err, errlen, "%s: %s is listed twice", k, items[j]), -1;
		out[(*nout)++] = i;
	}
	return 0;
}

static const char *msi_name(unsigned int i)
{
	return msi_paths[i].name;
}

static int gk_msi_path(const struct key *k, void *base, const char *v, void *ctx, char *err,
		       size_t errlen)
{
	struct cfg_guest *g = base;
	unsigned int idx[sizeof(msi_paths) / sizeof(msi_paths[0])], n;

	(void)ctx;
	if (path_list(k->key, v, msi_name, sizeof(msi_paths) / sizeof(msi_paths[0]), idx, &n, err,
		      errlen))
		return -1;
	g->nmsi = n;
	for (unsigned int m = 0; m < n; m++)
		g->msi_paths[m] = (enum cfg_msi_path)idx[m];
	g->msi_path = g->msi_paths[0];
	return 0;
}

static int gk_cmdline(const struct key *k, void *base, const char *v, void *ctx, char *err,
		      size_t errlen)
{
	struct cfg_guest *g = base;
	char q[128], q2[160];

	(void)ctx;
	/* Into xl's extra = "...": no quote or backslash; inih has stripped
	 * the spaces around it. */
	if (strlen(v) > CFG_GUEST_CMDLINE_MAX)
		snprintf(err, errlen, "%s: longer than %d bytes", k->key, CFG_GUEST_CMDLINE_MAX);
	else if (strpbrk(v, "\"\\"))
		snprintf(err, errlen, "%s: no '\"' or '\\' (it goes into xl's extra = \"...\")", k->key);
	else if (strstr(v, IPI_ARG))
		snprintf(err, errlen, "%s: %s... is ipi_path's to give", k->key, IPI_ARG);
	else if (strstr(v, NOPV_ARG))
		snprintf(err, errlen, "%s: %s is msi_path's to give (msi_path = %s)", k->key,
			 NOPV_ARG, msi_paths[MSI_PATH_APIC].name);
	else if (strstr(v, NIC_ARG))
		snprintf(err, errlen, "%s: %s... is nic_address's to give", k->key, NIC_ARG);
	else if (cmdline_apic_option(v, q, sizeof(q)))
		snprintf(err, errlen, "%s: %s: [matrix] modes chooses the x2APIC mode (each run "
			 "records the one it boots)", k->key, sio_shown(q2, sizeof(q2), q));
	else if (strstr(v, HOLD_ARG))
		snprintf(err, errlen, "%s: %s is the guest type's to give (an HVM run ends by "
			 "xl destroy)", k->key, HOLD_ARG);
	else
		return snprintf(g->cmdline, sizeof(g->cmdline), "%s", v), 0;
	return -1;
}

static const char *ipi_name(unsigned int i)
{
	return ipi_paths[i].name;
}

static int gk_ipi_path(const struct key *k, void *base, const char *v, void *ctx, char *err,
		       size_t errlen)
{
	struct cfg_guest *g = base;
	unsigned int idx[sizeof(ipi_paths) / sizeof(ipi_paths[0])], n;

	(void)ctx;
	if (path_list(k->key, v, ipi_name, sizeof(ipi_paths) / sizeof(ipi_paths[0]), idx, &n, err,
		      errlen))
		return -1;
	g->npaths = n;
	for (unsigned int m = 0; m < n; m++)
		g->paths[m] = (enum cfg_ipi_path)idx[m];
	g->ipi_path = g->paths[0];
	return 0;
}

/* kernel, ramdisk: a path on this host into the key's field. */
static int gk_path(const struct key *k, void *base, const char *v, void *ctx, char *err,
		   size_t errlen)
{
	(void)ctx;
	if (!*v || strlen(v) >= k->size)
		return snprintf(err, errlen, "%s: a path of 1 to %zu bytes", k->key, k->size - 1), -1;
	if (strpbrk(v, "\"\\"))
		return snprintf(err, errlen, "%s: no '\"' or '\\' (it goes into xl's %s = \"...\")",
				k->key, k->key), -1;
	snprintf((char *)base + k->offset, k->size, "%s", v);
	return 0;
}

/* paging = NAME: its index is struct cfg_guest's hap. */
static const char *const paging_names[] = { "shadow", "hap", NULL };

#define NO_NIC "no emulated NIC (type = hvm, nic = e1000e)"
#define GUEST_FIELD(f) KEY_FIELD(struct cfg_guest, f)

/*
 * [guest]'s keys, over struct cfg_guest: the guest kinds that have each
 * (.only; given to another, it is refused on its line with .not_here,
 * after KEY, or KEY = VALUE with KEY_F_SHOW_VALUE) and its help for
 * `run --list` ('\n': a further line).
 */
static const struct key guest_keys[] = {
	{ "type", KEY_CHOICE, 0, 0, "pvh",
	  "the guest's type: pvh, or hvm (through Debian's device model; an HVM run\n"
	  "ends by xl destroy after the guest's IPB-GUEST-DONE: ipb.hold,\n"
	  "docs/results-schema.md)",
	  .flags = KEY_F_INDEX, .choices = guest_type_names, GUEST_FIELD(type), .only = GK_ANY },
	{ "vcpus", KEY_UINT, 1, CFG_GUEST_VCPUS_MAX, STR(CFG_GUEST_VCPUS_DEFAULT), "the guest's vCPUs",
	  GUEST_FIELD(vcpus), .only = GK_ANY },
	{ "memory", KEY_UINT, CFG_GUEST_MEMORY_MIN, CFG_GUEST_MEMORY_MAX,
	  STR(CFG_GUEST_MEMORY_DEFAULT), "the guest's memory, MiB", GUEST_FIELD(memory),
	  .only = GK_ANY },
	{ "cmdline", KEY_TEXT, 0, 0, "", "the guest kernel's extra arguments", .cb = gk_cmdline,
	  .only = GK_ANY, .doc_range = "at most " STR(CFG_GUEST_CMDLINE_MAX) " bytes, no '\"' or "
	  "'\\', no x2APIC option (x2apic_phys, nox2apic, apic=)" },
	{ "ipi_path", KEY_LIST, 0, 0, IPIBENCH_IPI_PATH_EVTCHN,
	  "the guest workload's IPIs (guest/init's ipbipi module), a list:\n"
	  "evtchn (the kernel's, event channels), apic (x2APIC ICR writes);\n"
	  "one guest run per path",
	  .cb = gk_ipi_path, .only = GK_PVH | GK_HVM,
	  .not_here = "a guest with a NIC runs the NIC load, not ipbipi: its runs are msi_path's",
	  .doc_range = "evtchn, apic" },
	{ "paging", KEY_CHOICE, 0, 0, "shadow",
	  "the guest's paging: shadow, or hap (nested paging; refused on\n"
	  "QEMU's CPU models, docs/guests.md)",
	  .flags = KEY_F_INDEX, .choices = paging_names, GUEST_FIELD(hap), .only = GK_ANY },
	{ "kernel", KEY_TEXT, 0, 0, CFG_GUEST_KERNEL_DEFAULT,
	  "the guest kernel on this host (an HVM guest's is a bzImage:\n"
	  "build/guest/vmlinuz)", .cb = gk_path, GUEST_FIELD(kernel), .only = GK_ANY,
	  .doc_type = "path", .doc_range = "a file on this host" },
	{ "ramdisk", KEY_TEXT, 0, 0, CFG_GUEST_RAMDISK_DEFAULT, "its initramfs", .cb = gk_path,
	  GUEST_FIELD(ramdisk), .only = GK_ANY, .doc_type = "path",
	  .doc_range = "a file on this host" },
	{ "trace_mask", KEY_HEX, 1, 0xffffffffL, STR(CFG_GUEST_TRACE_MASK_DEFAULT),
	  "xentrace -e of the HVM recording (the scheduler class\n"
	  STR(CFG_GUEST_SCHED_MASK) " is recorded before it)", GUEST_FIELD(trace_mask),
	  .only = GK_ANY },
	{ "trace_secs", KEY_UINT, 1, 600, STR(CFG_GUEST_TRACE_SECS_DEFAULT),
	  "xentrace -T of each recording, seconds", GUEST_FIELD(trace_secs), .only = GK_ANY },
	{ "timeout", KEY_UINT, 30, 86400, STR(CFG_GUEST_TIMEOUT_DEFAULT),
	  "seconds from xl create to the workload's end", GUEST_FIELD(timeout), .only = GK_ANY },
	{ "nic", KEY_CHOICE, 0, 0, NULL,
	  "the emulated NIC's model (MSI-X; none: no NIC); on the bridge " CFG_GUEST_BRIDGE ",\n"
	  "which ipibench makes (and removes) when it is not there",
	  .flags = KEY_F_SHOW_VALUE, .choices = nic_usable, .cb = gk_nic, .only = GK_HVM | GK_NIC,
	  .not_here = "a pvh guest has no device model to emulate it (type = hvm)" },
	{ "nic_address", KEY_IPV4, 0, 0, CFG_GUEST_NIC_ADDRESS_DEFAULT,
	  "the guest's IPv4 address on the bridge", GUEST_FIELD(nic_address), .only = GK_NIC,
	  .not_here = NO_NIC },
	{ "dom0_address", KEY_IPV4, 0, 0, NULL,
	  "dom0's on the bridge (" CFG_GUEST_DOM0_ADDRESS_DEFAULT " for "
	  CFG_GUEST_NIC_ADDRESS_DEFAULT ")", GUEST_FIELD(dom0_address), .only = GK_NIC,
	  .not_here = NO_NIC, .doc_range = "in nic_address's /" STR(CFG_GUEST_NIC_PREFIX) ", not it",
	  .doc_def = "the first of nic_address's /" STR(CFG_GUEST_NIC_PREFIX) },
	{ "msi_path", KEY_LIST, 0, 0, IPIBENCH_MSI_PATH_PIRQ,
	  "the NIC's MSIs, a list: pirq (event channels), apic (" NOPV_ARG ": the\n"
	  "emulated local APIC delivers them); with a NIC one guest run per path",
	  .cb = gk_msi_path, .only = GK_HVM | GK_NIC, .not_here = NOPV_ARG " is HVM-only (type = hvm)",
	  .doc_range = "pirq, apic" },
	{ "ping_secs", KEY_UINT, 5, 3600, STR(CFG_GUEST_PING_SECS_DEFAULT),
	  "ping -f's -w from dom0 to the guest, through both recordings, seconds\n"
	  "(stopped when they end)", GUEST_FIELD(ping_secs), .only = GK_NIC, .not_here = NO_NIC },
	{ "ab_secs", KEY_UINT, 1, 3600, STR(CFG_GUEST_AB_SECS_DEFAULT),
	  "ab -t against the guest's httpd after the recordings, -c 1, seconds",
	  GUEST_FIELD(ab_secs), .only = GK_NIC, .not_here = NO_NIC },
	{ NULL },
};
#define NGUEST_KEYS (sizeof(guest_keys) / sizeof(guest_keys[0]) - 1)
_Static_assert(NGUEST_KEYS <= CFG_GUEST_KEYS_MAX, "struct parse's guest_lines[] is too small");

static int guest_key(struct parse *ps, const char *k, const char *v)
{
	const struct key *key = keys_find(guest_keys, k);

	if (key)
		ps->guest_lines[key - guest_keys] = ps->line;
	return table_key(ps, "guest", guest_keys, &ps->c->guest, k, v);
}

/* The guest's kind, GK_*. */
static unsigned int guest_kind(const struct cfg_guest *g)
{
	return g->type == GUEST_PVH ? GK_PVH : g->nic ? GK_NIC : GK_HVM;
}

/* The line of [guest] KEY, 0 when it was not given. */
static int guest_line(const struct parse *ps, const char *key)
{
	const struct key *k = keys_find(guest_keys, key);

	return k ? ps->guest_lines[k - guest_keys] : 0;
}

/* dom0's address and the guest's: two of one /CFG_GUEST_NIC_PREFIX; dom0's
 * by default the first of the guest's (the second when that is the guest's). */
static int guest_check_addresses(const char *file, const struct parse *ps, char *err,
				 size_t errlen)
{
	struct cfg_guest *g = &ps->c->guest;
	struct in_addr a, b;
	uint32_t mask = ~0u << (32 - CFG_GUEST_NIC_PREFIX);
	int line = guest_line(ps, "dom0_address");

	if (line == 0)
		line = guest_line(ps, "nic_address");
	if (inet_pton(AF_INET, g->nic_address, &a) != 1)
		return 0;   /* checked where read */
	if (!g->dom0_address[0]) {
		uint32_t net = ntohl(a.s_addr) & mask;

		b.s_addr = htonl(net + 1 == ntohl(a.s_addr) ? net + 2 : net + 1);
		inet_ntop(AF_INET, &b, g->dom0_address, sizeof(g->dom0_address));
		return 0;
	}
	if (inet_pton(AF_INET, g->dom0_address, &b) != 1)
		return 0;
	if (a.s_addr == b.s_addr || (ntohl(a.s_addr) & mask) != (ntohl(b.s_addr) & mask)) {
		snprintf(err, errlen, "%s:%d: dom0_address %s and nic_address %s: expected two "
			 "addresses of one /%d", file, line, g->dom0_address, g->nic_address,
			 CFG_GUEST_NIC_PREFIX);
		return -1;
	}
	return 0;
}

/*
 * Each key given belongs to the guest's kind (type and nic may come in
 * any order, so this is checked when all is read): 0, or -1 with
 * FILE:LINE: of the first key that does not, in err.
 */
static int guest_check(const char *file, const struct parse *ps, char *err, size_t errlen)
{
	struct cfg_guest *g = &ps->c->guest;
	unsigned int kind = guest_kind(g);
	size_t bad = NGUEST_KEYS;

	/* paging = hap's line: its refusal on a host without it names it. */
	g->hap_line = g->hap ? guest_line(ps, "paging") : 0;
	for (size_t i = 0; i < NGUEST_KEYS; i++)
		if (ps->guest_lines[i] && !(guest_keys[i].only & kind) &&
		    (bad == NGUEST_KEYS || ps->guest_lines[i] < ps->guest_lines[bad]))
			bad = i;
	if (bad == NGUEST_KEYS)
		return kind == GK_NIC ? guest_check_addresses(file, ps, err, errlen) : 0;
	const char *v = json_string_value(json_object_get(json_object_get(ps->c->sections, "guest"),
							  guest_keys[bad].key));
	char q[128];

	snprintf(err, errlen, "%s:%d: %s%s%s: %s", file, ps->guest_lines[bad], guest_keys[bad].key,
		 guest_keys[bad].flags & KEY_F_SHOW_VALUE ? " = " : "",
		 guest_keys[bad].flags & KEY_F_SHOW_VALUE ? sio_shown(q, sizeof(q), v ? v : "") : "",
		 guest_keys[bad].not_here);
	return -1;
}

void config_guest_help(FILE *f)
{
	for (const struct key *k = guest_keys; k->key; k++) {
		const char *kinds = k->only == GK_ANY ? "" :
			k->only == GK_NIC ? "hvm with a nic: " :
			k->only == (GK_HVM | GK_NIC) ? "hvm: " : "pvh, hvm without a nic: ";
		const char *p = k->help;
		struct key_doc d;

		for (int first = 1; *p; first = 0) {
			size_t n = strcspn(p, "\n");

			fprintf(f, "    %-12s %s%.*s\n", first ? k->key : "", first ? kinds : "", (int)n, p);
			p += n + (p[n] == '\n');
		}
		keys_doc(k, &d);
		fprintf(f, "    %-12s %s (default %s)\n", "", d.range, d.def);
	}
}

int cfg_guest_held(const struct cfg_guest *g)
{
	return guest_types[g->type].held;
}

int cfg_guest_nic_runs(const struct cfg_guest *g)
{
	return guest_kind(g) == GK_NIC;
}

/* An HVM guest through Debian's device model, direct kernel boot (no disk). */
static int guest_xl_hvm(const struct cfg_guest *g, const char *name, const char *kernel,
			const char *ramdisk, char *buf, size_t len)
{
	const char *ma = msi_paths[g->msi_path].arg;
	char nic[64] = "", vif[128] = "";

	if (g->nic) {
		snprintf(nic, sizeof(nic), " xen_emul_unplug=never %s%s", NIC_ARG,
			 g->nic_address[0] ? g->nic_address : CFG_GUEST_NIC_ADDRESS_DEFAULT);
		snprintf(vif, sizeof(vif), "vif = [ 'model=%s,bridge=%s' ]\n", g->nic,
			 CFG_GUEST_BRIDGE);
	}
	int n = snprintf(buf, len,
			 "type = \"%s\"\n"
			 "name = \"%s\"\n"
			 "device_model_version = \"qemu-xen\"\n"
			 "kernel = \"%s\"\n"
			 "ramdisk = \"%s\"\n"
			 "cmdline = \"console=%s%s%s%s%s%s %s%s\"\n"
			 "memory = %u\n"
			 "vcpus = %u\n"
			 "hap = %d\n"
			 "serial = \"pty\"\n"
			 "vnc = 0\n"
			 "vga = \"none\"\n"
			 "%s"
			 "on_poweroff = \"destroy\"\n"
			 "on_reboot = \"destroy\"\n"
			 "on_crash = \"destroy\"\n",
			 guest_type_names[GUEST_HVM], name, kernel, ramdisk,
			 guest_types[GUEST_HVM].console, nic, ma ? " " : "", ma ? ma : "",
			 g->cmdline[0] ? " " : "", g->cmdline, ipi_paths[g->ipi_path].arg,
			 guest_types[GUEST_HVM].held ? " " HOLD_ARG : "", g->memory, g->vcpus, g->hap, vif);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

int config_guest_xl(const struct cfg_guest *g, const char *name, const char *kernel,
		    const char *ramdisk, char *buf, size_t len)
{
	if (g->type == GUEST_HVM)
		return guest_xl_hvm(g, name, kernel, ramdisk, buf, len);
	const char *pa = ipi_paths[g->ipi_path].arg;
	int n = snprintf(buf, len,
			 "type = \"pvh\"\n"
			 "name = \"%s\"\n"
			 "kernel = \"%s\"\n"
			 "ramdisk = \"%s\"\n"
			 "extra = \"%s%s%s\"\n"
			 "memory = %u\n"
			 "vcpus = %u\n"
			 "hap = %d\n"
			 "on_poweroff = \"destroy\"\n"
			 "on_reboot = \"destroy\"\n"
			 "on_crash = \"destroy\"\n",
			 name, kernel, ramdisk, g->cmdline, g->cmdline[0] ? " " : "", pa,
			 g->memory, g->vcpus, g->hap);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

static struct cfg_workload *workload_of(struct parse *ps, const char *name)
{
	struct config *c = ps->c;

	for (unsigned int i = 0; i < c->nwl; i++)
		if (!strcmp(c->wl[i].name, name))
			return &c->wl[i];
	if (c->nwl == CFG_MAX_WORKLOADS)
		return NULL;
	struct cfg_workload *w = &c->wl[c->nwl++];
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->params = json_object();
	return w;
}

static int workload_key(struct parse *ps, const char *name, const char *k, const char *v)
{
	struct cfg_workload *w;
	const struct key *p;
	char err[256];
	json_t *val;

	if (!sio_name_ok(name) || strlen(name) > CFG_WL_NAME_MAX)
		return set_err(ps, "[workload:%s]: not a workload name", name);
	if (!(w = workload_of(ps, name)))
		return set_err(ps, "too many workloads (at most 32)");
	if (!strcmp(k, "type")) {
		if (w->type)
			return set_err(ps, "[workload:%s]: type given twice", name);
		if (!(w->type = wl_type_find(v)))
			return set_err(ps, "type = '%s': unknown workload type (see 'ipibench run --list')", v);
		return 1;
	}
	if (!w->type)
		return set_err(ps, "[workload:%s]: 'type' must come first", name);
	if (!(p = wl_param_find(w->type, k)))
		return set_err(ps, "unknown key '%s' for a workload of type %s", k, w->type->type);
	if (!(val = keys_json(p, v, err, sizeof(err))))
		return set_err(ps, "%s", err);
	json_object_set_new(w->params, k, val);
	if (!json_object_get(ps->wl_lines, name))
		json_object_set_new(ps->wl_lines, name, json_object());
	json_object_set_new(json_object_get(ps->wl_lines, name), k, json_integer(ps->line));
	return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *ps = user;
	json_t *sec = json_object_get(ps->c->sections, section);

	if (!name)   /* a section with no keys yet (INI_CALL_HANDLER_ON_NEW_SECTION) */
		return 1;
	if (!*section)
		return set_err(ps, "'%s' before any [section]", name);
	if (!sec) {  /* the reader has checked and recorded every header */
		char q[128];
		return set_err(ps, "unknown section [%s]", sio_shown(q, sizeof(q), section));
	}
	if (json_object_get(sec, name))
		return set_err(ps, "duplicate key '%s' in [%s]", name, section);
	json_object_set_new(sec, name, json_string(value));
	if (!strcmp(section, "host"))
		return host_key(ps, name, value);
	if (!strcmp(section, "matrix"))
		return table_key(ps, section, matrix_keys, ps->c, name, value);
	if (!strncmp(section, "workload:", 9))
		return workload_key(ps, section + 9, name, value);
	if (!strcmp(section, "guest"))
		return guest_key(ps, name, value);
	return set_err(ps, "unknown section [%s]", section);
}

/*
 * A "[NAME]" line (S..E, S at the '['): the sections ipibench knows, each
 * once, with names inih keeps whole.  0, or -1 with the error set.
 */
static int section_line(struct parse *ps, const char *s, const char *e)
{
	const char *close = memchr(s, ']', (size_t)(e - s)), *rest;
	char name[CFG_SECTION_MAX + 1], q[128];
	size_t n;
	json_t *first;

	if (!close)
		return set_err(ps, "'[' without ']'"), -1;
	for (rest = close + 1; rest < e && isspace((unsigned char)*rest); rest++)
		;
	if (rest < e && *rest != ';')
		return set_err(ps, "text after the section header"), -1;
	n = (size_t)(close - s - 1);
	if (n > CFG_SECTION_MAX)
		return set_err(ps, "section name of %zu bytes: at most %d (inih cuts longer ones)",
			       n, CFG_SECTION_MAX), -1;
	memcpy(name, s + 1, n);
	name[n] = '\0';   /* no NUL inside: read_line refused it */
	if (!strncmp(name, "workload:", 9)) {
		if (!sio_name_ok(name + 9))
			return set_err(ps, "[workload:%s]: a workload name is letters, digits, '.', "
				       "'_' and '-' (a letter or digit first), no '..'",
				       sio_shown(q, sizeof(q), name + 9)), -1;
	} else if (strcmp(name, "host") && strcmp(name, "matrix") && strcmp(name, "guest")) {
		return set_err(ps, "unknown section [%s] (expected [host], [matrix], [guest] or "
			       "[workload:NAME])", sio_shown(q, sizeof(q), name)), -1;
	}
	if ((first = json_object_get(ps->seen, name)))
		return set_err(ps, "[%s] again (first at line %d)", name,
			       (int)json_integer_value(first)), -1;
	json_object_set_new(ps->seen, name, json_integer(ps->line));
	json_object_set_new(ps->c->sections, name, json_object());
	if (!strcmp(name, "host"))
		ps->have_host = 1;
	if (!strcmp(name, "matrix"))
		ps->have_matrix = 1;
	if (!strcmp(name, "guest"))
		ps->c->guest.given = 1;
	return 0;
}

/*
 * The offset of the first byte of S (LEN bytes) that is a control character
 * (C0 but tab, DEL, C1) or not valid UTF-8; LEN when there is none.  Values
 * become JSON strings (results.json's config) and parts of messages.
 */
static size_t bad_char(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		unsigned int c = u[i], need, cp;

		if (c < 0x80) {
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return i;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, cp = c & 0x07;
		else
			return i;
		for (unsigned int k = 1; k <= need; k++) {
			if (i + k >= len || (u[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (u[i + k] & 0x3f);
		}
		if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
			return i;
		i += need + 1;
	}
	return len;
}

/*
 * inih's reader (fgets-like): one whole line of the text per call, so that
 * inih's line numbers are the file's.  inih keeps num - 1 bytes of a line
 * (num is its INI_MAX_LINE: 200 in Debian's build) and cuts longer ones into
 * several "lines"; here a longer comment or blank line is handed over empty,
 * any other is refused.  Section headers are checked here, since inih tells
 * the handler nothing about a section without keys.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct parse *ps = stream;
	const char *line = ps->p, *nl, *s, *e;
	size_t len;

	if (ps->err_line || ps->p >= ps->end || num < 3)
		return NULL;
	nl = memchr(line, '\n', (size_t)(ps->end - line));
	e = nl ? nl : ps->end;
	ps->p = nl ? nl + 1 : ps->end;
	ps->line++;
	if (e > line && e[-1] == '\r')
		e--;
	len = (size_t)(e - line);
	if ((s = memchr(line, '\0', len))) {   /* not text, even in a comment */
		set_err(ps, "NUL byte at byte %zu of the line", (size_t)(s - line) + 1);
		return NULL;
	}
	s = line;
	if (ps->line == 1 && len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	while (s < e && isspace((unsigned char)*s))
		s++;
	if (s == e || *s == ';' || *s == '#') {
		/* blank or a comment: inih ignores it, whatever its length */
		if (len > (size_t)num - 2)
			len = 0;
	} else {
		if (len > (size_t)num - 2) {
			set_err(ps, "line of %zu bytes: at most %d (comments may be longer)", len, num - 2);
			return NULL;
		}
		size_t bad = bad_char(line, len);

		if (bad < len) {
			set_err(ps, "control character or invalid UTF-8 (byte 0x%02x at %zu of the line)",
				(unsigned char)line[bad], bad + 1);
			return NULL;
		}
		if (*s == '[') {
			if (section_line(ps, s, e))
				return NULL;
		} else {
			/* inih ends a value at a ';' after a space (an inline
			 * comment): refused, rather than a value cut short. */
			for (const char *c = s + 1; c < e; c++)
				if ((*c == ';' || *c == '#') && (c[-1] == ' ' || c[-1] == '\t')) {
					set_err(ps, "'%c' after a space at byte %zu: comments go on a "
						"line of their own", *c, (size_t)(c - line) + 1);
					return NULL;
				}
		}
	}
	memcpy(str, line, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static void defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	keys_defaults(host_common_settings, &c->host);
	keys_defaults(matrix_keys, c);
	keys_defaults(guest_keys, &c->guest);
	c->sections = json_object();
}

/* Every build has every mode the config names: 0, or -1 with WHERE: ... in err. */
static int check_build_modes(const struct config *c, const char *where, char *err, size_t errlen)
{
	char e[300];

	if (!c->matrix.modes_given)
		return 0;
	for (unsigned int i = 0; i < c->matrix.nxen; i++)
		for (unsigned int m = 0; m < c->matrix.nmodes; m++)
			if (xen_build_mode_check(&c->matrix.xen[i], c->matrix.modes[m], e, sizeof(e))) {
				snprintf(err, errlen, "%s: modes = %s: %s", where, c->matrix.modes[m], e);
				return -1;
			}
	return 0;
}

/*
 * [matrix] xen, resolved; without it the default build (which need not be
 * built yet: its version is then unknown and every mode allowed).
 */
static int config_builds(const char *file, struct parse *ps, char *err, size_t errlen)
{
	struct config *c = ps->c;
	char e[512], where[300];
	const struct host_backend_ops *be = host_backend_find(c->host.backend);

	c->matrix.nxen = 0;
	if (!ps->nxen) {
		if (xen_build_resolve(NULL, &c->matrix.xen[0], e, sizeof(e))) {
			/* Not built yet: the qemu backend says so when it boots. */
			memset(&c->matrix.xen[0], 0, sizeof(c->matrix.xen[0]));
			snprintf(c->matrix.xen[0].path, sizeof(c->matrix.xen[0].path), "%s/xen/xen",
				 build_dir());
		}
		c->matrix.nxen = 1;
	} else {
		if (!(be->flags & HB_BOOTS_BUILD)) {
			snprintf(err, errlen, "%s:%d: xen: backend = %s runs the hypervisor its host "
				 "booted; a build axis needs a backend that boots a build (qemu)",
				 file, ps->xen_line, be->name);
			return -1;
		}
		if (c->matrix.ncpus && ps->nxen > 1) {
			snprintf(err, errlen, "%s:%d: xen: several builds and a CPU sweep (cpus = ...) "
				 "in one config are not supported: one config per build", file, ps->xen_line);
			return -1;
		}
		for (unsigned int i = 0; i < ps->nxen; i++, c->matrix.nxen++) {
			if (xen_build_resolve(ps->xen_specs[i], &c->matrix.xen[i], e, sizeof(e))) {
				snprintf(err, errlen, "%s:%d: xen = %s: %s", file, ps->xen_line,
					 ps->xen_specs[i], e);
				return -1;
			}
			for (unsigned int j = 0; j < i; j++)
				if (!strcmp(c->matrix.xen[j].label, c->matrix.xen[i].label)) {
					snprintf(err, errlen, "%s:%d: xen: %s and %s are both named %s "
						 "(their folders' names): results could not tell them apart",
						 file, ps->xen_line, ps->xen_specs[j], ps->xen_specs[i],
						 c->matrix.xen[i].label);
					return -1;
				}
		}
	}
	snprintf(where, sizeof(where), "%s:%d", file, ps->modes_line);
	if (check_build_modes(c, where, err, errlen))
		return -1;
	config_use_build(c, 0);
	return 0;
}

int config_set_xen(struct config *c, const char *spec, char *err, size_t errlen)
{
	char e[512], where[300];

	if (xen_build_resolve(spec, &c->matrix.xen[0], e, sizeof(e))) {
		snprintf(err, errlen, "--xen %s: %s", spec, e);
		return -1;
	}
	c->matrix.nxen = 1;
	snprintf(where, sizeof(where), "--xen %s", spec);
	if (check_build_modes(c, where, err, errlen))
		return -1;
	config_use_build(c, 0);
	return 0;
}

void config_use_build(struct config *c, unsigned int i)
{
	const struct xen_build *b = &c->matrix.xen[i];

	c->matrix.build = b;
	if (c->matrix.modes_given)
		return;
	c->matrix.nmodes = 0;
	for (size_t m = 0; m < IPIBENCH_NMODES; m++)
		if (xen_has_mode(b->major, b->minor, ipibench_mode_name(m)))
			snprintf(c->matrix.modes[c->matrix.nmodes++], sizeof(c->matrix.modes[0]), "%s",
				 ipibench_mode_name(m));
}

/* The line of [host] KEY, 0 when it was not given. */
static int host_line(struct parse *ps, const char *key)
{
	return (int)json_integer_value(json_object_get(ps->host_lines, key));
}

/*
 * [host] profile and topology: the profile gives the topology and the
 * CPUs present (unless cpus says otherwise); a topology's slots are
 * maxcpus, and cpus defaults to all of them.  0, or -1 with err set.
 */
static int host_topology(const char *file, struct parse *ps, char *err, size_t errlen)
{
	struct config *c = ps->c;
	const struct topo_profile *p = c->host.profile[0] ? topo_profile_find(c->host.profile) : NULL;
	unsigned int slots;
	char t[96];

	if (p && c->host.has_topo) {
		snprintf(err, errlen, "%s:%d: profile = %s: give a profile or a topology, not both",
			 file, host_line(ps, "profile"), p->name);
		return -1;
	}
	if (p) {
		c->host.topo = p->topo;
		c->host.has_topo = true;
		if (!host_line(ps, "cpus"))
			c->host.cpus = p->cpus;
	}
	if (!c->host.has_topo)
		return 0;
	slots = topo_slots(&c->host.topo);
	topo_format(&c->host.topo, t, sizeof(t));
	if (!host_line(ps, "cpus") && !p)
		c->host.cpus = slots;
	if (c->host.maxcpus && c->host.maxcpus != slots) {
		snprintf(err, errlen, "%s:%d: maxcpus = %u: the topology (%s) has %u CPU slots, "
			 "which are maxcpus (leave maxcpus out, or set cpus below it)", file,
			 host_line(ps, "maxcpus"), c->host.maxcpus, t, slots);
		return -1;
	}
	if (c->host.cpus > slots) {
		snprintf(err, errlen, "%s:%d: cpus = %u: the topology (%s) has %u CPU slots", file,
			 host_line(ps, "cpus"), c->host.cpus, t, slots);
		return -1;
	}
	for (unsigned int i = 0; i < c->matrix.ncpus; i++)
		if (c->matrix.cpus[i] > slots) {
			snprintf(err, errlen, "%s:%d: cpus: %u is more than the topology's %u CPU slots (%s)",
				 file, ps->matrix_cpus_line, c->matrix.cpus[i], slots, t);
			return -1;
		}
	c->host.maxcpus = slots;
	return 0;
}

/*
 * The CPU numbers a config gives (a WL_F_CPU param, a KEY_CPUS list) name
 * CPUs the run has: a CPU param is below the smallest CPU count it boots
 * (cpus, or the sweep's least), a list within the CPU slots (maxcpus:
 * hotplug may bring CPUs up).  Defaults are the workload's.  0, or -1 with
 * FILE:LINE: in err.
 */
static int workload_cpus_check(const char *file, struct parse *ps, char *err, size_t errlen)
{
	const struct config *c = ps->c;
	unsigned int ncpu = c->host.cpus, slots = c->host.maxcpus;

	for (unsigned int i = 0; i < c->matrix.ncpus; i++)
		ncpu = c->matrix.cpus[i] < ncpu || !i ? c->matrix.cpus[i] : ncpu;
	if (c->matrix.ncpus && !c->host.has_topo)
		slots = ncpu + (c->host.maxcpus - c->host.cpus);
	for (unsigned int i = 0; i < c->nwl; i++) {
		json_t *lines = json_object_get(ps->wl_lines, c->wl[i].name), *ln;
		const char *k;

		json_object_foreach(lines, k, ln) {
			const struct key *p = wl_param_find(c->wl[i].type, k);
			const json_t *v = json_object_get(c->wl[i].params, k);
			unsigned char bits[4096 / 8];
			long top = -1;

			if (!p)
				continue;
			if (p->type == KEY_UINT && (p->flags & WL_F_CPU)) {
				if (json_integer_value(v) >= (json_int_t)ncpu) {
					snprintf(err, errlen, "%s:%d: %s = %lld: the run has %u CPUs "
						 "(0 to %u)%s", file, (int)json_integer_value(ln), k,
						 (long long)json_integer_value(v), ncpu, ncpu - 1,
						 c->matrix.ncpus ? " at its sweep's least" : "");
					return -1;
				}
			} else if (p->type == KEY_CPUS && json_is_string(v) &&
				   !keys_cpus_parse(json_string_value(v), bits, 4096)) {
				for (long b = 4095; b >= 0 && top < 0; b--)
					if (bits[b / 8] & (1u << (b % 8)))
						top = b;
				if (top >= (long)slots) {
					snprintf(err, errlen, "%s:%d: %s = %s: CPU %ld, but the run has %u "
						 "CPU slots (0 to %u)", file, (int)json_integer_value(ln), k,
						 json_string_value(v), top, slots, slots - 1);
					return -1;
				}
			}
		}
	}
	return 0;
}

static int finish(const char *file, int line, struct parse *ps, char *err, size_t errlen)
{
	struct config *c = ps->c;

	if (line == -2) {
		snprintf(err, errlen, "%s: out of memory", file);
		return -1;
	}
	if (line < 0) {
		snprintf(err, errlen, "%s: cannot read the file", file);
		return -1;
	}
	/* inih's own complaints (no '=') carry no message: the earliest wins. */
	if (ps->err_line && (!line || ps->err_line <= line)) {
		snprintf(err, errlen, "%s:%d: %s", file, ps->err_line, ps->msg);
		return -1;
	}
	if (line > 0) {
		snprintf(err, errlen, "%s:%d: syntax error", file, line);
		return -1;
	}
	if (!ps->have_host) {
		snprintf(err, errlen, "%s: missing section [host]", file);
		return -1;
	}
	if (!ps->have_matrix) {
		snprintf(err, errlen, "%s: missing section [matrix]", file);
		return -1;
	}
	/* A [guest] config's workload is the guest's own (guest/init). */
	if (!c->nwl && !c->guest.given) {
		snprintf(err, errlen, "%s: no [workload:NAME] section", file);
		return -1;
	}
	if (backend_settings(file, ps, err, errlen))
		return -1;
	if (host_topology(file, ps, err, errlen))
		return -1;
	if (!c->host.maxcpus)
		c->host.maxcpus = c->host.cpus;
	if (c->host.maxcpus < c->host.cpus) {
		snprintf(err, errlen, "%s: [host] maxcpus (%u) is below cpus (%u)", file,
			 c->host.maxcpus, c->host.cpus);
		return -1;
	}
	if (!c->host.name[0])
		snprintf(c->host.name, sizeof(c->host.name), "%s-%ucpu", c->host.backend, c->host.cpus);
	if (config_builds(file, ps, err, errlen))
		return -1;
	if (guest_check(file, ps, err, errlen))
		return -1;
	for (unsigned int i = 0; i < c->nwl; i++) {
		char e[256];

		if (!c->wl[i].type) {
			snprintf(err, errlen, "%s: [workload:%s] has no type", file, c->wl[i].name);
			return -1;
		}
		if (wl_params_check(c->wl[i].type, c->wl[i].params, e, sizeof(e))) {
			snprintf(err, errlen, "%s: [workload:%s]: %s", file, c->wl[i].name, e);
			return -1;
		}
	}
	if (workload_cpus_check(file, ps, err, errlen))
		return -1;
	/* The job the agent is given passes the agent's check (the same one). */
	json_t *job = config_job(c, 0);
	char e[256];
	int bad = wl_job_check(job, e, sizeof(e));

	json_decref(job);
	if (bad) {
		snprintf(err, errlen, "%s: %s", file, e);
		return -1;
	}
	return 0;
}

/* Parse TEXT (LEN bytes, NUL-terminated) named NAME into c. */
static int parse_text(const char *name, const char *text, size_t len, struct config *c,
		      char *err, size_t errlen)
{
	struct parse ps = { .c = c, .p = text, .end = text + len };
	int line, rc;

	defaults(c);
	ps.seen = json_object();
	ps.backend_keys = json_object();
	ps.host_lines = json_object();
	ps.wl_lines = json_object();
	c->text = malloc(len + 1);
	if (!c->text || !ps.seen || !ps.backend_keys || !ps.host_lines || !ps.wl_lines) {
		json_decref(ps.seen);
		json_decref(ps.backend_keys);
		json_decref(ps.host_lines);
		json_decref(ps.wl_lines);
		config_free(c);
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	memcpy(c->text, text, len + 1);
	c->textlen = len;
	line = ini_parse_stream(read_line, &ps, handler, &ps);
	json_decref(ps.seen);
	rc = finish(name, line, &ps, err, errlen);
	json_decref(ps.backend_keys);
	json_decref(ps.host_lines);
	json_decref(ps.wl_lines);
	if (rc) {
		config_free(c);
		return -1;
	}
	return 0;
}

int config_load(const char *file, struct config *c, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc;

	memset(c, 0, sizeof(*c));
	if (sio_read_file(file, SIO_MAX_CONFIG, &text, &len, err, errlen))
		return -1;
	rc = parse_text(file, text, len, c, err, errlen);
	free(text);
	return rc;
}

int config_load_string(const char *name, const char *text, struct config *c,
		       char *err, size_t errlen)
{
	return parse_text(name, text, strlen(text), c, err, errlen);
}

void config_free(struct config *c)
{
	for (unsigned int i = 0; i < c->nwl; i++)
		json_decref(c->wl[i].params);
	c->nwl = 0;
	json_decref(c->sections);
	c->sections = NULL;
	free(c->text);
	c->text = NULL;
	c->textlen = 0;
	free(c->host.settings);
	c->host.settings = NULL;
}

const char *cfg_order_name(enum cfg_order o)
{
	return order_names[o];
}

/*
 * The order within each pair of a paired-sender workload ("senders") comes
 * from the run's seed: the workload's own `seed` when the config sets one
 * (not 0), else [matrix] seed mixed with the run's position, so that every
 * boot draws its own order and the same config draws the same orders again.
 */
static void job_seed_pairs(json_t *job, unsigned int matrix_seed, size_t run)
{
	json_t *w;
	size_t k;

	json_array_foreach(json_object_get(job, "workloads"), k, w) {
		json_t *p = json_object_get(w, "params");
		uint64_t z;

		json_t *sd = json_object_get(p, "senders");

		/* "senders" defaults to none (an empty value) */
		if (!(json_is_array(sd) ? json_array_size(sd) :
		      json_is_string(sd) ? json_string_length(sd) : 0) ||
		    json_integer_value(json_object_get(p, "seed")))
			continue;
		/* folded into the param's range 1..2^31-1 */
		z = ipibench_pair_mix(matrix_seed, (uint32_t)run);
		json_object_set_new(p, "seed", json_integer((json_int_t)(z % 0x7ffffffeu) + 1));
	}
}

/*
 * The job the agent runs in boot number RUN of the matrix: every workload of
 * the config, with the trace settings (which the agent core handles) apart
 * from the workload's own parameters.
 */
json_t *config_job(const struct config *c, size_t run)
{
	json_t *job = json_object(), *wls = json_array();

	for (unsigned int i = 0; i < c->nwl; i++) {
		json_t *w = json_object(), *params = json_deep_copy(c->wl[i].params);
		const char *mask = json_string_value(json_object_get(params, "trace"));

		json_object_set_new(w, "name", json_string(c->wl[i].name));
		json_object_set_new(w, "type", json_string(c->wl[i].type->type));
		if (mask && *mask) {
			json_t *t = json_object();

			json_object_set_new(t, "mask", json_string(mask));
			json_object_set(t, "kb", json_object_get(params, "trace_kb"));
			json_object_set_new(w, "trace", t);
		}
		json_object_del(params, "trace");
		json_object_del(params, "trace_kb");
		json_object_set_new(w, "params", params);
		json_array_append_new(wls, w);
	}
	json_object_set_new(job, "workloads", wls);
	job_seed_pairs(job, c->matrix.seed, run);
	return job;
}

int config_tables_verify(char *err, size_t errlen)
{
	static const struct {
		const char *section;
		const struct key *tab;
		size_t size;
	} tabs[] = {
		{ "host", host_common_settings, sizeof(struct host_config) },
		{ "matrix", matrix_keys, sizeof(struct config) },
		{ "guest", guest_keys, sizeof(struct cfg_guest) },
	};
	char e[256];

	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++)
		if (keys_verify(tabs[i].tab, tabs[i].size, e, sizeof(e))) {
			snprintf(err, errlen, "[%s] %s", tabs[i].section, e);
			return -1;
		}
	return 0;
}

/* ---- every key, for the manual page and docs/configs.md ------------------- */

/* The keys of TAB in SECTION (SCOPE: when they apply, NULL: always) to FN. */
static void table_keys(const struct key *tab, const char *section, const char *scope,
		       void (*fn)(const struct cfg_key *k, void *data), void *data)
{
	for (const struct key *s = tab; s && s->key; s++) {
		struct key_doc d;

		keys_doc(s, &d);
		fn(&(struct cfg_key){ section, scope, s->key, d.type, d.range, d.def, s->help }, data);
	}
}

void config_keys(void (*fn)(const struct cfg_key *k, void *data), void *data)
{
	char range[512], scope[96];
	struct cfg_key k;

	table_keys(host_common_settings, "host", NULL, fn, data);
	for (size_t i = 0; host_backends[i]; i++) {
		snprintf(scope, sizeof(scope), "backend = %s", host_backends[i]->name);
		table_keys(host_backends[i]->settings, "host", scope, fn, data);
	}
	table_keys(matrix_keys, "matrix", NULL, fn, data);
	for (const struct key *g = guest_keys; g->key; g++) {
		struct key_doc d;

		keys_doc(g, &d);
		k = (struct cfg_key){ "guest", g->only == GK_ANY ? NULL :
				      g->only == GK_NIC ? "type = hvm with a nic" :
				      g->only == (GK_HVM | GK_NIC) ? "type = hvm" :
				      "type = pvh, or hvm without a nic",
				      g->key, d.type, d.range, d.def, g->help };
		fn(&k, data);
	}
	{
		const char *names[64];
		size_t n = 0;

		for (; wl_types[n] && n < 63; n++)
			names[n] = wl_types[n]->type;
		names[n] = NULL;
		k = (struct cfg_key){ "workload:NAME", NULL, "type", "choice",
				      keys_or_list(range, sizeof(range), names), "required (first)",
				      "the workload's type: the keys below are its parameters" };
		fn(&k, data);
	}
	for (size_t i = 0; wl_types[i]; i++) {
		const struct wl_type *t = wl_types[i];

		snprintf(scope, sizeof(scope), "type = %s", t->type);
		for (const struct key *p = t->params; p->key; p++) {
			struct key_doc d;

			keys_doc(p, &d);
			k = (struct cfg_key){ "workload:NAME", scope, p->key, d.type, d.range, d.def,
					      p->help };
			fn(&k, data);
		}
	}
}
