/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A stalled run's pieces that need no QEMU: the QMP client against a peer
 * the test plays, QEMU's thread states as /proc shows them, the phase and
 * last line of a console, and a capture into a stall/ folder.
 */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "tests/unit/unit.h"

#include "runner/qmp.h"
#include "runner/runner.h"
#include "runner/stall.h"
#include "runner/util.h"

#define GREETING "{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 0, \"minor\": 0, \"major\": 10}}, " \
	"\"capabilities\": []}}\r\n"
#define RETURN_EMPTY "{\"return\": {}}\r\n"

/* A socket pair; the test writes QEMU's side into sv[1] ahead. */
static void pair(int sv[2], const char *peer)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	if (peer)
		assert_int_equal(write(sv[1], peer, strlen(peer)), (ssize_t)strlen(peer));
}

static void test_qmp_answers(void **s)
{
	int sv[2];
	struct qmp q;
	char err[200], buf[4096];
	char *out;

	(void)s;
	pair(sv, GREETING RETURN_EMPTY
	     "{\"timestamp\": {\"seconds\": 1, \"microseconds\": 2}, \"event\": \"RESUME\"}\r\n"
	     "{\"return\": \"APIC 0x0\\r\\nIRR 0xfb\\r\\n\"}\r\n"
	     "{\"error\": {\"class\": \"GenericError\", \"desc\": \"no such CPU\"}}\r\n");
	assert_int_equal(qmp_open(&q, sv[0], 2000, err, sizeof(err)), 0);
	out = qmp_hmp(&q, "info lapic 0", 2000, err, sizeof(err));
	assert_non_null(out);
	assert_string_equal(out, "APIC 0x0\r\nIRR 0xfb\r\n");
	free(out);
	assert_null(qmp_hmp(&q, "info lapic 9", 2000, err, sizeof(err)));
	assert_string_equal(err, "QMP error: no such CPU");
	/* What the client said: capabilities, then each command, a line each. */
	ssize_t n = read(sv[1], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "{\"execute\": \"qmp_capabilities\"}\n"));
	assert_non_null(strstr(buf, "\"command-line\":\"info lapic 0\"}}\n"));
	qmp_close(&q);
	close(sv[0]);
	close(sv[1]);
}

static void test_qmp_silent(void **s)
{
	int sv[2];
	struct qmp q;
	char err[200];
	double t0 = now_s();

	(void)s;
	pair(sv, NULL);
	assert_int_equal(qmp_open(&q, sv[0], 300, err, sizeof(err)), -1);
	assert_string_equal(err, "QMP: no answer in time");
	assert_true(now_s() - t0 < 2.0);
	qmp_close(&q);
	/* Greeted, then nothing for the command. */
	assert_int_equal(write(sv[1], GREETING RETURN_EMPTY, strlen(GREETING RETURN_EMPTY)),
			 (ssize_t)strlen(GREETING RETURN_EMPTY));
	assert_int_equal(qmp_open(&q, sv[0], 1000, err, sizeof(err)), 0);
	assert_null(qmp_hmp(&q, "info registers -a", 300, err, sizeof(err)));
	assert_string_equal(err, "QMP: no answer in time");
	qmp_close(&q);
	/* A peer that went away. */
	close(sv[1]);
	assert_null(qmp_hmp(&q, "info cpus", 300, err, sizeof(err)));
	assert_non_null(strstr(err, "QMP: "));
	qmp_close(&q);
	close(sv[0]);
}

static void test_qmp_garbage(void **s)
{
	int sv[2];
	struct qmp q;
	char err[200];

	(void)s;
	pair(sv, "garbage \x1b[2J and more\nof it\n");
	assert_int_equal(qmp_open(&q, sv[0], 1000, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "QMP: not a JSON object: '"));
	assert_null(strchr(err, '\n'));
	assert_null(strchr(err, '\x1b'));
	qmp_close(&q);
	close(sv[0]);
	close(sv[1]);
	/* No greeting first. */
	pair(sv, RETURN_EMPTY);
	assert_int_equal(qmp_open(&q, sv[0], 1000, err, sizeof(err)), -1);
	assert_string_equal(err, "QMP: the first message is no greeting");
	qmp_close(&q);
	close(sv[0]);
	close(sv[1]);
}

