/* The host backend registry: one entry per file in runner/backends/. */
#include <string.h>

#include "ipibench/modes.h"
#include "runner/backend.h"

extern const struct host_backend_ops backend_qemu;
extern const struct host_backend_ops backend_local;
extern const struct host_backend_ops backend_reboot;

const struct host_backend_ops *const host_backends[] = {
	&backend_qemu,
	&backend_local,
	&backend_reboot,
	NULL
};

const struct host_backend_ops *host_backend_find(const char *name)
{
	for (size_t i = 0; host_backends[i]; i++)
		if (!strcmp(host_backends[i]->name, name))
			return host_backends[i];
	return NULL;
}

const char *mode_genapic(const char *mode)
{
	return ipibench_mode_genapic(mode);
}
