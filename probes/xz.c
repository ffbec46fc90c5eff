/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/xz.c: xt_open(), a trace file that may be xz-compressed
 * (probes/xtrace.h).  A file that does not start with xz's magic is
 * xt_map()'s mapping, untouched (the uncompressed path costs one compare).
 * An xz file is unpacked with liblzma (streams concatenated, as xz -d
 * does) into an anonymous memory file (memfd) of at most MAX bytes, which
 * is then mapped like a trace file: the readers, the workers' pread()
 * included, see exactly the bytes of the unpacked file.
 */
#include "probes/xtrace.h"

#include <errno.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/safeio.h"

#define XZ_OUT_BYTES (1u << 20)

bool xt_is_xz(const void *p, size_t len)
{
	return len >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6);
}

static const char *lzma_why(lzma_ret r)
{
	switch (r) {
	case LZMA_MEM_ERROR: return "out of memory";
	case LZMA_FORMAT_ERROR: return "not an xz stream";
	case LZMA_OPTIONS_ERROR: return "unsupported xz options";
	case LZMA_DATA_ERROR: return "corrupt xz data";
	case LZMA_BUF_ERROR: return "truncated xz data";
	default: return "xz error";
	}
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int xt_unpack_xz(struct xt_file *f, const char *path, const void *in, size_t inlen,
		 uint64_t max, char *err, size_t errlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t *out = NULL;
	uint64_t total = 0;
	lzma_ret r;
	int fd = -1;
	void *p;
	char q[256];

	sio_shown(q, sizeof(q), path);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	fd = memfd_create("ipibench-xz", MFD_CLOEXEC);
	out = malloc(XZ_OUT_BYTES);
	if (fd < 0 || !out) {
		snprintf(err, errlen, "%s: xz: %s", q, fd < 0 ? strerror(errno) : "out of memory");
		goto fail;
	}
	r = lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED);
	if (r != LZMA_OK) {
		snprintf(err, errlen, "%s: xz: %s", q, lzma_why(r));
		goto fail;
	}
	s.next_in = in;
	s.avail_in = inlen;
	do {
		size_t got;

		s.next_out = out;
		s.avail_out = XZ_OUT_BYTES;
		r = lzma_code(&s, LZMA_FINISH);
		got = XZ_OUT_BYTES - s.avail_out;
		if (r != LZMA_OK && r != LZMA_STREAM_END) {
			snprintf(err, errlen, "%s: xz: %s at compressed offset %" PRIu64, q,
				 lzma_why(r), (uint64_t)s.total_in);
			goto fail;
		}
		for (size_t b = 0; b + XT_ZERO_BLOCK <= got; b += XT_ZERO_BLOCK)
			if (!out[b] && !memcmp(out + b, out + b + 1, XT_ZERO_BLOCK - 1)) {
				snprintf(err, errlen, "%s: xz: unpacked offset %" PRIu64 ": %u zero "
					 "bytes: not a xentrace file (its records have a non-zero "
					 "header every 40 bytes at most)", q, total + b,
					 XT_ZERO_BLOCK);
				goto fail;
			}
		if (got > max - total) {
			snprintf(err, errlen, "%s: xz: unpacks to more than the bound of %" PRIu64
				 " bytes (at compressed offset %" PRIu64 ")", q, max,
				 (uint64_t)s.total_in);
			goto fail;
		}
		if (write_all(fd, out, got)) {
			snprintf(err, errlen, "%s: xz: writing the unpacked data: %s", q,
				 strerror(errno));
			goto fail;
		}
		total += got;
	} while (r != LZMA_STREAM_END);
	lzma_end(&s);
	free(out);
	out = NULL;
	if (!total) {
		close(fd);
		f->base = (const uint8_t *)"";
		return 0;
	}
	p = mmap(NULL, (size_t)total, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "%s: xz: mmap: %s", q, strerror(errno));
		goto fail;
	}
	f->base = p;
	f->len = (size_t)total;
	f->mapped = true;
	f->fd = fd;
	return 0;
fail:
	lzma_end(&s);
	free(out);
	if (fd >= 0)
		close(fd);
	return -1;
}

int xt_open(struct xt_file *f, const char *path, uint64_t max, char *err, size_t errlen)
{
	struct xt_file packed;

	if (xt_map_max(f, path, max, err, errlen))
		return -1;
	if (!xt_is_xz(f->base, f->len))
		return 0;
	packed = *f;
	if (max > XT_XZ_MAX_BYTES)	/* the unpacked bytes are in memory */
		max = XT_XZ_MAX_BYTES;
	if (xt_unpack_xz(f, path, packed.base, packed.len, max, err, errlen)) {
		xt_unmap(&packed);
		return -1;
	}
	xt_unmap(&packed);
	return 0;
}
