#!/usr/bin/env bash
# Install gitlab-ci-local (npm package) into build/gitlab-ci-local -- never
# globally -- and run it against the repo's .gitlab-ci.yml.
#
#   analysis/ci-local.sh install          install (idempotent) and print its path
#   analysis/ci-local.sh [ARGS...]        run gitlab-ci-local ARGS... (installs first)
#
# GitLab runs Xen's CI; gitlab-ci-local runs the same jobs here with the shell
# executor (no Docker), so the CI template is exercised for real.
set -euo pipefail
# 4.74.0 and later bundle an execa that needs Node 22 (Set.prototype.union:
# "TypeError: kW.union is not a function" on bookworm's Node 20); 4.73.0 is
# the newest release that runs on Node 20.
VERSION=${GITLAB_CI_LOCAL_VERSION:-4.73.0}
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$top/build/gitlab-ci-local
bin=$prefix/node_modules/.bin/gitlab-ci-local

command -v npm >/dev/null 2>&1 || {
	echo "ci-local: npm not found: install Debian's npm package (apt-get install npm)" >&2
	exit 1
}
have=$(cat "$prefix/.version" 2>/dev/null || true)
if [ ! -x "$bin" ] || [ "$have" != "$VERSION" ]; then
	echo "ci-local: installing gitlab-ci-local@$VERSION into $prefix" >&2
	mkdir -p "$prefix"
	npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
		"gitlab-ci-local@$VERSION" >&2
	echo "$VERSION" >"$prefix/.version"
fi
# gitlab-ci-local copies the tree with rsync.  When the machine has none
# (add rsync to mk/deps.sh to make this moot), unpack Debian's rsync and
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
