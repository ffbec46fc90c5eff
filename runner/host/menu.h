/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The GRUB menu `ipibench host install` writes: one entry per x2APIC mode in
 * custom.cfg, between two marker lines so that uninstall finds them again.
 */
#ifndef IPIBENCH_HOST_MENU_H
#define IPIBENCH_HOST_MENU_H

#include <stddef.h>

#define HOST_ENTRY_PREFIX "ipibench-"
#define HOST_CFG_BEGIN "### BEGIN ipibench (written by 'ipibench host install'; 'ipibench host uninstall' removes it) ###"
#define HOST_CFG_END "### END ipibench ###"

struct host_install;   /* runner/backends/reboot.h: what host.json records */

/* The GRUB menu entry id of a mode: "ipibench-physical". */
void host_entry_id(const char *mode, char *buf, size_t len);
/* Every mode's entry id, SEP between them: "ipibench-physical, ...". */
const char *host_entry_list(char *buf, size_t len, const char *sep);
/* The custom.cfg block (BEGIN..END lines included), an entry per mode. */
int host_entries_text(const struct host_install *h, char *buf, size_t len);
/* TEXT without its ipibench block (malloc'd).  *found tells whether it had one. */
char *host_cfg_strip(const char *text, int *found);
/* PATH as GRUB sees it: relative to the root of the filesystem holding it. */
int host_grub_path(const char *path, char *buf, size_t len);

#endif
