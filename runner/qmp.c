/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "runner/qmp.h"
#include "runner/util.h"
#include "lib/safeio.h"

/* The next message (one line) within DEADLINE (now_s() seconds), parsed. */
static json_t *next_msg(struct qmp *q, double deadline, char *err, size_t errlen)
{
	for (;;) {
		char *nl = q->len ? memchr(q->buf, '\n', q->len) : NULL;

		if (nl) {
			size_t n = (size_t)(nl - q->buf) + 1;
			json_error_t je;
			json_t *m = json_loadb(q->buf, n, 0, &je);
			char shown[80], raw[64];

			if (!m || !json_is_object(m)) {
				snprintf(raw, sizeof(raw), "%.*s", (int)(n - 1 < 60 ? n - 1 : 60), q->buf);
				snprintf(err, errlen, "QMP: not a JSON object: '%s'",
					 sio_shown(shown, sizeof(shown), raw));
				json_decref(m);
				return NULL;
			}
			memmove(q->buf, q->buf + n, q->len - n);
			q->len -= n;
			return m;
		}
		if (q->len >= QMP_MAX_MSG) {
			snprintf(err, errlen, "QMP: a message over %u bytes", QMP_MAX_MSG);
			return NULL;
		}
		double left = deadline - now_s();
		if (left <= 0) {
			snprintf(err, errlen, "QMP: no answer in time");
			return NULL;
		}
		struct pollfd p = { .fd = q->fd, .events = POLLIN };
		int n = poll(&p, 1, (int)(left * 1000) + 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "QMP: poll: %s", strerror(errno));
			return NULL;
		}
		if (!n)
			continue;
		if (q->cap - q->len < 65536) {
			size_t cap = q->cap ? q->cap * 2 : 131072;
			char *b = realloc(q->buf, cap);

			if (!b) {
				snprintf(err, errlen, "QMP: out of memory");
				return NULL;
			}
			q->buf = b;
			q->cap = cap;
		}
		ssize_t got = read(q->fd, q->buf + q->len, q->cap - q->len);

		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0) {
			snprintf(err, errlen, "QMP: %s", got ? strerror(errno) : "the monitor closed");
			return NULL;
		}
		q->len += (size_t)got;
	}
}

static int send_all(struct qmp *q, const char *s, char *err, size_t errlen)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = send(q->fd, s, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "QMP: write: %s", n ? strerror(errno) : "nothing written");
			return -1;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The answer to the command just sent: its "return" (a new reference). */
static json_t *answer(struct qmp *q, double deadline, char *err, size_t errlen)
{
	for (;;) {
		json_t *m = next_msg(q, deadline, err, errlen), *r;

		if (!m)
			return NULL;
		if ((r = json_object_get(m, "return"))) {
			json_incref(r);
			json_decref(m);
			return r;
		}
		if (json_object_get(m, "error")) {
			const char *d = json_string_value(json_object_get(json_object_get(m, "error"),
									  "desc"));
			char shown[200];

			snprintf(err, errlen, "QMP error: %s", sio_shown(shown, sizeof(shown), d ? d : "?"));
			json_decref(m);
			return NULL;
		}
		if (!json_object_get(m, "event")) {
			snprintf(err, errlen, "QMP: a message that is no return, error or event");
			json_decref(m);
			return NULL;
		}
		json_decref(m);
	}
}

int qmp_open(struct qmp *q, int fd, int timeout_ms, char *err, size_t errlen)
{
	double deadline = now_s() + timeout_ms / 1000.0;
	json_t *m, *r;

	*q = (struct qmp){ .fd = fd };
	if (!(m = next_msg(q, deadline, err, errlen)))
		return -1;
	if (!json_object_get(m, "QMP")) {
		snprintf(err, errlen, "QMP: the first message is no greeting");
		json_decref(m);
		return -1;
	}
	json_decref(m);
	if (send_all(q, "{\"execute\": \"qmp_capabilities\"}\n", err, errlen) ||
	    !(r = answer(q, deadline, err, errlen)))
		return -1;
	json_decref(r);
	return 0;
}

char *qmp_hmp(struct qmp *q, const char *command, int timeout_ms, char *err, size_t errlen)
{
	json_t *cmd = json_pack("{s:s, s:{s:s}}", "execute", "human-monitor-command", "arguments",
				"command-line", command);
	char *text = cmd ? json_dumps(cmd, JSON_COMPACT) : NULL, *out = NULL;
	json_t *r = NULL;
	int bad;

	json_decref(cmd);
	if (!text) {
		snprintf(err, errlen, "QMP: out of memory");
		return NULL;
	}
	/* One message a line: json_dumps() escapes every newline. */
	bad = send_all(q, text, err, errlen) || send_all(q, "\n", err, errlen);
	free(text);
	if (bad || !(r = answer(q, now_s() + timeout_ms / 1000.0, err, errlen)))
		return NULL;
	if (!json_is_string(r))
		snprintf(err, errlen, "QMP: human-monitor-command returned no text");
	else if (!(out = strdup(json_string_value(r))))
		snprintf(err, errlen, "QMP: out of memory");
	json_decref(r);
	return out;
}

void qmp_close(struct qmp *q)
{
	free(q->buf);
	q->buf = NULL;
	q->len = q->cap = 0;
}
