/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The reboot backend end to end: a QEMU machine boots from a BIOS disk
 * image through real GRUB (images/grub-disk.sh).  On the first boot dom0 runs
 * `ipibench host install` and `ipibench run -c` on a two-mode matrix with
 * backend = reboot; each run sets a one-shot entry in grubenv and reboots
 * (QEMU runs without -no-reboot), GRUB boots it once and clears it, and the
 * dom0 init (standing in for ipibench-resume.service) resumes the matrix.
 * The results live on the disk; the test reads them back with debugfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "runner/backends/reboot.h"
#include "tests/integration/itest.h"

#define OUT "build/itest/reboot"
#define TIMEOUT_S 2400
#define MAX_BOOTS 6

static const char config[] =
	"; written by tests/integration/test_reboot.c\n"
	"[host]\n"
	"backend = reboot\n"
	"name = grub-e2e\n"
	"cpus = 8\n"
	"timeout = 600\n"
	"cmdline = ipibench.e2e=1\n"
	"\n"
	"[matrix]\n"
	"modes = physical, mixed\n"
	"repetitions = 1\n"
	"order = interleaved\n"
	"\n"
	"[workload:flush]\n"
	"type = flush_tlb_all\n"
	"iterations = 50\n";

/* Once the matrix is done, on its last boot (mixed): the local backend. */
static const char local_config[] =
	"[host]\n"
	"backend = local\n"
	"name = grub-e2e-local\n"
	"cpus = 8\n"
	"\n"
	"[matrix]\n"
	"modes = mixed, physical\n"
	"repetitions = 1\n"
	"order = interleaved\n"
	"\n"
	"[workload:flush]\n"
	"type = flush_tlb_all\n"
	"iterations = 20\n";

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * The debugfs command line that runs REQUEST ("cat PATH") on the ext2
 * partition of the image, without mounting it, in CMD.
 */
static void debugfs_cmd(char *cmd, size_t len, const char *request)
{
	char off[32] = "1048576";
	FILE *f = fopen(OUT "/part-offset", "r");

	if (f) {
		if (!fgets(off, sizeof(off), f))
			strcpy(off, "1048576");
		off[strcspn(off, "\n")] = '\0';
		fclose(f);
	}
	snprintf(cmd, len, "debugfs -R '%s' '" OUT "/disk.img?offset=%s' 2>/dev/null", request, off);
}

static char *disk_cat(const char *path)
{
	char cmd[1024], req[512];

	snprintf(req, sizeof(req), "cat %s", path);
	debugfs_cmd(cmd, sizeof(cmd), req);
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;

	while (p && (c = fgetc(p)) != EOF)
		fputc(c, m);
	if (p)
		pclose(p);
	fclose(m);
	return buf;
}

/* 1 when PATH exists on the disk's partition (a dangling symlink counts). */
static int disk_exists(const char *path)
{
	char cmd[1100], req[512];

	snprintf(req, sizeof(req), "stat %s", path);
	debugfs_cmd(cmd, 1024, req);
	strcat(cmd, " | grep -q 'Inode:'");
	return system(cmd) == 0;
}

static int named_alive(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "pgrep -f -- '-name %s( |$)' >/dev/null", name);
	return system(cmd) == 0;
}

