/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/collect.c: Xen trace buffers -> xentrace file, with libxenctrl.
 *
 * Set-up follows tools/xentrace/xentrace.c: event and CPU masks first, then
 * xc_tbuf_enable() (which also sets the size), map the t_info pages and,
 * for each CPU with buffers (t_info->mfn_offset[cpu] != 0), its tbuf_size
 * pages (ring header + data) read-write, since we move cons.  Draining is
 * probes/tbuf.c's.
 */
#include "probes/collect.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xenctrl.h>
#include <xenevtchn.h>
#include <xenforeignmemory.h>
#include <xen/trace.h>

_Static_assert(sizeof(struct t_buf) == sizeof(struct tb_ring), "struct t_buf layout");
_Static_assert(offsetof(struct t_buf, prod) == offsetof(struct tb_ring, prod), "t_buf.prod");

#define DEFAULT_PAGES 32

struct ipb_collector {
	xc_interface *xch;
	xenforeignmemory_handle *fmem;
	xenevtchn_handle *xce;
	int virq_port;
	const struct t_info *tinfo;
	size_t tinfo_pages;
	void **maps;			/* per CPU mapping (tbuf_size pages) */
	struct tb_set set;
	struct tb_writer w;
	int fd;
	bool enabled_by_us, leave_enabled;
	pthread_mutex_t lock;
	pthread_t thread;
	bool have_thread;
	_Atomic bool stop;
	unsigned poll_ms;
	int thread_errno;
	struct ipb_collect_stats st;
};

static void seterr(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	errno = e;
}

static void unmap_all(struct ipb_collector *c)
{
	if (c->maps)
		for (uint32_t i = 0; i < c->set.ncpu; i++)
			if (c->maps[i])
				xenforeignmemory_unmap(c->fmem, c->maps[i], c->st.pages_per_cpu);
	if (c->tinfo)
		xenforeignmemory_unmap(c->fmem, (void *)c->tinfo, c->tinfo_pages);
	free(c->maps);
	free(c->set.ring);
	free(c->set.data);
	c->maps = NULL;
	c->tinfo = NULL;
	c->set.ring = NULL;
	c->set.data = NULL;
}

static void destroy(struct ipb_collector *c)
{
	unmap_all(c);
	if (c->xce)
		xenevtchn_close(c->xce);
	if (c->fmem)
		xenforeignmemory_close(c->fmem);
	if (c->xch)
		xc_interface_close(c->xch);
	if (c->fd >= 0)
		close(c->fd);
	tb_writer_fini(&c->w);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Map t_info and the per-CPU buffers. */
static int map_buffers(struct ipb_collector *c, unsigned long mfn, unsigned long tinfo_bytes,
		       uint32_t ncpu, char *err, size_t errlen)
{
	xen_pfn_t *pfns;
	uint32_t pages;

	c->tinfo_pages = (tinfo_bytes + XC_PAGE_SIZE - 1) / XC_PAGE_SIZE;
	pfns = calloc(c->tinfo_pages > 65536 ? c->tinfo_pages : 65536, sizeof(*pfns));
	if (!pfns) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < c->tinfo_pages; i++)
		pfns[i] = mfn + i;
	c->tinfo = xenforeignmemory_map(c->fmem, DOMID_XEN, PROT_READ, c->tinfo_pages, pfns, NULL);
	if (!c->tinfo) {
		seterr(err, errlen, "mapping the trace buffer info page: %s", strerror(errno));
		goto fail;
	}
	pages = c->tinfo->tbuf_size;
	if (!pages) {
		seterr(err, errlen, "trace buffers have size 0");
		goto fail;
	}
	c->st.pages_per_cpu = pages;
	c->set.ncpu = ncpu;
	c->set.data_size = pages * XC_PAGE_SIZE - (uint32_t)sizeof(struct t_buf);
	c->maps = calloc(ncpu, sizeof(*c->maps));
	c->set.ring = calloc(ncpu, sizeof(*c->set.ring));
	c->set.data = calloc(ncpu, sizeof(*c->set.data));
	if (!c->maps || !c->set.ring || !c->set.data) {
		seterr(err, errlen, "out of memory");
		goto fail;
	}
	for (uint32_t cpu = 0; cpu < ncpu; cpu++) {
		const uint32_t *mfns;

		/* Offline CPUs (and those outside the CPU mask at allocation) have none. */
		if (!c->tinfo->mfn_offset[cpu])
			continue;
		if ((size_t)c->tinfo->mfn_offset[cpu] + pages > c->tinfo_pages * XC_PAGE_SIZE / 4) {
			seterr(err, errlen, "t_info: cpu %u's page list lies outside t_info", cpu);
			goto fail;
		}
		mfns = (const uint32_t *)c->tinfo + c->tinfo->mfn_offset[cpu];
		for (uint32_t j = 0; j < pages; j++)
			pfns[j] = mfns[j];
		c->maps[cpu] = xenforeignmemory_map(c->fmem, DOMID_XEN, PROT_READ | PROT_WRITE,
						    pages, pfns, NULL);
		if (!c->maps[cpu]) {
			seterr(err, errlen, "mapping cpu %u's trace buffer: %s", cpu, strerror(errno));
			goto fail;
		}
		c->set.ring[cpu] = c->maps[cpu];
		c->set.data[cpu] = (const uint8_t *)c->maps[cpu] + sizeof(struct t_buf);
		c->st.cpus++;
	}
	free(pfns);
	return 0;
fail:
	free(pfns);
	return -1;
}

