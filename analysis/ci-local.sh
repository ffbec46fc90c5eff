#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install gitlab-ci-local (npm package) into build/gitlab-ci-local -- never
# globally -- and run it against the repo's .gitlab-ci.yml.
#
#   analysis/ci-local.sh install          install (idempotent) and print its path
#   analysis/ci-local.sh [ARGS...]        run gitlab-ci-local ARGS... (installs first)
#
# GitLab runs Xen's CI; gitlab-ci-local runs the same jobs here with the shell
# executor (no Docker), so the CI template is exercised for real.
set -euo pipefail
# The version and the whole dependency tree are pinned by
# analysis/tests/ci-local/package-lock.json and installed with `npm ci`, so
# every machine gets the same tree.  gitlab-ci-local 4.60.0 is the newest
# that runs on Debian 12's own nodejs (18.20): 4.73 dies in yargs on 18 and
# 4.74+ needs Node 22.  package.json's overrides keep its native dependency
# re2 at 1.22.1, whose node-gyp (11.x) runs on Node 18.17+ (re2 1.23+ pulls
# node-gyp 12, which needs Node 20).  re2 is built by node-gyp against the
# installed Node headers (Debian's libnode-dev, /usr/include/node):
# --nodedir=/usr, so nothing is downloaded from outside the npm registry.
top=$(cd "$(dirname "$0")/.." && pwd)
lock=$top/analysis/tests/ci-local
prefix=$top/build/gitlab-ci-local
bin=$prefix/node_modules/.bin/gitlab-ci-local
NODE_MIN=18.17

for t in node npm; do
	command -v $t >/dev/null 2>&1 || {
		echo "ci-local: $t not found: make deps installs Debian's nodejs, npm and libnode-dev" >&2
		exit 1
	}
done
nv=$(node --version)
[ "$(printf '%s\n' "$NODE_MIN" "${nv#v}" | sort -V | head -1)" = "$NODE_MIN" ] || {
	echo "ci-local: node $nv is older than $NODE_MIN (gitlab-ci-local 4.60's node-gyp needs it)" >&2
	exit 1
}
# What is installed is named by the lockfile and the Node it was built for.
want="$(sha256sum "$lock/package.json" "$lock/package-lock.json" | sha256sum | cut -c1-16) node $nv"
have=$(cat "$prefix/.installed" 2>/dev/null || true)
if [ ! -x "$bin" ] || [ "$have" != "$want" ]; then
	[ -f /usr/include/node/node_api.h ] || {
		echo "ci-local: /usr/include/node/node_api.h missing: install libnode-dev (make deps)" >&2
		exit 1
	}
	echo "ci-local: npm ci (gitlab-ci-local from $lock/package-lock.json) into $prefix" >&2
	rm -rf "$prefix"
	mkdir -p "$prefix"
	cp "$lock/package.json" "$lock/package-lock.json" "$prefix/"
	(cd "$prefix" && npm ci --no-audit --no-fund --loglevel=error --nodedir=/usr >&2) || {
		echo "ci-local: npm ci failed in $prefix" >&2
		exit 1
	}
	echo "$want" >"$prefix/.installed"
fi
# gitlab-ci-local copies the tree with rsync.  When the machine has none
# (add rsync to scripts/deps.sh to make this moot), unpack Debian's rsync and
# libpopt0 into build/ with apt-get download + dpkg-deb -x: no root, no
# system change.
if ! command -v rsync >/dev/null 2>&1; then
	root=$prefix/root
	if [ ! -x "$root/usr/bin/rsync" ]; then
		echo "ci-local: no rsync: unpacking Debian's rsync into $root" >&2
		mkdir -p "$prefix/debs" "$root"
		(cd "$prefix/debs" && apt-get download rsync libpopt0 >&2)
		for deb in "$prefix"/debs/*.deb; do
			dpkg-deb -x "$deb" "$root"
		done
	fi
	export PATH="$root/usr/bin:$PATH"
	export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [ "${1:-}" = install ]; then
	echo "$bin"
	exit 0
fi
# IPIBENCH_CI_CWD: run in another checkout (e.g. a scratch clone), so the
# jobs' files (ci-results/, public/, .gitlab-ci-local/) stay out of this one.
cd "${IPIBENCH_CI_CWD:-$top}"
exec "$bin" "$@"