static atomic_int spin_stop;

static void *spin(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "CPU 1/TCG");
	while (!atomic_load(&spin_stop))
		;
	return NULL;
}

static void test_threads(void **s)
{
	struct stall_thread t[64];
	pthread_t th;
	int n, found = -1;

	(void)s;
	atomic_store(&spin_stop, 0);
	assert_int_equal(pthread_create(&th, NULL, spin, NULL), 0);
	/* Until the spinning thread has named itself and has a clock tick
	 * of CPU time: on a busy machine (the test at nice 19) that takes
	 * longer than on an idle one, so the wait is bounded, not fixed. */
	for (struct tu_wait w = tu_wait_start(20000); tu_wait_more(&w);) {
		n = stall_threads(0, t, 64);
		assert_true(n >= 2);
		found = -1;
		for (int i = 0; i < n; i++)
			if (!strcmp(t[i].comm, "CPU 1/TCG"))
				found = i;
		if (found >= 0 && t[found].utime + t[found].stime > 0)
			break;
	}
	assert_true(found >= 0);
	assert_true(stall_is_vcpu(t[found].comm));
	assert_true(t[found].state == 'R' || t[found].state == 'S');
	assert_true(t[found].utime + t[found].stime > 0);
	atomic_store(&spin_stop, 1);
	pthread_join(th, NULL);
	assert_true(stall_is_vcpu("ALL CPUs/TCG"));
	assert_false(stall_is_vcpu("qemu-system-x86"));
	assert_int_equal(stall_threads(999999999, t, 64), -1);
}

static void test_track(void **s)
{
	struct stall_track tr;

	(void)s;
	stall_track_init(&tr, 0);
	assert_string_equal(tr.phase, "boot");
	assert_false(tr.dom0_up);
	stall_track_line(&tr, "(XEN) [    1.000000] Brought up 4 CPUs\r", 1.5);
	assert_string_equal(tr.phase, "boot");
	assert_string_equal(tr.last_line, "(XEN) [    1.000000] Brought up 4 CPUs");
	assert_true(tr.t_last == 1.5);
	stall_track_line(&tr, "ipibench: dom0 up", 40);
	assert_true(tr.dom0_up);
	assert_string_equal(tr.phase, "dom0");
	stall_track_line(&tr, "ipibench: workload flush (fault) start", 41);
	assert_string_equal(tr.phase, "workload flush");
	stall_track_line(&tr, "ipibench: workload flush: 2 chunks", 50);
	assert_string_equal(tr.phase, "workload flush");
	assert_string_equal(tr.last_line, "ipibench: workload flush: 2 chunks");
	/* Not a start line. */
	stall_track_line(&tr, "ipibench: workload", 51);
	stall_track_line(&tr, "ipibench: workload other failed: (x) start", 52);
	assert_string_equal(tr.phase, "workload flush");
	stall_track_line(&tr, "(XEN) [   60.0] ipibench: workload ipi_all (ipi) start", 60);
	assert_string_equal(tr.phase, "workload ipi_all");
}

