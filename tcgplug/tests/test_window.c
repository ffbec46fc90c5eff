/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcgplug/window.c: the plugin's arguments, its windows and its output line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tcgplug/ipicount.h"
#include <ipibench/abi.h>

/* What the plugin reads of a request is where the interface has it. */
_Static_assert(offsetof(struct xen_sysctl_ipibench, op) == IC_SYSCTL_OP_OFF,
	       "IC_SYSCTL_OP_OFF is not the interface's op");
_Static_assert(offsetof(struct xen_sysctl_ipibench, flags) == IC_SYSCTL_FLAGS_OFF,
	       "IC_SYSCTL_FLAGS_OFF is not the interface's flags");
_Static_assert(XEN_SYSCTL_IPIBENCH_F_CONTINUE == IC_SYSCTL_F_CONTINUE,
	       "IC_SYSCTL_F_CONTINUE is not the interface's");
_Static_assert(XEN_SYSCTL_IPIBENCH_OP_query == IC_SYSCTL_OP_QUERY,
	       "IC_SYSCTL_OP_QUERY is not the interface's");

#define BENCH 0xffff82d04031f520ull
#define SEND 0xffff82d0403409e0ull

static int parse(struct ic_args *a, char *err, const char *s)
{
	static char buf[1024];	/* a.out points into it */
	char *argv[32];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok(buf, ","); t && argc < 32; t = strtok(NULL, ","))
		argv[argc++] = t;
	return ic_parse_args(argc, argv, a, err, 256);
}

#define BASE "out=/tmp/x,text=ffff82d040200000-ffff82d04037ef03,sysctl=0xffff82d0403200c0," \
	     "bench=ffff82d04031f520,send=ffff82d0403409e0"

