/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <dirent.h>
#include <fcntl.h>
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

#include "tests/integration/itest.h"

const char *itest_ipibench(void)
{
	const char *e = getenv("IPIBENCH");
	return e && *e ? e : "build/bin/ipibench";
}

const char *itest_xen(void)
{
	const char *e = getenv("ITEST_XEN");
	return e && *e ? e : NULL;
}

/* argv for ipibench ARGS, with --xen ITEST_XEN after `run` or `boot`. */
static void make_argv(const char **argv, size_t max, const char *const *args)
{
	size_t n = 0;
	int add = itest_xen() && args[0] &&
		  (!strcmp(args[0], "run") || !strcmp(args[0], "boot"));

	for (const char *const *a = args; add && *a; a++)
		if (!strcmp(*a, "--xen") || !strcmp(*a, "--resume"))
			add = 0;
	argv[n++] = itest_ipibench();
	for (; *args && n < max - 3; args++) {
		argv[n++] = *args;
		if (add && n == 2) {
			argv[n++] = "--xen";
			argv[n++] = itest_xen();
		}
	}
	argv[n] = NULL;
}

void itest_run(struct cmd_out *out, const char *const *args)
{
	const char *argv[64];
	int pfd[2], st;
	size_t len = 0, cap = 1 << 16;
	pid_t parent = getpid(), pid;

	make_argv(argv, 64, args);
	out->text = calloc(1, cap);
	if (pipe(pfd))
		abort();
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execv(argv[0], (char *const *)argv);
		perror(argv[0]);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		if (len + 4096 >= cap)
			out->text = realloc(out->text, cap *= 2);
		ssize_t got = read(pfd[0], out->text + len, cap - len - 1);
		if (got <= 0)
			break;
		fwrite(out->text + len, 1, (size_t)got, stderr); /* show progress */
		len += (size_t)got;
	}
	out->text[len] = '\0';
	close(pfd[0]);
	waitpid(pid, &st, 0);
	out->pid = pid;
	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int itest_spawn(const char *const *args, const char *log)
{
	const char *argv[64];
	pid_t parent = getpid(), pid;

	make_argv(argv, 64, args);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent || fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

int itest_qemu_alive(int pid)
{
	char want[64], path[300], buf[8192];
	DIR *d = opendir("/proc");
	struct dirent *e;
	int alive = 0;

	snprintf(want, sizeof(want), "ipibench-%d", pid);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[n] = '\0';
		if (strstr(buf, want))
			alive++;
	}
	if (d)
		closedir(d);
	return alive;
}

/* The element of ARRAY whose KEY is the string VALUE, or NULL. */
static json_t *element_with(json_t *array, const char *key, const char *value)
{
	json_t *e;
	size_t i;

	json_array_foreach(array, i, e)
		if (!strcmp(json_string_value(json_object_get(e, key)) ?: "", value))
			return e;
	return NULL;
}

json_t *itest_run_of(json_t *results, const char *mode)
{
	return element_with(json_object_get(results, "runs"), "mode", mode);
}

json_t *itest_workload(json_t *run, const char *name)
{
	return element_with(json_object_get(run, "workloads"), "name", name);
}

const char *itest_str(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

json_t *itest_need_run(json_t *results, const char *mode)
{
	json_t *r = itest_run_of(results, mode);

	if (!r)
		fail_msg("no %s run", mode);
	return r;
}

json_t *itest_need_ok_run(json_t *results, const char *mode)
{
	json_t *r = itest_need_run(results, mode);

	if (strcmp(itest_str(r, "status"), "ok"))
		fail_msg("%s: the run is %s: %s", mode, itest_str(r, "status"),
			 itest_str(r, "error"));
	return r;
}

json_t *itest_need_workload(json_t *run, const char *name)
{
	json_t *w = itest_workload(run, name);
	const char *mode = itest_str(run, "mode");

	if (!w)
		fail_msg("%s: no workload %s (run %s: %s)", mode, name, itest_str(run, "status"),
			 itest_str(run, "error"));
	if (strcmp(itest_str(w, "status"), "ok"))
		fail_msg("%s/%s: %s", mode, name, itest_str(w, "error"));
	return w;
}

json_int_t itest_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("'%s' is not an integer", key);
	return json_integer_value(v);
}

json_int_t itest_icr_per_call(json_t *counters)
{
	json_int_t ops = itest_int(counters, "operations");

	if (ops <= 0)
		fail_msg("no operation counted");
	return itest_int(counters, "icr_writes") / ops;
}

double itest_number(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		fail_msg("'%s' is not a number", key);
	return json_number_value(v);
}

json_t *itest_load_results(const char *dir)
{
	char path[4096];
	json_error_t je;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	return json_load_file(path, 0, &je);
}

int itest_free_results(json_t **results)
{
	json_decref(*results);
	*results = NULL;
	return 0;
}

json_t *itest_run_config(const char *config, const char *dir, int show)
{
	struct cmd_out o;
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return NULL;
	itest_run(&o, (const char *[]){ "run", "-c", config, "-o", dir, NULL });
	if (show)
		fprintf(stderr, "%s", o.text);
	free(o.text);
	return itest_load_results(dir);
}

json_t *itest_fault_run(const char *name, const char *config, const char *dir, int *status)
{
	struct cmd_out o;
	struct timespec t0, t1;
	char cmd[4200];
	json_t *r;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	itest_run(&o, (const char *[]){ "run", "-c", config, "-o", dir, NULL });
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "%s: ipibench run on %s took %ld s, exit %d\n", name,
		itest_xen() ? itest_xen() : "the default build", (long)(t1.tv_sec - t0.tv_sec),
		o.status);
	if (o.status)
		fprintf(stderr, "%s", o.text);
	if (status)
		*status = o.status;
	if (itest_qemu_alive(o.pid)) {
		fprintf(stderr, "%s: QEMU still running after ipibench run\n", name);
		free(o.text);
		return NULL;
	}
	free(o.text);
	r = itest_load_results(dir);
	if (!r)
		fprintf(stderr, "%s: no %s/results.json\n", name, dir);
	return r;
}

json_t *itest_fault_of(json_t *results, const char *mode, const char *name)
{
	return json_object_get(itest_need_workload(itest_need_run(results, mode), name), "fault");
}

int itest_xen_config_has(const char *line)
{
	char path[4096], buf[512];
	const char *xen = itest_xen(), *slash = strrchr(xen, '/');
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%.*sxen.config", slash ? (int)(slash - xen + 1) : 0, xen);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: cannot open the build's config (ITEST_XEN=%s)", path, xen);
	while (fgets(buf, sizeof(buf), f))
		if (!strcmp(strtok(buf, "\n") ?: "", line))
			found = 1;
	fclose(f);
	return found;
}

int itest_count_in(const char *file, const char *needle)
{
	char buf[4096];
	int n = 0;
	FILE *f = fopen(file, "r");

	while (f && fgets(buf, sizeof(buf), f))
		n += strstr(buf, needle) != NULL;
	if (f)
		fclose(f);
	return n;
}