static void test_reboot_matrix(void **s)
{
	char name[64], line[4096];
	size_t llen = 0;
	int pfd[2], boots = 0, done = 0, st;
	double t0;
	pid_t pid, parent = getpid();
	FILE *cfg, *log;
	const char *genapic_of_boot[MAX_BOOTS + 2] = { 0 };
	char grub_default[MAX_BOOTS + 2][64] = { { 0 } };

	(void)s;
	for (const char *f = "build/xen/xen.gz\0build/dom0/vmlinux\0build/bin/ipibench-agent\0"
			     "/usr/lib/grub/i386-pc/boot.img\0"; *f; f += strlen(f) + 1)
		if (access(f, R_OK))
			fail_msg("%s missing: make hv dom0 build, and grub-pc-bin grub-common installed", f);
	assert_int_equal(system("mkdir -p " OUT), 0);
	cfg = fopen(OUT "/e2e.ini", "w");
	assert_non_null(cfg);
	fputs(config, cfg);
	fclose(cfg);
	cfg = fopen(OUT "/local.ini", "w");
	assert_non_null(cfg);
	fputs(local_config, cfg);
	fclose(cfg);
	assert_int_equal(system("bash images/grub-disk.sh " OUT " " OUT "/e2e.ini " OUT "/local.ini"), 0);

	snprintf(name, sizeof(name), "ipibench-%d", (int)getpid());
	log = fopen(OUT "/console.log", "w");
	assert_non_null(log);
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		/* No -no-reboot: the guest's reboots are the point.  nice: shared machine. */
		execlp("nice", "nice", "-n", "10", "qemu-system-x86_64",
		       "-machine", "q35,kernel-irqchip=split", "-cpu", "qemu64,+x2apic",
		       "-device", "intel-iommu,intremap=on,eim=on", "-smp", "8", "-m", "2048",
		       "-display", "none", "-monitor", "none", "-serial", "stdio", "-name", name,
		       "-drive", "file=" OUT "/disk.img,format=raw,if=virtio", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	assert_true(pid > 0);
	t0 = now();
	while (!done && now() - t0 < TIMEOUT_S && boots <= MAX_BOOTS) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		char buf[8192];

		if (poll(&p, 1, 1000) <= 0)
			continue;
		ssize_t got = read(pfd[0], buf, sizeof(buf));
		if (got <= 0)
			break;
		fwrite(buf, 1, (size_t)got, log);
		fflush(log);
		for (ssize_t i = 0; i < got && !done; i++) {
			if (buf[i] != '\n' && llen + 1 < sizeof(line)) {
				line[llen++] = buf[i];
				continue;
			}
			line[llen] = '\0';
			llen = 0;
			char *g = strstr(line, "grub: default=");
			if (g && boots < MAX_BOOTS + 1) {
				boots++;
				snprintf(grub_default[boots], sizeof(grub_default[boots]), "%.*s",
					 (int)strcspn(g + 14, " \r"), g + 14);
				fprintf(stderr, "[%5.0fs] boot %d: GRUB default %s\n", now() - t0, boots,
					grub_default[boots]);
			}
			if (strstr(line, "Switched to APIC driver x2apic_phys"))
				genapic_of_boot[boots] = "x2apic_phys";
			else if (strstr(line, "Switched to APIC driver x2apic_mixed"))
				genapic_of_boot[boots] = "x2apic_mixed";
			else if (strstr(line, "Switched to APIC driver x2apic_cluster"))
				genapic_of_boot[boots] = "x2apic_cluster";
			if (strstr(line, "e2e: ") || strstr(line, "reboot: ") || strstr(line, "ipibench run:") ||
			    strstr(line, "local: ") || strstr(line, "] mixed-r0") || strstr(line, "] physical-r0"))
				fprintf(stderr, "[%5.0fs] %s\n", now() - t0, line);
			if (strstr(line, "e2e: idle"))
				done = 1;
		}
	}
	/* The results are on the disk: stop QEMU now, and make sure it is gone. */
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	fclose(log);
	fprintf(stderr, "[%5.0fs] QEMU stopped after %d boots\n", now() - t0, boots);
	assert_false(named_alive(name));
	if (!done)
		fail_msg("no 'e2e: idle' after %.0fs and %d boots; see " OUT "/console.log",
			 now() - t0, boots);

	/* Three boots: default, then each run's entry once, cleared by GRUB itself. */
	assert_int_equal(boots, 3);
	assert_string_equal(grub_default[1], "0");
	assert_string_equal(grub_default[2], "ipibench-physical");
	assert_string_equal(grub_default[3], "ipibench-mixed");
	assert_string_equal(genapic_of_boot[2], "x2apic_phys");
	assert_string_equal(genapic_of_boot[3], "x2apic_mixed");

	/* Both runs ok, each with the driver the hypervisor reported. */
	char *text = disk_cat("/results/e2e/results.json");
	json_error_t je;
	json_t *res = json_loads(text ? text : "", 0, &je);
	free(text);
	if (!res)
		fail_msg("results.json on the disk: %s", je.text);
	json_t *runs = json_object_get(res, "runs");
	assert_int_equal(json_array_size(runs), 2);
	const char *want[2][2] = { { "physical", "x2apic_phys" }, { "mixed", "x2apic_mixed" } };
	char ids[2][64];
	for (size_t i = 0; i < 2; i++) {
		json_t *r = json_array_get(runs, i);
		snprintf(ids[i], sizeof(ids[i]), "%s", json_string_value(json_object_get(r, "id")) ?: "?");
		assert_string_equal(json_string_value(json_object_get(r, "mode")), want[i][0]);
		assert_string_equal(json_string_value(json_object_get(r, "status")), "ok");
		assert_string_equal(json_string_value(json_object_get(r, "genapic")), want[i][1]);
		assert_int_equal(json_array_size(json_object_get(r, "workloads")), 1);
	}
	json_decref(res);

	/* Each run's boot carried its marker and the config's extra command line. */
	for (size_t i = 0; i < 2; i++) {
		const char *m = ids[i];
		char path[256];
		snprintf(path, sizeof(path), "/results/e2e/runs/%s/agent.json", m);
		text = disk_cat(path);
		json_t *a = json_loads(text ? text : "", 0, &je);
		free(text);
		assert_non_null(a);
		const char *cl = json_string_value(json_object_get(json_object_get(a, "xen"), "cmdline"));
		assert_non_null(cl);
		char want_word[128];
		snprintf(want_word, sizeof(want_word), "-%.60s ", m);
		assert_non_null(strstr(cl, "ipibench.run="));
		assert_non_null(strstr(cl, want_word));
		assert_non_null(strstr(cl, "ipibench.e2e=1"));
		/* The rest is the command line of the Xen that ran 'host install'. */
		assert_non_null(strstr(cl, "console=com1 com1=115200 dom0_mem=512M dom0_max_vcpus=1 "));
		snprintf(want_word, sizeof(want_word), "x2apic-mode=%s ", i ? "mixed" : "physical");
		assert_non_null(strstr(cl, want_word));
		assert_ptr_equal(strstr(cl, "x2apic-mode="), strstr(cl, want_word));  /* only one */
		json_decref(a);
	}

	/* The host is left as it was: no one-shot entry, no unit, nothing pending. */
	text = disk_cat("/boot/grub/grubenv");
	struct grubenv e;
	char err[256];
	assert_non_null(text);
	assert_int_equal(grubenv_parse(text, strlen(text), &e, err, sizeof(err)), 0);
	const char *ne = grubenv_get(&e, "next_entry");
	assert_true(!ne || !*ne);
	assert_null(grubenv_get(&e, "ipibench_run"));
	free(text);
	/* The local backend, on the mixed boot: mixed runs, physical fails at once. */
	text = disk_cat("/results/local/results.json");
	res = json_loads(text ? text : "", 0, &je);
	free(text);
	if (!res)
		fail_msg("local results.json on the disk: %s", je.text);
	runs = json_object_get(res, "runs");
	assert_int_equal(json_array_size(runs), 2);
	json_t *r0 = json_array_get(runs, 0), *r1 = json_array_get(runs, 1);
	assert_string_equal(json_string_value(json_object_get(r0, "mode")), "mixed");
	assert_string_equal(json_string_value(json_object_get(r0, "status")), "ok");
	assert_string_equal(json_string_value(json_object_get(r0, "genapic")), "x2apic_mixed");
	assert_string_equal(json_string_value(json_object_get(r1, "mode")), "physical");
	assert_string_equal(json_string_value(json_object_get(r1, "status")), "failed");
	assert_string_equal(json_string_value(json_object_get(r1, "error")),
		"this host booted Xen with x2apic_mixed (x2apic-mode=mixed on its command line), "
		"not physical mode: the local backend runs in the mode the host booted "
		"(use backend = reboot to switch)");
	json_decref(res);

	/* install took dom0's command line from the running one, once. */
	text = disk_cat("/boot/grub/custom.cfg");
	assert_non_null(strstr(text ? text : "", "' placeholder console=hvc0 quiet\n"));
	free(text);

	assert_true(disk_exists("/var/lib/ipibench/host.json"));
	assert_false(disk_exists("/var/lib/ipibench/pending"));
	assert_false(disk_exists("/etc/systemd/system/multi-user.target.wants/" HOST_UNIT_NAME));
	text = disk_cat("/etc/systemd/system/" HOST_UNIT_NAME);
	assert_non_null(strstr(text ? text : "", "run --resume ${IPIBENCH_RESULTS}"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reboot_matrix),
	};
	return cmocka_run_group_tests_name("integration: reboot backend through GRUB", tests,
					   NULL, NULL);
}