/* A capture with a monitor the test plays and no serial line. */
static void test_capture(void **s)
{
	int sv[2];
	struct stall_track tr;
	struct stall_found f;
	char err[300], path[4200], *txt;
	const uint32_t ids[2] = { 0, 2 };
	pid_t child = fork();

	(void)s;
	assert_true(child >= 0);
	if (!child) {
		pause();
		_exit(0);
	}
	pair(sv, GREETING RETURN_EMPTY
	     "{\"return\": \"CPU#0\\r\\nRIP=ffff\\r\\n\"}\r\n"
	     "{\"return\": \"APIC 0x0 IRR 0x40\\r\\n\"}\r\n"
	     "{\"return\": \"APIC 0x2 IRR 0x0\\r\\n\"}\r\n"
	     "{\"return\": \"irq\\r\\n\"}\r\n{\"return\": \"pic\\r\\n\"}\r\n"
	     "{\"return\": \"* CPU 0: thread_id=1\\r\\n\"}\r\n");
	stall_track_init(&tr, 0);
	stall_track_line(&tr, "ipibench: dom0 up", 30);
	stall_track_line(&tr, "ipibench: workload flush (fault) start", 31);
	struct stall_capture c = {
		.workdir = tu_dir, .reason = "stall", .after_s = 51, .window_s = 20, .qemu = child,
		.con_in = -1, .con_out = -1, .log = -1, .qmp = sv[0], .apic_ids = ids, .ncpus = 2,
		.track = &tr,
	};
	assert_int_equal(stall_capture(&c, &f, err, sizeof(err)), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_true(f.monitor);
	assert_true(f.took_s < 5);
	snprintf(path, sizeof(path), "%s/stall/qemu-monitor.txt", tu_dir);
	assert_non_null(txt = tu_slurp(path));
	assert_non_null(strstr(txt, "(qemu) info registers -a\nCPU#0"));
	assert_non_null(strstr(txt, "(qemu) info lapic 0\nAPIC 0x0 IRR 0x40"));
	assert_non_null(strstr(txt, "(qemu) info lapic 2\nAPIC 0x2"));
	assert_non_null(strstr(txt, "(qemu) info cpus\n* CPU 0"));
	free(txt);
	snprintf(path, sizeof(path), "%s/stall/host.txt", tu_dir);
	assert_non_null(txt = tu_slurp(path));
	assert_non_null(strstr(txt, "/proc/loadavg: "));
	assert_non_null(strstr(txt, "one second later"));
	free(txt);
	snprintf(path, sizeof(path), "%s/stall/summary.json", tu_dir);
	json_t *j = json_load_file(path, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "reason")), "stall");
	assert_string_equal(json_string_value(json_object_get(j, "phase")), "workload flush");
	assert_string_equal(json_string_value(json_object_get(j, "last_line")),
			    "ipibench: workload flush (fault) start");
	assert_true(json_real_value(json_object_get(j, "quiet_s")) == 20.0);
	assert_true(json_is_true(json_object_get(j, "monitor")));
	assert_true(json_is_false(json_object_get(j, "xen_answered")));
	assert_int_equal(json_array_size(json_object_get(j, "files")), 4);
	json_decref(j);
	close(sv[0]);
	close(sv[1]);

	/* A dead monitor is said, and the capture still ends. */
	pair(sv, NULL);
	close(sv[1]);
	c.qmp = sv[0];
	c.qemu = 999999999;
	assert_int_equal(stall_capture(&c, &f, err, sizeof(err)), 0);
	assert_false(f.monitor);
	assert_non_null(strstr(f.note, "QEMU's monitor did not answer"));
	close(sv[0]);
}

/* How the fake Xen behaves. */
enum { XEN_SILENT, XEN_ANSWERS, XEN_GOES_ON };

/*
 * Xen on a serial line, in a child: input from IN, output on OUT.  ANSWER:
 * Xen answers (its input at dom1 first, then Xen's), is silent, or answers
 * up to 'r' and then goes on: dom0's next line, and the host powers off
 * (the console ends).
 */
static void __attribute__((noreturn)) xen_serial(int in, int out, int answer)
{
	int ctrl_a = 0, switches = 0;
	char ch, line[128];

	while (read(in, &ch, 1) == 1) {
		if (!answer)
			continue;
		if (ch == 1 && ++ctrl_a == 3) {
			ctrl_a = 0;
			snprintf(line, sizeof(line), "(XEN) *** Serial input to %s (type 'CTRL-a' "
				 "three times to switch input)\n", switches++ ? "Xen" : "DOM1");
		} else if (ch != 1) {
			snprintf(line, sizeof(line), "(XEN) '%c' pressed -> dumping\n", ch);
		} else {
			continue;
		}
		if (write(out, line, strlen(line)) < 0)
			break;
		if (answer == XEN_GOES_ON && ch == 'r') {
			const char *on = "ipibench: workload flush done\n";

			if (write(out, on, strlen(on)) < 0)
				break;
			_exit(0);
		}
	}
	_exit(0);
}

