# SPDX-License-Identifier: GPL-2.0-or-later
# tcgplug/: libipicount.so, the QEMU TCG plugin counting instructions on
# the hypervisor's IPI paths (README.md there).  Its pure part (argument
# parsing, windows, output lines: window.c) is an ordinary component, unit
# tested and linked into the runner (which reads the plugin's lines); the
# plugin itself is built against Debian 13's qemu-plugin.h, fetched once
# by scripts/qemu-plugin-h.sh into $(BUILD)/qemu-plugin/.
tcgplug_SRCS := tcgplug/window.c
tcgplug_TESTS := $(wildcard tcgplug/tests/test_*.c)
tcgplug_LIBS :=

QEMU_PLUGIN_H := $(BUILD)/qemu-plugin/include/qemu/qemu-plugin.h
IPICOUNT_SO := $(BUILD)/tcgplug/libipicount.so
$(QEMU_PLUGIN_H): scripts/qemu-plugin-h.sh scripts/qemu-source.sh scripts/apt-private.sh
	$(Q)bash scripts/qemu-plugin-h.sh $(BUILD)/qemu-plugin
$(IPICOUNT_SO): tcgplug/ipicount.c tcgplug/window.c tcgplug/ipicount.h $(QEMU_PLUGIN_H)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@ (QEMU plugin)")
	$(Q)$(CC) -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fPIC -shared \
		-I$(dir $(QEMU_PLUGIN_H)) $$(pkg-config --cflags glib-2.0) \
		tcgplug/ipicount.c tcgplug/window.c -o $@
.PHONY: plugin
plugin: $(IPICOUNT_SO)
