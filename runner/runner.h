/* SPDX-License-Identifier: GPL-3.0-or-later */
/* runner/: public interface of the ipibench command's own verbs. */
#ifndef IPIBENCH_RUNNER_H
#define IPIBENCH_RUNNER_H

#define IPIBENCH_VERSION "0.1.0"

/* Each verb and its synopsis (opts/opts.h), which its --help, `ipibench
 * --help` and its manual page print. */
struct opts_synopsis;
int cmd_boot(int argc, char **argv);
extern const struct opts_synopsis boot_synopsis;
int cmd_run(int argc, char **argv);
extern const struct opts_synopsis run_synopsis;
int cmd_host(int argc, char **argv);
extern const struct opts_synopsis host_synopsis;

#endif
