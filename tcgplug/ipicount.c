/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libipicount.so: the QEMU glue of the plugin (ipicount.h, README.md).
 *
 * Per vCPU, a scoreboard entry holds the guest instruction count (one
 * inline add per translated block: cheap), PAUSE and HLT counts (inline
 * adds on those instructions) and the depth of the open windows.  Exec
 * callbacks are registered only on a few instructions of the hypervisor's
 * text, at translation time: the entries of the marked functions, every
 * ret (a conditional callback: it runs only while a window is open on the
 * vCPU), every wrmsr (its ECX read to tell an ICR write) and the entry of
 * ipibench_sysctl() (a run's start, read from the request).  A callback on
 * the K-th of a block's N instructions sees the block's whole count
 * already added: it subtracts N - K.
 *
 * tcg=single (QEMU's round-robin TCG, one thread for all vCPUs): QEMU 10.0
 * then compiles the index of the vCPU that *translated* a block into it as
 * a constant (accel/tcg/plugin-gen.c, gen_cpu_index(), when CF_PARALLEL is
 * not set), while blocks are shared by all vCPUs.  So a callback's vcpu
 * argument is the translator's, not the executing vCPU's; and a
 * scoreboard access (an inline op or a conditional callback) multiplies
 * that constant in place (gen_plugin_u64_ptr(): tcg_gen_muli_i32 into the
 * block's interned constant), which changes every later use of the same
 * 32-bit constant in the block: the guest's own code is miscompiled (dom0
 * crashed or hung at 16 CPUs).  In that mode the plugin uses no inline op
 * and no conditional callback: a callback per block of the hypervisor's
 * text counts its instructions, PAUSE and HLT have callbacks too, and the
 * vCPU is the hypervisor stack the callback finds in RSP (one per CPU:
 * IC_XEN_STACK_SHIFT), read from the executing vCPU (QEMU's current_cpu).
 * The windows are all in the hypervisor's text, so are their counts.
 */
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

#include "ipicount.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct vcpu_score {
	uint64_t insns, pause, hlt, depth;
};
struct vcpu_state {
	struct ic_vcpu win;
	uint64_t icr, x2apic, msr;
	uint64_t insns, pause, hlt;   /* tcg=single: not in the scoreboard */
	struct qemu_plugin_register *rsp, *rcx, *rdi, *rsi;
	GByteArray *buf;
	uint32_t calls_vec[IC_DEPTH];  /* calls=all: each open window's vector */
};

static struct ic_args args;
static int out_fd = -1;
static struct qemu_plugin_scoreboard *score, *states;
static qemu_plugin_u64 sc_insns, sc_pause, sc_hlt, sc_depth;
static GMutex lock;            /* the run and the output */
static struct ic_run run;
static uint32_t run_seq;
static int bench_active;       /* vCPUs inside a chunk (atomic) */
/*
 * A run is open from its start to the next query or start: a call still
 * in flight when a chunk ends (its deadline) is handled by the receivers
 * between two chunks, and those handlers (async_handler=) are the run's
 * too.  Only the bench's own IPI handler is async: the flush handler also
 * serves the hypervisor's own flushes, which the agent's mappings cause
 * between chunks, so it counts during chunks only.
 */
static int run_open;
static struct ic_calls calls;  /* calls=all's buckets (under lock) */

/* tcg=single: the vCPUs by hypervisor stack, and the register handles. */
static GHashTable *rr_states;
static struct qemu_plugin_register *rr_rsp, *rr_rcx, *rr_rdi;
static GByteArray *rr_buf;
#define RR_MAX_STACKS 8192
/*
 * The counters matter only inside windows: while no vCPU has one open
 * (rr_open), the callbacks return at once, and the block being run is
 * remembered (rr_pending: its length, not added), for a window opening in it.
 */
static unsigned int rr_open;
static uint64_t rr_pending;

/*
 * The vCPU's state, or NULL before its init callback: at 96 CPUs with
 * single-threaded TCG a vCPU's instructions can run callbacks before QEMU
 * has counted it in qemu_plugin_num_vcpus(), and the scoreboard look-up
 * asserts then (QEMU aborts).  Such early instructions are not counted.
 */
static struct vcpu_state *state(unsigned int vcpu)
{
	if (vcpu >= (unsigned int)qemu_plugin_num_vcpus())
		return NULL;
	return qemu_plugin_scoreboard_find(states, vcpu);
}

static uint64_t read_reg(struct vcpu_state *s, struct qemu_plugin_register *r)
{
	uint64_t v = 0;

	if (!r)
		return 0;
	g_byte_array_set_size(s->buf, 0);
	if (qemu_plugin_read_register(r, s->buf) > 0)
		memcpy(&v, s->buf->data, MIN(s->buf->len, sizeof(v)));
	return v;
}

/*
 * tcg=single: the executing vCPU's state, by the hypervisor stack in its
 * RSP (returned in *RSP); NULL past RR_MAX_STACKS distinct stacks (RSP
 * before a CPU has its stack is not one).
 */
static struct vcpu_state *rr_state(uint64_t *rsp)
{
	struct vcpu_state tmp = { .buf = rr_buf }, *s;
	uint64_t sp = read_reg(&tmp, rr_rsp);
	gpointer key = (gpointer)(uintptr_t)(sp >> IC_XEN_STACK_SHIFT);

	*rsp = sp;
	s = g_hash_table_lookup(rr_states, key);
	if (s || g_hash_table_size(rr_states) >= RR_MAX_STACKS)
		return s;
	s = g_new0(struct vcpu_state, 1);
	s->buf = rr_buf;
	s->rsp = rr_rsp;
	s->rcx = rr_rcx;
	s->rdi = rr_rdi;
	g_hash_table_insert(rr_states, key, s);
	return s;
}

/* The executing vCPU's state (and its RSP, when RSP is not NULL). */
static struct vcpu_state *cur_state(unsigned int vcpu, uint64_t *rsp)
{
	struct vcpu_state *s;
	uint64_t sp;

	if (args.tcg_single)
		return rr_state(rsp ? rsp : &sp);
	s = state(vcpu);
	if (s && rsp)
		*rsp = read_reg(s, s->rsp);
	return s;
}

/* The vCPU's counts before the instruction BACK from its block's end. */
static void counts_now(unsigned int vcpu, struct vcpu_state *s, uint64_t back,
		       struct ic_counts *c)
{
	if (args.tcg_single) {
		c->v[IC_INSNS] = s->insns - back;
		c->v[IC_PAUSE] = s->pause;
		c->v[IC_HLT] = s->hlt;
	} else {
		c->v[IC_INSNS] = qemu_plugin_u64_get(sc_insns, vcpu) - back;
		c->v[IC_PAUSE] = qemu_plugin_u64_get(sc_pause, vcpu);
		c->v[IC_HLT] = qemu_plugin_u64_get(sc_hlt, vcpu);
	}
	c->v[IC_ICR] = s->icr;
	c->v[IC_X2APIC] = s->x2apic;
	c->v[IC_MSR] = s->msr;
}

/* A callback's data: the kind (bits 0-6), async (bit 7), N - K above. */
#define UD(kind, back) ((void *)(uintptr_t)(((uint64_t)(back) << 8) | (kind)))
#define UD_KIND(u) ((unsigned int)((uintptr_t)(u) & 0x7f))
#define UD_ASYNC 0x80
#define UD_BACK(u) ((uint64_t)((uintptr_t)(u) >> 8))

static void emit_run_locked(void)
{
	char line[4096];
	int n = ic_format_run(&run, line, sizeof(line));

	if (n > 0 && write(out_fd, line, (size_t)n) != n)
		qemu_plugin_outs("ipicount: short write to out=\n");
}

/*
 * calls=all (ipicount.h): every marked call opens its window, whatever
 * runs; each close goes into its bucket, and the buckets are written every
 * args.every closes and at each new bucket (QEMU is SIGKILLed: the last
 * complete line wins).
 */
static void calls_entry(unsigned int vcpu, struct vcpu_state *s, void *ud)
{
	struct ic_counts now;
	enum ic_kind kind = UD_KIND(ud);

	counts_now(vcpu, s, UD_BACK(ud), &now);
	if (!ic_calls_open(&s->win, kind, read_reg(s, s->rsp), &now))
		return;
	/* send_IPI_mask(mask, vector): the vector is its second argument. */
	s->calls_vec[s->win.depth - 1] = kind == IC_SEND ? (uint8_t)read_reg(s, s->rsi) : 0;
	qemu_plugin_u64_set(sc_depth, vcpu, s->win.depth);
}

static void calls_ret(unsigned int vcpu, struct vcpu_state *s, void *ud)
{
	struct ic_counts now;
	unsigned int before = s->win.depth;
	bool fresh;
	int k;

	counts_now(vcpu, s, UD_BACK(ud) - 1, &now);  /* the ret included */
	g_mutex_lock(&lock);
	k = ic_calls_ret(&s->win, s->calls_vec, read_reg(s, s->rsp), &now, &calls, &fresh);
	if (k >= 0 && (fresh || calls.closed % args.every == 0)) {
		char line[IC_CALLS_MAX_BUCKETS * 200 + 128];
		int n;

		calls.seq++;
		n = ic_format_calls(&calls, line, sizeof(line));
		if (n > 0 && write(out_fd, line, (size_t)n) != n)
			qemu_plugin_outs("ipicount: short write to out=\n");
	}
	g_mutex_unlock(&lock);
	if (s->win.depth != before)
		qemu_plugin_u64_set(sc_depth, vcpu, s->win.depth);
}

static void on_entry(unsigned int vcpu, void *ud)
{
	uint64_t rsp;
	struct vcpu_state *s = cur_state(vcpu, &rsp);
	struct ic_counts now;
	enum ic_kind kind = UD_KIND(ud);
	bool opened;

	if (!s)
		return;
	if (args.calls) {        /* never with tcg=single (ic_parse_args) */
		calls_entry(vcpu, s, ud);
		return;
	}
	if (args.tcg_single) {
		s->insns += rr_pending;
		rr_pending = 0;
	}
	counts_now(vcpu, s, UD_BACK(ud), &now);
	opened = ic_open(&s->win, kind, rsp, &now,
			 g_atomic_int_get(&bench_active) > 0 ||
			 (((uintptr_t)ud & UD_ASYNC) && g_atomic_int_get(&run_open)));
	if (!opened)
		return;
	if (kind == IC_BENCH)
		g_atomic_int_inc(&bench_active);
	if (!args.tcg_single)
		qemu_plugin_u64_set(sc_depth, vcpu, s->win.depth);
	else if (s->win.depth == 1)
		rr_open++;
}

static void on_ret(unsigned int vcpu, void *ud)
{
	uint64_t rsp;
	struct vcpu_state *s;
	struct ic_counts now;
	unsigned int before;
	bool bench_before;
	int k;

	if (args.tcg_single && !rr_open)
		return;
	s = cur_state(vcpu, &rsp);
	if (!s || !s->win.depth)   /* tcg=single: no conditional callback */
		return;
	if (args.calls) {
		calls_ret(vcpu, s, ud);
		return;
	}
	before = s->win.depth;
	bench_before = ic_in_bench(&s->win);

	counts_now(vcpu, s, UD_BACK(ud) - 1, &now);  /* the ret included */
	g_mutex_lock(&lock);
	k = ic_ret(&s->win, rsp, &now, &run);
	if (bench_before && !ic_in_bench(&s->win))
		g_atomic_int_add(&bench_active, -1);
	/*
	 * A chunk's end writes the run's line; so does a handler that returns
	 * after the last chunk ended (the sender stops waiting once the
	 * receivers have acknowledged, which is before their handlers return).
	 */
	if (k == IC_BENCH || (k >= 0 && !g_atomic_int_get(&bench_active)))
		emit_run_locked();
	g_mutex_unlock(&lock);
	if (s->win.depth != before && !args.tcg_single)
		qemu_plugin_u64_set(sc_depth, vcpu, s->win.depth);
	else if (args.tcg_single && !s->win.depth)
		rr_open--;
}

static void on_wrmsr(unsigned int vcpu, void *ud)
{
	struct vcpu_state *s;
	uint32_t msr;

	(void)ud;
	if (args.tcg_single && !rr_open)
		return;
	s = cur_state(vcpu, NULL);
	if (!s)
		return;
	msr = (uint32_t)read_reg(s, s->rcx);
	if (msr == IC_MSR_ICR) {
		s->icr++;
		if (g_atomic_int_get(&bench_active) > 0) {
			g_mutex_lock(&lock);
			run.icr_all++;
			g_mutex_unlock(&lock);
		}
	} else if (msr >= 0x800 && msr <= 0x8ff) {
		s->x2apic++;
	} else {
		s->msr++;
	}
}

static void on_sysctl(unsigned int vcpu, void *ud)
{
	struct vcpu_state *s = cur_state(vcpu, NULL);
	uint64_t op;
	uint32_t f[3];

	(void)ud;
	if (!s)
		return;
	op = read_reg(s, s->rdi);
	g_byte_array_set_size(s->buf, 0);
	if (!qemu_plugin_read_memory_vaddr(op, s->buf, sizeof(f)) || s->buf->len < sizeof(f))
		return;
	memcpy(f, s->buf->data, sizeof(f));
	if (f[IC_SYSCTL_OP_OFF / 4] == IC_SYSCTL_OP_QUERY)
		g_atomic_int_set(&run_open, 0);
	if (!ic_sysctl_starts_run(f[IC_SYSCTL_OP_OFF / 4], f[IC_SYSCTL_FLAGS_OFF / 4]))
		return;
	g_atomic_int_set(&run_open, 1);
	g_mutex_lock(&lock);
	ic_run_start(&run, ++run_seq, f[IC_SYSCTL_OP_OFF / 4], f[IC_SYSCTL_FLAGS_OFF / 4]);
	g_mutex_unlock(&lock);
}

/* Skip legacy prefixes; the opcode's offset in B[0..n). */
static size_t opcode_at(const uint8_t *b, size_t n)
{
	size_t i = 0;

	while (i < n && (b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x66 || b[i] == 0x2e ||
			 b[i] == 0x3e))
		i++;
	return i;
}

/* tcg=single: a block of the hypervisor's text, its N instructions. */
static void on_tb_single(unsigned int vcpu, void *ud)
{
	struct vcpu_state *s;

	rr_pending = rr_open ? 0 : (uintptr_t)ud;
	if (rr_open && (s = cur_state(vcpu, NULL)))
		s->insns += (uintptr_t)ud;
}

static void on_pause_single(unsigned int vcpu, void *ud)
{
	struct vcpu_state *s;

	(void)ud;
	if (rr_open && (s = cur_state(vcpu, NULL)))
		s->pause++;
}

static void on_hlt_single(unsigned int vcpu, void *ud)
{
	struct vcpu_state *s;

	(void)ud;
	if (rr_open && (s = cur_state(vcpu, NULL)))
		s->hlt++;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	if (!args.tcg_single)
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64,
								  sc_insns, n);
	else if (n && qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0)) >= args.text_lo &&
		 qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0)) < args.text_hi)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_single, QEMU_PLUGIN_CB_R_REGS,
						     (void *)(uintptr_t)n);
	for (size_t k = 0; k < n; k++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, k);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		uint8_t b[16];
		size_t len, o;
		const struct ic_mark *mark;

		if (pc < args.text_lo || pc >= args.text_hi)
			continue;
		len = qemu_plugin_insn_data(insn, b, sizeof(b));
		o = opcode_at(b, len);
		if (o >= len)
			continue;
		if ((mark = ic_mark_find(&args, pc)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_entry, QEMU_PLUGIN_CB_R_REGS,
				UD(mark->kind | (mark->async ? UD_ASYNC : 0), n - k));
		if (pc == args.sysctl)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_sysctl, QEMU_PLUGIN_CB_R_REGS,
							       NULL);
		if ((b[o] == 0xc3 || b[o] == 0xc2) && args.tcg_single)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_ret, QEMU_PLUGIN_CB_R_REGS,
							       UD(0, n - k));
		else if (b[o] == 0xc3 || b[o] == 0xc2)
			qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_ret, QEMU_PLUGIN_CB_R_REGS,
								    QEMU_PLUGIN_COND_NE, sc_depth, 0,
								    UD(0, n - k));
		else if (b[o] == 0xf4 && args.tcg_single)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_hlt_single, QEMU_PLUGIN_CB_R_REGS,
							       NULL);
		else if (b[o] == 0xf4)
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64,
									    sc_hlt, 1);
		else if (b[o] == 0x90 && o && b[o - 1] == 0xf3 && args.tcg_single)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_pause_single, QEMU_PLUGIN_CB_R_REGS,
							       NULL);
		else if (b[o] == 0x90 && o && b[o - 1] == 0xf3)
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64,
									    sc_pause, 1);
		else if (b[o] == 0x0f && o + 1 < len && b[o + 1] == 0x30)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_wrmsr, QEMU_PLUGIN_CB_R_REGS, NULL);
	}
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	struct vcpu_state *s = qemu_plugin_scoreboard_find(states, vcpu);
	g_autoptr(GArray) regs = qemu_plugin_get_registers();

	(void)id;
	memset(s, 0, sizeof(*s));
	s->buf = g_byte_array_new();
	for (guint i = 0; regs && i < regs->len; i++) {
		qemu_plugin_reg_descriptor *d = &g_array_index(regs, qemu_plugin_reg_descriptor, i);

		if (!strcmp(d->name, "rsp"))
			s->rsp = d->handle;
		else if (!strcmp(d->name, "rcx"))
			s->rcx = d->handle;
		else if (!strcmp(d->name, "rdi"))
			s->rdi = d->handle;
		else if (!strcmp(d->name, "rsi"))
			s->rsi = d->handle;
	}
	if (!s->rsp || !s->rcx || !s->rdi)
		qemu_plugin_outs("ipicount: no rsp/rcx/rdi register: not an x86-64 vCPU?\n");
	if (args.tcg_single && !rr_rsp) {   /* the handles are the same on every vCPU */
		rr_rsp = s->rsp;
		rr_rcx = s->rcx;
		rr_rdi = s->rdi;
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	if (out_fd >= 0)
		close(out_fd);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	char err[256];

	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "ipicount: target %s: only x86_64\n", info->target_name);
		return -1;
	}
	if (ic_parse_args(argc, argv, &args, err, sizeof(err))) {
		fprintf(stderr, "ipicount: %s\n", err);
		return -1;
	}
	out_fd = open(args.out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (out_fd < 0) {
		fprintf(stderr, "ipicount: out=%s: cannot open\n", args.out);
		return -1;
	}
	score = qemu_plugin_scoreboard_new(sizeof(struct vcpu_score));
	states = qemu_plugin_scoreboard_new(sizeof(struct vcpu_state));
	sc_insns = qemu_plugin_scoreboard_u64_in_struct(score, struct vcpu_score, insns);
	sc_pause = qemu_plugin_scoreboard_u64_in_struct(score, struct vcpu_score, pause);
	sc_hlt = qemu_plugin_scoreboard_u64_in_struct(score, struct vcpu_score, hlt);
	sc_depth = qemu_plugin_scoreboard_u64_in_struct(score, struct vcpu_score, depth);
	if (args.tcg_single) {
		rr_states = g_hash_table_new(g_direct_hash, g_direct_equal);
		rr_buf = g_byte_array_new();
	}
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
