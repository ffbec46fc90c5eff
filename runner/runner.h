/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * runner/: the verbs of the ipibench command that live in runner/ (boot,
 * run, host; cli/main.c dispatches to them and to analysis.h's report
 * and history and probes.h's trace), and the version the command prints
 * and results.json records.  Each verb's synopsis and options are its own
 * --help (the usage text in its cmd_<verb>.c).
 */
#ifndef IPIBENCH_RUNNER_H
#define IPIBENCH_RUNNER_H

#define IPIBENCH_VERSION "0.1.0"

/* Each verb and its synopsis (lib/opts.h), which its --help, `ipibench
 * --help` and its manual page print. */
struct opts_synopsis;
/* `ipibench boot`: one boot of the patched Xen under QEMU (cmd_boot.c). */
int cmd_boot(int argc, char **argv);
extern const struct opts_synopsis boot_synopsis;
/* `ipibench run`: a config's matrix, --resume, --list (cmd_run.c). */
int cmd_run(int argc, char **argv);
extern const struct opts_synopsis run_synopsis;
/* `ipibench host install|uninstall|status|check|capture`: a test host (cmd_host.c). */
int cmd_host(int argc, char **argv);
extern const struct opts_synopsis host_synopsis;

#endif