/* That child, on pipes: the test keeps PARENT_END. */
static pid_t fake_xen(int in, int out, int parent_end, int answer)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid)
		return pid;
	close(parent_end);   /* the test's end: its close is the end of input */
	xen_serial(in, out, answer);
}

/* Xen's debug keys over the serial line: the input switched on to Xen
 * (past a domain), each key pressed, all of it kept; a silent Xen said.
 * No QEMU pid: the keys are under test here, and the threads' two
 * samples a second apart are test_capture's.  The quiet that ends a key's
 * output is 0.3 s for the Xen that answers (a child at nice 19 on a busy
 * machine answers within it) and the least --key-quiet takes, 0.1 s, for
 * the silent one: nothing comes however long it is waited for. */
static void test_keys(void **s)
{
	char err[300], path[4200], *txt;
	struct stall_track tr;
	struct stall_found f;

	(void)s;
	stall_track_init(&tr, 0);
	for (int answer = XEN_GOES_ON; answer >= XEN_SILENT; answer--) {
		int in[2], out[2], log;
		pid_t x;

		assert_int_equal(pipe(in), 0);
		assert_int_equal(pipe(out), 0);
		x = fake_xen(in[0], out[1], in[1], answer);
		close(in[0]);
		close(out[1]);
		snprintf(path, sizeof(path), "%s/console.log", tu_dir);
		log = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(log >= 0);
		struct stall_capture c = {
			.workdir = tu_dir, .reason = "timeout", .after_s = 9, .qemu = 0,
			.con_in = in[1], .con_out = out[0], .log = log, .qmp = -1, .track = &tr,
			.key_quiet_s = answer != XEN_SILENT ? 0.3 : 0.1,
		};
		assert_int_equal(stall_capture(&c, &f, err, sizeof(err)), 0);
		close(in[1]);
		close(out[0]);
		close(log);
		waitpid(x, NULL, 0);
		assert_false(f.monitor);
		snprintf(path, sizeof(path), "%s/stall/xen-keys.log", tu_dir);
		assert_non_null(txt = tu_slurp(path));
		if (answer == XEN_GOES_ON) {
			/* Not a silent Xen: the keys stopped where QEMU ended. */
			assert_false(f.xen_answered);
			assert_string_equal(f.ended_after, "r");
			assert_non_null(strstr(txt, "'r' pressed"));
			assert_null(strstr(txt, "'q' pressed"));
			assert_null(strstr(f.note, "Xen did not answer"));
			assert_non_null(strstr(f.note, "QEMU ended during the debug keys, after 'r'"));
			snprintf(path, sizeof(path), "%s/stall/summary.json", tu_dir);
			json_t *j = json_load_file(path, 0, NULL);
			assert_non_null(j);
			assert_string_equal(json_string_value(json_object_get(j, "ended_after_key")), "r");
			json_decref(j);
		} else if (answer == XEN_ANSWERS) {
			assert_string_equal(f.ended_after, "");
			assert_true(f.xen_answered);
			assert_non_null(strstr(txt, "to DOM1"));
			assert_non_null(strstr(txt, "*** Serial input to Xen"));
			/* The keys after the switch, not to the domain. */
			assert_true(strstr(txt, "'d' pressed") > strstr(txt, "to Xen"));
			/* The run queues before anything reschedules; 'd' (IPIs to
			 * every CPU) last. */
			assert_true(strstr(txt, "'r' pressed") > strstr(txt, "to Xen"));
			assert_true(strstr(txt, "'r' pressed") < strstr(txt, "'q' pressed"));
			assert_true(strstr(txt, "'0' pressed") < strstr(txt, "'d' pressed"));
			for (const char *k = "rqi0d"; *k; k++) {
				char want[32];

				snprintf(want, sizeof(want), "'%c' pressed", *k);
				assert_non_null(strstr(txt, want));
			}
			assert_null(strstr(f.note, "Xen did not answer"));
			free(txt);
			/* console.log has it too. */
			snprintf(path, sizeof(path), "%s/console.log", tu_dir);
			assert_non_null(txt = tu_slurp(path));
			assert_non_null(strstr(txt, "'0' pressed"));
		} else {
			assert_false(f.xen_answered);
			assert_string_equal(f.ended_after, "");
			assert_string_equal(txt, "");
			assert_non_null(strstr(f.note, "Xen did not answer its debug keys"));
			assert_non_null(strstr(f.note, "no QEMU monitor"));
		}
		free(txt);
	}
}

