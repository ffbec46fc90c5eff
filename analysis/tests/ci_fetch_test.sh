#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# analysis/ci.sh publish fetching the previous history: only HTTP 404 may
# mean "first pipeline"; every other failure must fail the job with its
# reason.  A tiny HTTP server on 127.0.0.1 (loopback only) serves each case:
#   404, 500, a truncated body, a body that is not a tarball, tarballs with
#   a ../ member or a symbolic link, a good tarball;
# plus a refused connection and a PATH without curl.
# Needs a built ipibench (IPIBENCH, default build/bin/ipibench), python3.
#   analysis/tests/ci_fetch_test.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${IPIBENCH:-$top/build/bin/ipibench}
[ -x "$bin" ] || { echo "ci_fetch_test: $bin not built" >&2; exit 1; }
command -v python3 >/dev/null || { echo "ci_fetch_test: python3 missing" >&2; exit 1; }
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
H=$top/analysis/tests/data/history
fails=0 n=0

# The tarballs the server hands out.
mkdir -p "$work/t/good/prev-set2" "$work/t/evil" "$work/t/link/s"
cp "$H/set2/results.json" "$work/t/good/prev-set2/"
tar -czf "$work/good.tar.gz" -C "$work/t/good" .
cp "$H/set2/results.json" "$work/t/evil/results.json"
tar -czf "$work/evil.tar.gz" -C "$work/t/evil" --transform 's,^,../../,' results.json 2>/dev/null
ln -s /etc "$work/t/link/s/results.json"
tar -czf "$work/link.tar.gz" -C "$work/t/link" .

cat >"$work/server.py" <<'EOF'
import http.server, sys
work = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def send(self, code, body, length=None):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        p = self.path.strip("/")
        if p in ("good", "evil", "link"):
            self.send(200, open(f"{work}/{p}.tar.gz", "rb").read())
        elif p == "500":
            self.send(500, b"internal error\n")
        elif p == "short":
            self.send(200, open(f"{work}/good.tar.gz", "rb").read()[:40], length=100000)
            self.close_connection = True
        elif p == "garbage":
            self.send(200, b"<html>not a tarball</html>\n")
        else:
            self.send(404, b"not found\n")
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(f"{work}/port.tmp", "w").write(str(s.server_address[1]))
import os; os.rename(f"{work}/port.tmp", f"{work}/port")
s.serve_forever()
EOF
python3 "$work/server.py" "$work" &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "ci_fetch_test: the HTTP server did not start" >&2; exit 1; }
base=http://127.0.0.1:$(cat "$work/port")

# publish URL [PATH] -> status in $rc, output in $work/log
publish() {
	rm -rf "$work/out"
	(cd "$top" && PATH=${2:-$PATH} IPIBENCH=$bin IPIBENCH_HISTORY_URL=$1 CI_PIPELINE_ID=77 \
		bash analysis/ci.sh publish "$work/out" "$H/set1") >"$work/log" 2>&1
	rc=$?
}
check() {	# check WHAT STATUS WANT-STATUS GREP
	n=$((n + 1))
	if [ "$2" -eq "$3" ] && grep -q -- "$4" "$work/log"; then
		echo "ok   $1"
	else
		echo "FAIL $1 (status $2, wanted $3 and '$4'):"; tail -5 "$work/log"
		fails=$((fails + 1))
	fi
}

publish "$base/none.tar.gz"
check "HTTP 404: first pipeline, history from this set only" $rc 0 "(HTTP 404: first pipeline)"
[ -s "$work/out/index.html" ] && tar -tzf "$work/out/results.tar.gz" | grep '77-set1/results.json' >/dev/null
check "... published" $? 0 "published"

publish "$base/good"
check "HTTP 200: the previous set is merged" $rc 0 "previous history from $base/good: 1 result sets"
tar -tzf "$work/out/results.tar.gz" | grep 'prev-set2/results.json' >/dev/null
check "... and kept for the next pipeline" $? 0 "published"

publish "$base/500"
check "HTTP 500 fails the job" $rc 1 "ci.sh: cannot fetch the previous history from $base/500: HTTP 500"
[ ! -e "$work/out/history-status" ]
check "... before any verdict is written" $? 0 "HTTP 500"

publish "$base/short"
check "a truncated download fails the job" $rc 1 "curl status 18"

publish "$base/garbage"
check "a body that is not a tarball fails the job" $rc 1 "is not a gzip'ed tarball"

publish "$base/evil"
check "a ../ member fails the job" $rc 1 "member '../../results.json' is outside the archive"

publish "$base/link"
check "a symbolic link in the tarball fails the job" $rc 1 "not a file or directory: l"

# a port nobody listens on: connection refused (curl status 7)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
publish "http://127.0.0.1:$port/results.tar.gz"
check "a refused connection fails the job" $rc 1 "curl status 7"

# every command but curl
mkdir -p "$work/nocurl"
for f in /usr/local/bin/* /usr/bin/* /bin/*; do
	b=$(basename "$f")
	[ "$b" = curl ] || [ -e "$work/nocurl/$b" ] || ln -s "$f" "$work/nocurl/$b"
done
publish "$base/good" "$work/nocurl"
check "no curl fails the job" $rc 1 "ci.sh: curl not found: cannot fetch the previous history"

echo "ci_fetch_test: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
