/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/: public interface of reports and history. */
#ifndef IPIBENCH_ANALYSIS_H
#define IPIBENCH_ANALYSIS_H

/* `ipibench report DIR... [-o OUT]` */
int cmd_report(int argc, char **argv);
/* `ipibench history RESULTS... [-o OUT]` */
int cmd_history(int argc, char **argv);

#endif