/* A QMP server on a socket path: the greeting and the answers of
 * test_capture's conversation, once, to the first client. */
static pid_t fake_qmp(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c;
	const char *talk = GREETING RETURN_EMPTY
		"{\"return\": \"CPU#0\\r\\nRIP=ffff82d040000000\\r\\n\"}\r\n"
		"{\"return\": \"APIC 0x0 IRR 0x40\\r\\n\"}\r\n"
		"{\"return\": \"APIC 0x1 IRR 0x0\\r\\n\"}\r\n"
		"{\"return\": \"irq\\r\\n\"}\r\n{\"return\": \"pic\\r\\n\"}\r\n"
		"{\"return\": \"* CPU 0: thread_id=1\\r\\n\"}\r\n";
	char buf[256];
	pid_t pid;

	assert_true(l >= 0);
	assert_true(strlen(path) < sizeof(a.sun_path));
	memcpy(a.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid) {
		close(l);
		return pid;
	}
	c = accept(l, NULL, NULL);
	if (c >= 0 && write(c, talk, strlen(talk)) == (ssize_t)strlen(talk))
		while (read(c, buf, sizeof(buf)) > 0)
			;
	_exit(0);
}

/* Xen on a serial FIFO (QEMU's P.in, held open as QEMU holds it): each key
 * pressed answered on the console FILE, as QEMU's serial output would be. */
static pid_t fake_xen_fifo(const char *fifo, const char *file)
{
	int ready[2], in, out;
	pid_t pid;
	char ch;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid) {
		close(ready[1]);
		assert_int_equal(read(ready[0], &ch, 1), 1);
		close(ready[0]);
		return pid;
	}
	in = open(fifo, O_RDWR);
	out = open(file, O_WRONLY | O_APPEND);
	if (in < 0 || out < 0 || write(ready[1], "r", 1) != 1)
		_exit(1);
	xen_serial(in, out, true);
}

/*
 * `ipibench host capture` on a QEMU another program runs: the monitor over a
 * QMP socket path, Xen's keys into a FIFO and their answers from the console
 * file as it grows, the phase and last line from the file's lines; then
 * with nothing there: still a folder, each missing part said.
 */
