/* tcgplug/window.c: the plugin's arguments, its windows and its output line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tcgplug/ipicount.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_max_min_and_drops),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_sysctl_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
