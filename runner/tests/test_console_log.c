/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A boot's console.log is written as the bytes arrive, by the QEMU backend
 * and by the agent's runner alike. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/unit.h"

#include "runner/backend.h"
#include "runner/backends/qemu.h"
#include "runner/backends/reboot.h"
#include "runner/hostopts.h"

/* ---- console.log is written as the bytes arrive ---------------------------- */

static void put(const char *name, const char *text, mode_t mode)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", tu_dir, name);
	assert_int_equal(tu_write(path, text), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* A few hundred bytes, a line without its newline yet, then silence. */
#define CHATTER "#!/bin/sh\n" \
	"echo '(XEN) Xen version 4.17 (fake)'\n" \
	"echo '(XEN) Switched to APIC driver x2apic_mixed'\n" \
	"printf 'half a line'\n" \
	"exec sleep 60\n"

/*
 * PID (still running: it waits for a console that never says done) must
 * have written console.log's bytes: a block-buffered log stayed at 4096
 * bytes for 15 minutes of a 256-CPU boot.
 */
static void expect_written_while_running(pid_t pid, const char *log)
{
	char *text = NULL;
	time_t t0 = time(NULL);
	int st;

	for (;;) {
		FILE *f = fopen(log, "r");
		size_t n = 0;

		free(text);
		text = NULL;
		if (f) {
			text = calloc(1, 4096);
			n = fread(text, 1, 4095, f);
			fclose(f);
		}
		(void)n;
		if (text && strstr(text, "x2apic_mixed\nhalf a line"))
			break;
		if (waitpid(pid, &st, WNOHANG) == pid)
			fail_msg("the runner ended before the test looked");
		if (time(NULL) - t0 > 15) {
			char seen[128];

			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			snprintf(seen, sizeof(seen), "%s", text ? text : "(nothing)");
			free(text);
			fail_msg("after 15 s %s holds '%s'", log, seen);
		}
		usleep(100 * 1000);
	}
	free(text);
	/* Still running: the bytes were there before the process ended. */
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

static void test_qemu_console_unbuffered(void **s)
{
	struct qemu_settings q;
	struct host_opts o;
	char log[128], qemu[128], xen[128];
	pid_t pid;

	(void)s;
	put("qemu", CHATTER, 0755);
	put("xen", "", 0644);
	host_settings_defaults(&backend_qemu, &q);
	host_opts_default(&o, 2);
	snprintf(qemu, sizeof(qemu), "%s/qemu", tu_dir);
	snprintf(xen, sizeof(xen), "%s/xen", tu_dir);
	q.qemu = qemu;
	q.xen = q.kernel = q.initrd = xen;
	o.settings = &q;
	o.workdir = tu_dir;
	o.quiet = 1;
	o.timeout_s = 60;
	snprintf(log, sizeof(log), "%s/console.log", tu_dir);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct host_result r;

		_exit(backend_qemu.run(&o, &r) ? 1 : 0);
	}
	expect_written_while_running(pid, log);
}

static void test_agent_console_unbuffered(void **s)
{
	struct host_opts o;
	char log[128], agent[128];
	pid_t pid;

	(void)s;
	put("agent", CHATTER, 0755);
	host_opts_default(&o, 2);
	o.quiet = 1;
	o.timeout_s = 60;
	snprintf(agent, sizeof(agent), "%s/agent", tu_dir);
	snprintf(log, sizeof(log), "%s/console.log", tu_dir);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct host_result r;
		json_t *a = NULL;

		setenv("IPIBENCH_AGENT", agent, 1);
		_exit(host_agent_exec(&o, NULL, tu_dir, "console.log", &r, &a) ? 1 : 0);
	}
	expect_written_while_running(pid, log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_qemu_console_unbuffered, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_agent_console_unbuffered, tu_setup, tu_teardown),
	};
	return cmocka_run_group_tests_name("runner: console.log", tests, NULL, NULL);
}