static void test_args(void **s)
{
	struct ic_args a;
	char err[256];

	(void)s;
	assert_int_equal(parse(&a, err, BASE ",wait=ffff82d0403412e0,wait=ffff82d04031f000,"
			       "handler=ffff82d0403411f0,irq=ffff82d040328980,"
			       "async_handler=ffff82d04031edb0"), 0);
	assert_string_equal(a.out, "/tmp/x");
	assert_true(a.text_lo == 0xffff82d040200000ull && a.text_hi == 0xffff82d04037ef03ull);
	assert_true(a.sysctl == 0xffff82d0403200c0ull);
	assert_int_equal(a.nr_marks, 7);
	assert_false(ic_mark_find(&a, 0xffff82d0403411f0ull)->async);
	assert_true(ic_mark_find(&a, 0xffff82d04031edb0ull)->async);
	assert_int_equal(ic_mark_kind(&a, 0xffff82d04031edb0ull), IC_HANDLER);
	assert_null(ic_mark_find(&a, 0x1234));
	assert_int_equal(ic_mark_kind(&a, SEND), IC_SEND);
	assert_int_equal(ic_mark_kind(&a, 0xffff82d04031f000ull), IC_WAIT);
	assert_int_equal(ic_mark_kind(&a, 0xffff82d040328980ull), IC_IRQ);
	assert_int_equal(ic_mark_kind(&a, SEND + 1), -1);
	assert_false(a.tcg_single);
	assert_int_equal(parse(&a, err, BASE ",tcg=single"), 0);
	assert_true(a.tcg_single);
	assert_int_equal(parse(&a, err, BASE ",tcg=multi"), 0);
	assert_false(a.tcg_single);

	/* Each mistake refused with its reason. */
	static const struct { const char *args, *why; } bad[] = {
		{ BASE ",send=ffff82d040340000", "send= given twice" },
		{ BASE ",wait=ffff82d0403409e0", "address given twice" },
		{ BASE ",wait=zz", "not a hexadecimal address" },
		{ BASE ",wait=0", "not a hexadecimal address" },
		{ BASE ",wait=ffff82d0403412e0ffff", "not a hexadecimal address" },
		{ BASE ",wait=ffff82d050000000", "outside text=" },
		{ BASE ",colour=red", "unknown key" },
		{ BASE ",tcg=rr", "tcg=rr: expected multi or single" },
		{ BASE ",tcg=", "tcg=: expected multi or single" },
		{ BASE ",verbose", "not KEY=VALUE" },
		{ "out=/tmp/x,text=ffff82d040200000-ffff82d04037ef03,sysctl=1,send=ffff82d0403409e0",
		  "bench= is required" },
		{ "text=ffff82d040200000-ffff82d04037ef03,sysctl=1,bench=ffff82d04031f520,"
		  "send=ffff82d0403409e0", "out=, text= and sysctl= are required" },
		{ "out=/x,text=ffff82d04037ef03-ffff82d040200000,sysctl=1", "not LO-HI" },
		{ "out=,text=1-2", "empty file name" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (parse(&a, err, bad[i].args) != -1 || !strstr(err, bad[i].why))
			fail_msg("%s: got '%s', want '%s'", bad[i].args, err, bad[i].why);
	}
}

static struct ic_counts at(uint64_t insns, uint64_t pause, uint64_t icr)
{
	struct ic_counts c = { { 0 } };

	c.v[IC_INSNS] = insns;
	c.v[IC_PAUSE] = pause;
	c.v[IC_ICR] = icr;
	return c;
}

/* A chunk holding a send, a wait with an interrupt in it: exclusive counts. */
static void test_nesting(void **s)
{
	struct ic_vcpu v = { 0 };
	struct ic_run run;
	struct ic_counts c;

	(void)s;
	ic_run_start(&run, 1, 2, 0);
	/* Outside a chunk, a send is no window (Xen's own IPIs). */
	c = at(10, 0, 0);
	assert_false(ic_open(&v, IC_SEND, 0x1000, &c, false));
	assert_false(ic_open(&v, IC_HANDLER, 0x1000, &c, false));
	assert_true(ic_open(&v, IC_BENCH, 0x2000, &c, false));
	c = at(100, 0, 0);
	assert_true(ic_open(&v, IC_SEND, 0x1f00, &c, true));
	/* A ret of a callee (another frame) closes nothing. */
	c = at(150, 0, 1);
	assert_int_equal(ic_ret(&v, 0x1e00, &c, &run), -1);
	c = at(330, 0, 1);
	assert_int_equal(ic_ret(&v, 0x1f00, &c, &run), IC_SEND);
	c = at(400, 0, 1);
	assert_true(ic_open(&v, IC_WAIT, 0x1f00, &c, true));
	c = at(500, 3, 1);
	assert_true(ic_open(&v, IC_IRQ, 0x1c00, &c, true));
	c = at(563, 3, 1);
	assert_int_equal(ic_ret(&v, 0x1c00, &c, &run), IC_IRQ);
	c = at(1400, 40, 1);
	assert_int_equal(ic_ret(&v, 0x1f00, &c, &run), IC_WAIT);
	c = at(1500, 40, 1);
	assert_int_equal(ic_ret(&v, 0x2000, &c, &run), IC_BENCH);
	assert_int_equal(v.depth, 0);

	assert_int_equal(run.agg[IC_SEND].n, 1);
	assert_int_equal(run.agg[IC_SEND].sum.v[IC_INSNS], 230);
	assert_int_equal(run.agg[IC_SEND].sum.v[IC_ICR], 1);
	assert_int_equal(run.agg[IC_IRQ].sum.v[IC_INSNS], 63);
	/* The interrupt is counted apart, not in the wait. */
	assert_int_equal(run.agg[IC_WAIT].sum.v[IC_INSNS], 1000 - 63);
	assert_int_equal(run.agg[IC_WAIT].sum.v[IC_PAUSE], 40);
	assert_int_equal(run.agg[IC_WAIT].irqs, 1);
	/* The chunk: what is in none of its windows. */
	assert_int_equal(run.agg[IC_BENCH].sum.v[IC_INSNS], 1490 - 230 - 1000);
	assert_int_equal(run.agg[IC_BENCH].sum.v[IC_ICR], 0);
}

static void test_max_min_and_drops(void **s)
{
	struct ic_vcpu v = { 0 };
	struct ic_run run;
	struct ic_counts c;
	const uint64_t lens[] = { 117, 130, 110 };
	uint64_t t = 0;

	(void)s;
	ic_run_start(&run, 3, 4, 0);
	for (int i = 0; i < 3; i++) {
		c = at(t, 0, 0);
		assert_true(ic_open(&v, IC_HANDLER, 0x3000, &c, true));
		t += lens[i];
		c = at(t, 0, 0);
		assert_int_equal(ic_ret(&v, 0x3000, &c, &run), IC_HANDLER);
	}
	assert_int_equal(run.agg[IC_HANDLER].n, 3);
	assert_int_equal(run.agg[IC_HANDLER].max, 130);
	assert_int_equal(run.agg[IC_HANDLER].min, 110);
	assert_int_equal(run.agg[IC_HANDLER].sum.v[IC_INSNS], 357);

	/* A window left by a stack switch is dropped by the next ret above it. */
	c = at(t, 0, 0);
	assert_true(ic_open(&v, IC_BENCH, 0x5000, &c, false));
	assert_true(ic_open(&v, IC_SEND, 0x4000, &c, true));
	assert_int_equal(ic_ret(&v, 0x5000, &c, &run), IC_BENCH);
	assert_int_equal(run.dropped, 1);
	assert_int_equal(run.agg[IC_SEND].n, 0);

	/* A full stack opens nothing more. */
	for (int i = 0; i < IC_DEPTH; i++)
		assert_true(ic_open(&v, IC_BENCH, 0x9000 - 16 * i, &c, false));
	assert_false(ic_open(&v, IC_BENCH, 0x100, &c, false));
}

static void test_format(void **s)
{
	struct ic_run run;
	char line[4096], small[40];
	int n;

	(void)s;
	ic_run_start(&run, 2, 4, 1);
	run.icr_all = 50;
	run.agg[IC_SEND].n = 50;
	run.agg[IC_SEND].max = run.agg[IC_SEND].min = 230;
	run.agg[IC_SEND].sum.v[IC_INSNS] = 11500;
	n = ic_format_run(&run, line, sizeof(line));
	assert_true(n > 0 && line[n - 1] == '\n' && (size_t)n == strlen(line));
	assert_non_null(strstr(line, "run seq=2 op=4 flags=1 icr_all=50 dropped=0 bench.n=0 "));
	assert_non_null(strstr(line, " send.n=50 send.max=230 send.min=230 send.irqs=0 send.insns=11500 "));
	assert_non_null(strstr(line, " irq.msr=0\n"));
	assert_int_equal(ic_format_run(&run, small, sizeof(small)), -1);
}

static void test_sysctl_start(void **s)
{
	(void)s;
	assert_false(ic_sysctl_starts_run(0, 0));      /* query */
	assert_false(ic_sysctl_starts_run(1, 0));      /* fetch */
	assert_true(ic_sysctl_starts_run(2, 0));       /* flush_all */
	assert_true(ic_sysctl_starts_run(4, 1 << 2));  /* ipi_mask, loop */
	assert_false(ic_sysctl_starts_run(4, IC_SYSCTL_F_CONTINUE));
}

/* calls=all: its arguments; sysctl= and bench= are not needed. */
static void test_calls_args(void **s)
{
	struct ic_args a;
	char err[256];

	(void)s;
	assert_int_equal(parse(&a, err, "out=/tmp/x,text=ffff82d040200000-ffff82d04037ef03,calls=all,"
			       "send=ffff82d0403409e0,handler=ffff82d0403411f0"), 0);
	assert_true(a.calls);
	assert_true(a.every == IC_CALLS_EVERY);
	assert_true(a.sysctl == 0);
	assert_int_equal(parse(&a, err, "out=/tmp/x,text=ffff82d040200000-ffff82d04037ef03,calls=all,"
			       "every=25,send=ffff82d0403409e0"), 0);
	assert_true(a.every == 25);
	/* The bench's mode still needs its own markers. */
	assert_int_equal(parse(&a, err, BASE), 0);
	assert_false(a.calls);

	static const struct { const char *args, *why; } bad[] = {
		{ "out=/x,text=ffff82d040200000-ffff82d04037ef03,calls=all", "send= is required" },
		{ "text=ffff82d040200000-ffff82d04037ef03,calls=all,send=ffff82d0403409e0",
		  "out= and text= are required" },
		{ "out=/x,text=ffff82d040200000-ffff82d04037ef03,calls=some,send=ffff82d0403409e0",
		  "only calls=all" },
		{ BASE ",every=10", "every= is calls=all's" },
		{ "out=/x,text=ffff82d040200000-ffff82d04037ef03,calls=all,every=0,send=ffff82d0403409e0",
		  "not a whole number" },
		{ "out=/x,text=ffff82d040200000-ffff82d04037ef03,calls=all,every=-3,send=ffff82d0403409e0",
		  "not a whole number" },
		{ "out=/x,text=ffff82d040200000-ffff82d04037ef03,calls=all,every=20000000,"
		  "send=ffff82d0403409e0", "not a whole number" },
		{ "out=/x,text=1-2,sysctl=1,send=ffff82d0403409e0", "bench= is required" },
		{ "out=/x,text=ffff82d040200000-ffff82d04037ef03,calls=all,send=ffff82d0403409e0,"
		  "tcg=single", "calls=all needs tcg=multi" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (parse(&a, err, bad[i].args) != -1 || !strstr(err, bad[i].why))
			fail_msg("%s: got '%s', want '%s'", bad[i].args, err, bad[i].why);
	}
}

/*
 * calls=all: windows open outside any chunk; buckets by kind, vector and
 * ICR writes; a wait keyed by its send's writes, its interrupt apart.
 */
static void test_calls_buckets(void **s)
{
	static struct ic_calls c;
	struct ic_vcpu v = { 0 };
	uint32_t vec[IC_DEPTH] = { 0 };
	struct ic_counts n;
	bool fresh;

	(void)s;
	memset(&c, 0, sizeof(c));
	/* A flush: wait(send to 15, 15 ICR writes; an interrupt; a spin). */
	n = at(1000, 0, 0);
	assert_true(ic_calls_open(&v, IC_WAIT, 0x2000, &n));
	n = at(1100, 0, 0);
	assert_true(ic_calls_open(&v, IC_SEND, 0x1f00, &n));
	vec[1] = 0xfb;
	n = at(2039, 0, 15);
	assert_int_equal(ic_calls_ret(&v, vec, 0x1f00, &n, &c, &fresh), IC_SEND);
	assert_true(fresh);
	n = at(2100, 5, 15);
	assert_true(ic_calls_open(&v, IC_IRQ, 0x1c00, &n));
	n = at(2160, 5, 15);
	assert_int_equal(ic_calls_ret(&v, vec, 0x1c00, &n, &c, &fresh), IC_IRQ);
	n = at(3000, 40, 15);
	assert_int_equal(ic_calls_ret(&v, vec, 0x2000, &n, &c, &fresh), IC_WAIT);
	assert_true(fresh);
	assert_int_equal(c.nr, 3);
	assert_int_equal(c.closed, 3);
	assert_true(c.b[0].kind == IC_SEND && c.b[0].vector == 0xfb && c.b[0].icr == 15);
	assert_true(c.b[0].n == 1 && c.b[0].insns == 939 && c.b[0].min == 939 && c.b[0].max == 939);
	assert_true(c.b[1].kind == IC_IRQ && c.b[1].icr == 0 && c.b[1].insns == 60);
	/* The wait: its own, without the send and the interrupt; 15 writes. */
	assert_true(c.b[2].kind == IC_WAIT && c.b[2].vector == 0 && c.b[2].icr == 15);
	assert_true(c.b[2].insns == 2000 - 939 - 60 && c.b[2].pause == 40 && c.b[2].irqs == 1);
	assert_true(c.b[2].pause2 == 40 * 40 && c.b[2].insns_pause == (2000 - 939 - 60) * 40);

	/* The same send again: its bucket, no new one; another vector or
	 * write count is a bucket of its own. */
	n = at(5000, 40, 15);
	assert_true(ic_calls_open(&v, IC_SEND, 0x1f00, &n));
	vec[0] = 0xfb;
	n = at(5941, 40, 30);
	assert_int_equal(ic_calls_ret(&v, vec, 0x1f00, &n, &c, &fresh), IC_SEND);
	assert_false(fresh);
	assert_true(c.b[0].n == 2 && c.b[0].min == 939 && c.b[0].max == 941 && c.b[0].insns == 1880);
	assert_true(ic_calls_open(&v, IC_SEND, 0x1f00, &n));
	vec[0] = 0xf2;
	n = at(6180, 40, 31);
	assert_int_equal(ic_calls_ret(&v, vec, 0x1f00, &n, &c, &fresh), IC_SEND);
	assert_true(fresh && c.nr == 4 && c.b[3].vector == 0xf2 && c.b[3].icr == 1);

	/* A window left by a stack switch: dropped, counted, no bucket. */
	assert_true(ic_calls_open(&v, IC_HANDLER, 0x3000, &n));
	assert_true(ic_calls_open(&v, IC_SEND, 0x2f00, &n));
	n = at(6300, 40, 31);
	assert_int_equal(ic_calls_ret(&v, vec, 0x3000, &n, &c, &fresh), IC_HANDLER);
	assert_int_equal(c.dropped, 1);
	assert_int_equal(c.closed, 6);
	/* A ret of no window's frame closes nothing. */
	assert_int_equal(ic_calls_ret(&v, vec, 0x3000, &n, &c, &fresh), -1);
	assert_int_equal(c.closed, 6);

	/* Bounded: past IC_CALLS_MAX_BUCKETS, calls are counted as overflow. */
	memset(&c, 0, sizeof(c));
	for (uint32_t i = 0; i < IC_CALLS_MAX_BUCKETS + 3; i++) {
		n = at(10 + i, 0, 0);
		assert_true(ic_calls_add(&c, IC_SEND, 0xfb, i, &n, 0, &fresh) ==
			    (i < IC_CALLS_MAX_BUCKETS));
	}
	assert_int_equal(c.nr, IC_CALLS_MAX_BUCKETS);
	assert_int_equal(c.overflow, 3);
	assert_int_equal(c.closed, IC_CALLS_MAX_BUCKETS + 3);
	/* Sums saturate instead of wrapping. */
	n = at(UINT64_MAX / 2, 1ull << 33, 0);
	assert_true(ic_calls_add(&c, IC_SEND, 0xfb, 0, &n, 0, &fresh));
	assert_true(c.b[0].pause2 == UINT64_MAX && c.b[0].insns_pause == UINT64_MAX);
	assert_true(c.b[0].insns == UINT64_MAX / 2 + 10);
}

/* The line round-trips, and the runner's strict reading refuses damage. */
static void test_calls_line(void **s)
{
	static struct ic_calls c, back;
	char line[IC_CALLS_MAX_BUCKETS * 200 + 128], why[200];
	struct ic_counts n;
	bool fresh;
	int len;

	(void)s;
	memset(&c, 0, sizeof(c));
	n = at(939, 0, 15);
	ic_calls_add(&c, IC_SEND, 0xfb, 15, &n, 0, &fresh);
	n = at(117, 0, 0);
	ic_calls_add(&c, IC_HANDLER, 0, 0, &n, 2, &fresh);
	n = at(4000, 300, 0);
	ic_calls_add(&c, IC_WAIT, 0, 15, &n, 0, &fresh);
	c.seq = 7;
	c.dropped = 1;
	len = ic_format_calls(&c, line, sizeof(line));
	assert_true(len > 0 && (size_t)len == strlen(line) && line[len - 1] == '\n');
	assert_string_equal(line, "calls seq=7 closed=3 overflow=0 dropped=1 buckets=3 "
			    "send/251/15=1,939,939,0,939,0,0,0 handler/0/0=1,117,117,2,117,0,0,0 "
			    "wait/0/15=1,4000,4000,0,4000,300,90000,1200000\n");
	assert_int_equal(ic_parse_calls(line, &back, why, sizeof(why)), 0);
	assert_memory_equal(&back, &c, sizeof(c));
	assert_int_equal(ic_format_calls(&c, line, 60), -1);

	static const struct { const char *line, *why; } bad[] = {
		{ "run seq=1", "not a 'calls' line" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0", "expected buckets=N" },
		{ "calls seq=x closed=1 overflow=0 dropped=0 buckets=0", "seq: not an unsigned" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=65", "more than 64" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1", "bucket 1: missing" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 bench/0/0=1,1,1,0,1,0,0,0 x",
		  "more than buckets=1" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 sned/0/0=1,1,1,0,1,0,0,0",
		  "expected KIND/VECTOR/ICR=" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 send/256/0=1,1,1,0,1,0,0,0",
		  "vector 0-255" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 send/2/0=1,1,1,0,1,0,0",
		  "field 7 of 8" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 send/2/0=1,1,1,0,1,0,0,-1",
		  "field 8 of 8" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 send/2/0=0,1,1,0,1,0,0,0",
		  "n=0 or min > max" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 send/2/0=1,5,1,0,1,0,0,0",
		  "n=0 or min > max" },
		{ "calls seq=1 closed=2 overflow=0 dropped=0 buckets=2 send/2/0=1,1,1,0,1,0,0,0 "
		  "send/2/0=1,1,1,0,1,0,0,0", "given twice" },
		{ "calls seq=1 closed=1 overflow=0 dropped=0 buckets=1 send/2/0=1,1,1,0,"
		  "99999999999999999999,0,0,0", "field 5 of 8" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		if (ic_parse_calls(bad[i].line, &back, why, sizeof(why)) != -1 ||
		    !strstr(why, bad[i].why))
			fail_msg("%s: got '%s', want '%s'", bad[i].line, why, bad[i].why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_max_min_and_drops),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_sysctl_start),
		cmocka_unit_test(test_calls_args),
		cmocka_unit_test(test_calls_buckets),
		cmocka_unit_test(test_calls_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
