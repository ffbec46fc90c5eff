/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * runner/insncount.c: symbols from an ELF file, the plugin's argument, and
 * the plugin's lines folded into agent.json's workloads (refusing lines
 * that are not the plugin's with FILE:LINE).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "runner/insncount.h"
#include "lib/safeio.h"
#include "tcgplug/ipicount.h"

/* Two functions of this binary, looked up in its own symbol table. */
__attribute__((noinline, used)) void insncount_probe_a(void) { __asm__ volatile(""); }
__attribute__((noinline, used)) void insncount_probe_b(void) { __asm__ volatile("nop"); }

static void test_elf_symbols(void **s)
{
	const char *names[] = { "insncount_probe_a", "insncount_probe_b", "no_such_symbol" };
	uint64_t a[3];
	char err[256];

	(void)s;
	assert_int_equal(elf_symbols("/proc/self/exe", names, 3, a, err, sizeof(err)), 0);
	assert_true(a[0] && a[1]);
	assert_int_equal(a[2], 0);
	/* Both in the same load: the same bias between table and memory. */
	assert_true((uintptr_t)insncount_probe_a - a[0] == (uintptr_t)insncount_probe_b - a[1]);

	/* Not ELF, too short, missing. */
	char path[] = "/tmp/insncount-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\177ELF", 4), 4);
	close(fd);
	assert_int_equal(elf_symbols(path, names, 1, a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an ELF64 file"));
	fd = open(path, O_WRONLY | O_TRUNC);
	char junk[256];
	memset(junk, 0x41, sizeof(junk));
	assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	assert_int_equal(elf_symbols(path, names, 1, a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an ELF64 file with section headers"));
	unlink(path);
	assert_int_equal(elf_symbols("/nonexistent/xen-syms", names, 1, a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/xen-syms"));
}

static void test_plugin_arg_refusals(void **s)
{
	char buf[2048], err[512], dir[] = "/tmp/insncount-XXXXXX", p[256], cmd[600];

	(void)s;
	assert_int_equal(insncount_syms_path("/nonexistent/xen", buf, sizeof(buf), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no xen-syms"));

	/* A build folder of our own: no plugin, then a plugin; a "xen" whose
	 * xen-syms is this test binary, an ELF file but no Xen. */
	assert_non_null(mkdtemp(dir));
	setenv("IPIBENCH_BUILD", dir, 1);
	snprintf(p, sizeof(p), "%s/xen", dir);
	assert_int_equal(insncount_plugin_arg(p, "/tmp/out", buf, sizeof(buf), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "tcgplug/libipicount.so"));
	assert_non_null(strstr(err, "(make plugin)"));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/tcgplug && touch %s/tcgplug/libipicount.so %s/xen && "
		 "cp /proc/%d/exe %s/xen-syms", dir, dir, dir, (int)getpid(), dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(insncount_plugin_arg(p, "/tmp/o,ut", buf, sizeof(buf), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "paths with commas"));
	assert_int_equal(insncount_plugin_arg(p, "/tmp/out", buf, sizeof(buf), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "xen-syms: no _stext/_etext: not a Xen symbol file"));
	/* Beside a hypervisor, or in scripts/hv.sh's tree. */
	assert_int_equal(insncount_syms_path(p, buf, sizeof(buf), err, sizeof(err)), 0);
	snprintf(cmd, sizeof(cmd), "%s/xen-syms", dir);
	assert_string_equal(buf, cmd);
	unsetenv("IPIBENCH_BUILD");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static char *write_tmp(const char *text)
{
	static char path[64];

	snprintf(path, sizeof(path), "/tmp/insncount-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* A line as the plugin writes it. */
static void line(char *buf, size_t len, uint32_t seq, uint32_t op, uint64_t sends,
		 uint64_t send_insns, uint64_t icr, uint64_t handlers, uint64_t h_insns, uint64_t hmax)
{
	struct ic_run r;

	ic_run_start(&r, seq, op, 4);
	r.agg[IC_SEND].n = sends;
	r.agg[IC_SEND].min = r.agg[IC_SEND].max = sends ? send_insns / sends : 0;
	r.agg[IC_SEND].sum.v[IC_INSNS] = send_insns;
	r.agg[IC_SEND].sum.v[IC_ICR] = icr;
	r.agg[IC_HANDLER].n = handlers;
	r.agg[IC_HANDLER].max = hmax;
	r.agg[IC_HANDLER].min = 10;
	r.agg[IC_HANDLER].sum.v[IC_INSNS] = h_insns;
	r.agg[IC_WAIT].n = sends;
	r.agg[IC_WAIT].sum.v[IC_INSNS] = 1000 * sends;
	assert_true(ic_format_run(&r, buf, len) > 0);
}

static json_t *agent_of(const char *json)
{
	json_error_t e;
	json_t *a = json_loads(json, 0, &e);

	if (!a)
		fail_msg("%s", e.text);
	return a;
}

static void test_merge(void **s)
{
	char text[16384], l[4096], err[512];
	size_t o = 0;

	(void)s;
	/* Run 1 (flush, 2 loops: runs 1 and 2), refused run 3 has no line,
	 * run 4 (ipi_mask): cumulative lines, the last of each run counts. */
	line(l, sizeof(l), 1, 2, 10, 2300, 10, 70, 8190, 117);
	o += (size_t)snprintf(text + o, sizeof(text) - o, "%s", l);
	line(l, sizeof(l), 1, 2, 20, 4600, 20, 140, 16380, 117);
	o += (size_t)snprintf(text + o, sizeof(text) - o, "%s\n", l);
	line(l, sizeof(l), 2, 2, 20, 4600, 20, 140, 16380, 120);
	o += (size_t)snprintf(text + o, sizeof(text) - o, "%s", l);
	line(l, sizeof(l), 4, 4, 50, 11500, 50, 350, 12600, 36);
	o += (size_t)snprintf(text + o, sizeof(text) - o, "%s", l);
	/* A last line cut by QEMU's kill: ignored. */
	o += (size_t)snprintf(text + o, sizeof(text) - o, "run seq=5 op=4 fl");
	char *path = write_tmp(text);
	json_t *agent = agent_of(
		"{\"workloads\": ["
		" {\"name\": \"q\", \"bench_runs\": 0},"
		" {\"name\": \"flush\", \"bench_runs\": 2,"
		"  \"counters\": {\"operations\": 40, \"icr_writes\": 40}},"
		" {\"name\": \"refusals\", \"bench_runs\": 0, \"counters\": {}},"
		" {\"name\": \"ipi\", \"bench_runs\": 1,"
		"  \"counters\": {\"operations\": 50, \"icr_writes\": 49}}]}");

	assert_int_equal(insncount_merge(path, agent, err, sizeof(err)), 0);
	json_t *w = json_array_get(json_object_get(agent, "workloads"), 1);
	json_t *ic = json_object_get(w, "insn_counts");
	assert_non_null(ic);
	assert_true(json_real_value(json_object_get(ic, "send_insns_per_op")) == 230.0);
	assert_int_equal(json_integer_value(json_object_get(ic, "send_calls")), 40);
	assert_true(json_real_value(json_object_get(ic, "wait_insns_per_op")) == 1000.0);
	assert_int_equal(json_integer_value(json_object_get(ic, "handlers")), 280);
	assert_true(json_real_value(json_object_get(ic, "handler_insns_mean")) == 117.0);
	assert_int_equal(json_integer_value(json_object_get(ic, "handler_insns_max")), 120);
	assert_int_equal(json_integer_value(json_object_get(ic, "icr_writes")), 40);
	assert_true(json_is_true(json_object_get(ic, "icr_match")));
	assert_int_equal(json_integer_value(json_object_get(ic, "runs")), 2);
	assert_null(json_object_get(json_array_get(json_object_get(agent, "workloads"), 0), "insn_counts"));
	ic = json_object_get(json_array_get(json_object_get(agent, "workloads"), 3), "insn_counts");
	assert_int_equal(json_integer_value(json_object_get(ic, "icr_writes")), 50);
	/* The cross-check: 50 seen, the hypervisor said 49. */
	assert_false(json_is_true(json_object_get(ic, "icr_match")));
	json_decref(agent);

	/* More runs asked for than the plugin saw. */
	agent = agent_of("{\"workloads\": [{\"name\": \"f\", \"bench_runs\": 4,"
			 " \"counters\": {\"operations\": 1}}]}");
	assert_int_equal(insncount_merge(path, agent, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "workload f ran 4 runs, the plugin saw 3"));
	json_decref(agent);
	unlink(path);
}

static void test_merge_refusals(void **s)
{
	char l[4096], text[8192], err[512];
	static const struct { const char *edit, *why; } bad[] = {
		{ "hello\n", ":1: not a 'run' line" },
		{ "run seq=1\n", ":1: field 2: expected op=N" },
		{ "run seq=-1 op=2\n", ":1: seq: not an unsigned number" },
		{ "run seq=99999999999999999999999 op=2\n", ":1: seq: not an unsigned number" },
	};

	(void)s;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *path = write_tmp(bad[i].edit);
		json_t *agent = agent_of("{\"workloads\": []}");

		assert_int_equal(insncount_merge(path, agent, err, sizeof(err)), -1);
		if (!strstr(err, path) || !strstr(err, bad[i].why))
			fail_msg("'%s': got '%s', want '%s'", bad[i].edit, err, bad[i].why);
		json_decref(agent);
		unlink(path);
	}
	/* A field too many, and runs out of order: line 2. */
	line(l, sizeof(l), 2, 2, 1, 230, 1, 7, 819, 117);
	snprintf(text, sizeof(text), "%s", l);
	text[strlen(text) - 1] = 0;
	strcat(text, " extra=1\n");
	char *path = write_tmp(text);
	json_t *agent = agent_of("{\"workloads\": []}");
	assert_int_equal(insncount_merge(path, agent, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":1: 'extra=1': more fields than the plugin writes"));
	unlink(path);
	line(l, sizeof(l), 2, 2, 1, 230, 1, 7, 819, 117);
	snprintf(text, sizeof(text), "%s", l);
	line(l, sizeof(l), 1, 2, 1, 230, 1, 7, 819, 117);
	strcat(text, l);
	path = write_tmp(text);
	assert_int_equal(insncount_merge(path, agent, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2: run 1 after run 2"));
	unlink(path);
	/* A NUL byte is not the plugin's output, for either reader. */
	path = write_tmp("run seq=1 op=2\n");
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 3, SEEK_SET), 0);
	assert_int_equal(fputc(0, f), 0);
	fclose(f);
	assert_int_equal(insncount_merge(path, agent, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ": a NUL byte: not the plugin's output"));
	assert_int_equal(insncount_calls_merge(path, agent, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ": a NUL byte: not the plugin's output"));
	unlink(path);
	json_decref(agent);
}

/*
 * calls=all needs only the hypervisor's own functions: a build without
 * CONFIG_IPIBENCH (no ipibench_sysctl, no bench_chunk) is counted, and
 * still refused by the bench's mode.
 */
static void test_calls_plugin_arg(void **s)
{
	char buf[2048], err[512], dir[] = "/tmp/insncount-XXXXXX", p[256], cmd[1200];

	(void)s;
	assert_non_null(mkdtemp(dir));
	setenv("IPIBENCH_BUILD", dir, 1);
	snprintf(p, sizeof(p), "%s/xen", dir);
	/* An ELF object with a Xen's text bounds and the option-off markers. */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/tcgplug && touch %s/tcgplug/libipicount.so %s/xen && "
		 "printf '.text\\n.skip 16\\n.globl _stext\\n_stext: .skip 16\\n"
		 ".globl send_IPI_mask\\nsend_IPI_mask: .skip 16\\n.globl flush_area_mask\\n"
		 "flush_area_mask: .skip 16\\n.globl do_IRQ\\ndo_IRQ: .skip 16\\n.globl _etext\\n_etext: nop\\n' "
		 "| cc -c -x assembler - -o %s/xen-syms", dir, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(insncount_calls_plugin_arg(p, "/tmp/out", buf, sizeof(buf), err, sizeof(err)), 0);
	snprintf(cmd, sizeof(cmd), "%s/tcgplug/libipicount.so,out=/tmp/out,text=10-50,calls=all,"
		 "send=20,wait=30,irq=40", dir);
	assert_string_equal(buf, cmd);
	/* The bench's mode refuses that build, naming what it lacks. */
	assert_int_equal(insncount_plugin_arg(p, "/tmp/out", buf, sizeof(buf), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no symbol ipibench_sysctl"));
	assert_non_null(strstr(err, "CONFIG_IPIBENCH"));
	/* Without send_IPI_mask(): no Xen. */
	snprintf(cmd, sizeof(cmd), "printf '.text\\n.skip 16\\n.globl _stext\\n_stext: .skip 16\\n"
		 ".globl _etext\\n_etext: nop\\n' | cc -c -x assembler - -o %s/xen-syms", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(insncount_calls_plugin_arg(p, "/tmp/out", buf, sizeof(buf), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no symbol send_IPI_mask"));
	unsetenv("IPIBENCH_BUILD");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The last complete line wins; the spin fit; damaged files refused. */
static void test_calls_merge(void **s)
{
	char err[512];
	/* wait/0/3: insns = 200 + 29 * PAUSE exactly (10 and 20 PAUSE). */
	const char *text =
		"calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 send/253/3=1,319,319,0,319,0,0,0\n"
		"calls seq=2 closed=4 overflow=1 dropped=2 buckets=2 send/253/3=2,319,330,1,649,0,0,0 "
		"wait/0/3=2,490,780,0,1270,30,500,20500\n"
		"calls seq=3 closed=9 overflow=0 dropped=0 buckets=1 send/2";  /* QEMU killed */
	char *path = write_tmp(text);
	json_t *agent = agent_of("{\"workloads\": []}"), *ic, *b;

	(void)s;
	assert_int_equal(insncount_calls_merge(path, agent, err, sizeof(err)), 0);
	ic = json_object_get(agent, "insn_calls");
	assert_int_equal(json_integer_value(json_object_get(ic, "closed")), 4);
	assert_int_equal(json_integer_value(json_object_get(ic, "overflow")), 1);
	assert_int_equal(json_integer_value(json_object_get(ic, "dropped_windows")), 2);
	assert_int_equal(json_array_size(json_object_get(ic, "buckets")), 2);
	b = json_array_get(json_object_get(ic, "buckets"), 0);
	assert_string_equal(json_string_value(json_object_get(b, "kind")), "send");
	assert_int_equal(json_integer_value(json_object_get(b, "vector")), 253);
	assert_int_equal(json_integer_value(json_object_get(b, "icr_writes")), 3);
	assert_int_equal(json_integer_value(json_object_get(b, "calls")), 2);
	assert_true(json_real_value(json_object_get(b, "insns_mean")) == 324.5);
	assert_int_equal(json_integer_value(json_object_get(b, "insns_max")), 330);
	assert_null(json_object_get(b, "spin_fit"));
	b = json_array_get(json_object_get(ic, "buckets"), 1);
	json_t *fit = json_object_get(b, "spin_fit");
	assert_non_null(fit);
	assert_true(fabs(json_real_value(json_object_get(fit, "base")) - 200) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(fit, "insns_per_pause")) - 29) < 1e-9);
	assert_true(json_real_value(json_object_get(b, "pause_mean")) == 15);
	json_decref(agent);
	unlink(path);

	static const struct { const char *text, *why; } bad[] = {
		{ "", "no complete 'calls' line" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=0\nrun seq=1\n", ":2: not a 'calls' line" },
		{ "calls seq=2 closed=1 overflow=0 dropped=0 buckets=0\n"
		  "calls seq=1 closed=1 overflow=0 dropped=0 buckets=0\n", ":2: seq=1 closed=1 after seq=2" },
		{ "calls seq=1 closed=5 overflow=0 dropped=0 buckets=0\n"
		  "calls seq=2 closed=1 overflow=0 dropped=0 buckets=0\n", ":2: seq=2 closed=1 after" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 send/1/1=1,2,1,0,1,0,0,0\n",
		  ":1: bucket 1 (send/1/1): n=0 or min > max" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = write_tmp(bad[i].text);
		agent = agent_of("{\"workloads\": []}");
		assert_int_equal(insncount_calls_merge(path, agent, err, sizeof(err)), -1);
		if (!strstr(err, path) || !strstr(err, bad[i].why))
			fail_msg("'%s': got '%s', want '%s'", bad[i].text, err, bad[i].why);
		assert_null(json_object_get(agent, "insn_calls"));
		json_decref(agent);
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf_symbols),
		cmocka_unit_test(test_plugin_arg_refusals),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_refusals),
		cmocka_unit_test(test_calls_plugin_arg),
		cmocka_unit_test(test_calls_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