static void test_host_capture(void **s)
{
	char qmp[128], fifo[128], con[128], path[256], after[16] = "40", pidarg[16], *txt;
	pid_t q, x, qemu = fork();
	json_t *j;

	(void)s;
	assert_true(qemu >= 0);
	if (!qemu) {
		pause();
		_exit(0);
	}
	snprintf(qmp, sizeof(qmp), "%s/qmp.sock", tu_dir);
	snprintf(fifo, sizeof(fifo), "%s/serial.in", tu_dir);
	snprintf(con, sizeof(con), "%s/console.log", tu_dir);
	snprintf(pidarg, sizeof(pidarg), "%ld", (long)qemu);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(tu_write(con, "(XEN) Xen version 4.17\r\nipibench: dom0 up\r\n"
				  "ipibench: workload flush (fault) start\r\n"), 0);
	q = fake_qmp(qmp);
	x = fake_xen_fifo(fifo, con);
	char *argv[] = { "host", "capture", "--qmp", qmp, "--serial", fifo, "--console", con,
			 "--pid", pidarg, "--cpus", "2", "--after", after, "--key-quiet", "300",
			 "-o", tu_dir, NULL };
	assert_int_equal(cmd_host(18, argv), 0);
	kill(x, SIGKILL);
	kill(qemu, SIGKILL);
	waitpid(x, NULL, 0);
	waitpid(qemu, NULL, 0);
	waitpid(q, NULL, 0);

	snprintf(path, sizeof(path), "%s/stall/summary.json", tu_dir);
	assert_non_null(j = json_load_file(path, 0, NULL));
	assert_string_equal(json_string_value(json_object_get(j, "reason")), "timeout");
	assert_string_equal(json_string_value(json_object_get(j, "phase")), "workload flush");
	assert_string_equal(json_string_value(json_object_get(j, "last_line")),
			    "ipibench: workload flush (fault) start");
	assert_true(json_is_true(json_object_get(j, "monitor")));
	assert_true(json_is_true(json_object_get(j, "xen_answered")));
	/* The last line came just now: quiet for about none of the 40 s. */
	assert_true(json_real_value(json_object_get(j, "quiet_s")) < 5);
	json_decref(j);
	snprintf(path, sizeof(path), "%s/stall/qemu-monitor.txt", tu_dir);
	assert_non_null(txt = tu_slurp(path));
	assert_non_null(strstr(txt, "(qemu) info registers -a\nCPU#0"));
	assert_non_null(strstr(txt, "(qemu) info lapic 1\nAPIC 0x1"));
	free(txt);
	snprintf(path, sizeof(path), "%s/stall/xen-keys.log", tu_dir);
	assert_non_null(txt = tu_slurp(path));
	assert_non_null(strstr(txt, "*** Serial input to Xen"));
	assert_non_null(strstr(txt, "'0' pressed"));
	/* Only what came after the capture began: not the boot's lines. */
	assert_null(strstr(txt, "Xen version"));
	free(txt);

	/* Nothing answers: the folder still, the monitor and Xen said absent. */
	char *none[] = { "host", "capture", "--qmp", qmp, "--serial", fifo, "--reason", "stall",
			 "--key-quiet", "100", "-o", tu_dir, NULL };
	assert_int_equal(cmd_host(12, none), 0);
	snprintf(path, sizeof(path), "%s/stall/summary.json", tu_dir);
	assert_non_null(j = json_load_file(path, 0, NULL));
	assert_string_equal(json_string_value(json_object_get(j, "reason")), "stall");
	assert_true(json_is_false(json_object_get(j, "monitor")));
	assert_true(json_is_false(json_object_get(j, "xen_answered")));
	json_decref(j);

	/* A regular file is no serial line, a FIFO no console file: neither
	 * written to nor read (nor waited on). */
	char *wrong[] = { "host", "capture", "--serial", con, "--console", fifo, "-o", tu_dir,
			  NULL };
	size_t before = strlen(txt = tu_slurp(con));
	free(txt);
	assert_int_equal(cmd_host(8, wrong), 0);
	assert_non_null(txt = tu_slurp(con));
	assert_int_equal(strlen(txt), before);
	free(txt);

	/* Refused: no folder, a reason or a number out of its range. */
	char *bad1[] = { "host", "capture", "--qmp", qmp, NULL };
	char *bad2[] = { "host", "capture", "--reason", "bored", "-o", tu_dir, NULL };
	char *bad3[] = { "host", "capture", "--cpus", "0", "-o", tu_dir, NULL };
	assert_int_equal(cmd_host(4, bad1), 2);
	assert_int_equal(cmd_host(6, bad2), 2);
	assert_int_equal(cmd_host(6, bad3), 2);
	char *bad4[] = { "host", "capture", "--key-quiet", "99", "-o", tu_dir, NULL };
	assert_int_equal(cmd_host(6, bad4), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qmp_answers),
		cmocka_unit_test(test_qmp_silent),
		cmocka_unit_test(test_qmp_garbage),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_track),
		cmocka_unit_test_setup_teardown(test_capture, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_keys, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_host_capture, tu_setup, tu_teardown),
	};
	return cmocka_run_group_tests_name("runner: stall", tests, NULL, NULL);
}
