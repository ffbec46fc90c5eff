/* SPDX-License-Identifier: GPL-3.0-or-later */
/* runner/: public interface of the ipibench command's own verbs. */
#ifndef IPIBENCH_RUNNER_H
#define IPIBENCH_RUNNER_H

#define IPIBENCH_VERSION "0.1.0"

/* `ipibench boot --mode physical|cluster|mixed --cpus N [--timeout S]` */
int cmd_boot(int argc, char **argv);
/* `ipibench run -c CONFIG [-o DIR]`, `ipibench run --resume DIR` */
int cmd_run(int argc, char **argv);
/* `ipibench host install|uninstall|status` */
int cmd_host(int argc, char **argv);

#endif