/* Wait for VIRQ_TBUF (Xen: a buffer passed half full) or the timeout. */
static void wait_event(struct ipb_collector *c)
{
	struct pollfd pfd;
	int port;

	if (!c->xce) {
		usleep(c->poll_ms * 1000u);
		return;
	}
	pfd.fd = xenevtchn_fd(c->xce);
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)c->poll_ms) == 1) {
		port = xenevtchn_pending(c->xce);
		if (port >= 0)
			xenevtchn_unmask(c->xce, (evtchn_port_t)port);
	}
}

static void *drain_thread(void *arg)
{
	struct ipb_collector *c = arg;

	while (!c->stop) {
		pthread_mutex_lock(&c->lock);
		if (tb_drain(&c->set, &c->w) && !c->thread_errno)
			c->thread_errno = errno ? errno : EIO;
		pthread_mutex_unlock(&c->lock);
		wait_event(c);
	}
	return NULL;
}

int ipb_collect_start(struct ipb_collector **out, const struct ipb_collect_opts *o,
		      char *err, size_t errlen)
{
	struct ipb_collector *c = calloc(1, sizeof(*c));
	unsigned long mfn = 0, tinfo_bytes = 0;
	xc_physinfo_t info;
	uint32_t ncpu;

	*out = NULL;
	if (!c) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	c->fd = -1;
	c->virq_port = -1;
	c->poll_ms = o->poll_ms;
	c->leave_enabled = o->leave_enabled;
	pthread_mutex_init(&c->lock, NULL);
	c->xch = xc_interface_open(NULL, NULL, 0);
	c->fmem = xenforeignmemory_open(NULL, 0);
	if (!c->xch || !c->fmem) {
		seterr(err, errlen, "opening libxenctrl/xenforeignmemory: %s (is this dom0, "
		       "with /dev/xen/privcmd?)", strerror(errno));
		goto fail;
	}
	if (xc_physinfo(c->xch, &info)) {
		seterr(err, errlen, "xc_physinfo: %s", strerror(errno));
		goto fail;
	}
	ncpu = info.max_cpu_id + 1;
	c->st.tsc_khz = o->tsc_khz ? o->tsc_khz : info.cpu_khz;
	if (xc_tbuf_set_evt_mask(c->xch, o->evt_mask ? o->evt_mask : TRC_ALL)) {
		seterr(err, errlen, "xc_tbuf_set_evt_mask(0x%08x): %s",
		       o->evt_mask ? o->evt_mask : TRC_ALL, strerror(errno));
		goto fail;
	}
	if (o->cpu_mask) {
		xc_cpumap_t map = xc_cpumap_alloc(c->xch);
		int sz = xc_get_cpumap_size(c->xch), rc;

		if (!map || sz <= 0) {
			seterr(err, errlen, "xc_cpumap_alloc: %s", strerror(errno));
			free(map);
			goto fail;
		}
		memcpy(map, o->cpu_mask, o->cpu_mask_bytes < (size_t)sz ? o->cpu_mask_bytes : (size_t)sz);
		rc = xc_tbuf_set_cpu_mask(c->xch, map);
		free(map);
		if (rc) {
			seterr(err, errlen, "xc_tbuf_set_cpu_mask: %s", strerror(errno));
			goto fail;
		}
	}
	if (xc_tbuf_enable(c->xch, o->pages_per_cpu ? o->pages_per_cpu : DEFAULT_PAGES, &mfn,
			   &tinfo_bytes)) {
		seterr(err, errlen, "xc_tbuf_enable: %s (Xen built without CONFIG_TRACEBUFFER?)",
		       strerror(errno));
		goto fail;
	}
	c->enabled_by_us = true;
	if (map_buffers(c, mfn, tinfo_bytes, ncpu, err, errlen))
		goto fail;
	c->fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->fd < 0) {
		seterr(err, errlen, "%s: %s", o->path, strerror(errno));
		goto fail;
	}
	if (tb_writer_init(&c->w, c->fd, c->set.data_size)) {
		seterr(err, errlen, "out of memory");
		goto fail;
	}
	if (!o->keep_old)
		tb_discard(&c->set);
	if (c->st.tsc_khz && tb_write_tsc_khz(&c->w, 0, c->st.tsc_khz)) {
		seterr(err, errlen, "%s: %s", o->path, strerror(errno));
		goto fail;
	}
	if (c->poll_ms) {
		/* VIRQ_TBUF wakes us early when a buffer fills; timed polls otherwise. */
		c->xce = xenevtchn_open(NULL, 0);
		if (c->xce) {
			c->virq_port = xenevtchn_bind_virq(c->xce, VIRQ_TBUF);
			if (c->virq_port < 0) {
				xenevtchn_close(c->xce);
				c->xce = NULL;
			}
		}
		if (pthread_create(&c->thread, NULL, drain_thread, c)) {
			seterr(err, errlen, "pthread_create: %s", strerror(errno));
			goto fail;
		}
		c->have_thread = true;
	}
	*out = c;
	return 0;
