/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/: public interface of reports and history. */
#ifndef IPIBENCH_ANALYSIS_H
#define IPIBENCH_ANALYSIS_H

/* Each verb and its synopsis (lib/opts.h), which its --help, `ipibench
 * --help` and its manual page print. */
struct opts_synopsis;
int cmd_report(int argc, char **argv);
extern const struct opts_synopsis report_synopsis;
int cmd_history(int argc, char **argv);
extern const struct opts_synopsis history_synopsis;

#endif