fail:
	if (c->enabled_by_us && !c->leave_enabled)
		xc_tbuf_disable(c->xch);
	destroy(c);
	return -1;
}

int ipb_collect_poll(struct ipb_collector *c, char *err, size_t errlen)
{
	int rc;

	pthread_mutex_lock(&c->lock);
	rc = tb_drain(&c->set, &c->w);
	pthread_mutex_unlock(&c->lock);
	if (rc)
		seterr(err, errlen, "writing the trace: %s", strerror(errno));
	return rc;
}

void ipb_collect_stats(struct ipb_collector *c, struct ipb_collect_stats *st)
{
	pthread_mutex_lock(&c->lock);
	*st = c->st;
	st->tb = c->w.st;
	pthread_mutex_unlock(&c->lock);
}

int ipb_collect_stop(struct ipb_collector *c, struct ipb_collect_stats *st,
		     char *err, size_t errlen)
{
	int rc = 0;

	if (c->have_thread) {
		c->stop = true;
		pthread_join(c->thread, NULL);
		if (c->thread_errno) {
			errno = c->thread_errno;
			seterr(err, errlen, "writing the trace: %s", strerror(errno));
			rc = -1;
		}
	}
	/* Like xentrace: disable, then read everything one last time. */
	if (!c->leave_enabled && xc_tbuf_disable(c->xch) && !rc) {
		seterr(err, errlen, "xc_tbuf_disable: %s", strerror(errno));
		rc = -1;
	}
	if (tb_drain(&c->set, &c->w) && !rc) {
		seterr(err, errlen, "writing the trace: %s", strerror(errno));
		rc = -1;
	}
	if (fsync(c->fd) && errno != EINVAL && !rc) {
		seterr(err, errlen, "fsync: %s", strerror(errno));
		rc = -1;
	}
	if (st) {
		*st = c->st;
		st->tb = c->w.st;
	}
	destroy(c);
	return rc;
}
