#!/usr/bin/env bash
# A nats-server that keeps compare-and-set on a replicated key-value bucket: servers before 2.9.21 check the
# expected revision before the write is replicated, not as part of it, so on a three-node cluster two writers can
# both win (nats-io/nats-server#4320; the embedded store loses counts and unique keys then). Debian 12 ships
# 2.9.10. When the nats-server on PATH is older and NATS_SERVER_BIN is not set, this takes Debian 13's package
# (the same Debian archive, checked against the digest below) and unpacks its one static binary into the user's
# cache, where tools/testing's NatsServer (tests, `make dev`) looks first. Nothing is installed system-wide.
set -euo pipefail

version=2.10.27
deb=nats-server_2.10.27-1+b2_amd64.deb
sha256=6d913ac987b78734c08537c2adeb1526cf735f216173a9170d94b185fcfe6f8a
cache="${XDG_CACHE_HOME:-$HOME/.cache}/mainline/nats-server-$version"

[ -n "${NATS_SERVER_BIN:-}" ] && exit 0
[ -x "$cache/nats-server" ] && exit 0
installed=$(nats-server --version 2>/dev/null | sed -n 's/^nats-server: v//p' || true)
if [ -n "$installed" ] && [ "$(printf '%s\n%s\n' "2.9.21" "$installed" | sort -V | head -1)" = "2.9.21" ]; then
  exit 0
fi
if [ "$(uname -m)" != "x86_64" ] || ! command -v dpkg-deb >/dev/null 2>&1; then
  echo "[setup] nats-server ${installed:-missing} cannot keep compare-and-set on a cluster (needs 2.9.21 or later); set NATS_SERVER_BIN to a newer one" >&2
  exit 0
fi

echo "[setup] nats-server ${installed:-missing} is older than 2.9.21: unpacking Debian's nats-server $version into $cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! curl -fsS -m 300 -o "$work/$deb" "http://deb.debian.org/debian/pool/main/n/nats-server/$deb"; then
  echo "[setup] could not download $deb from deb.debian.org; cluster mode needs nats-server 2.9.21 or later (NATS_SERVER_BIN)" >&2
  exit 0
fi
echo "$sha256  $work/$deb" | sha256sum --check --status || {
  echo "[setup] $deb does not match its pinned digest; not used" >&2
  exit 1
}
dpkg-deb -x "$work/$deb" "$work/root"
mkdir -p "$(dirname "$cache")"
mkdir -p "$work/out" && cp "$work/root/usr/sbin/nats-server" "$work/out/nats-server"
# Renamed into place in one step, so a second Mainline setting up at the same time never runs half a binary.
mv -T "$work/out" "$cache" 2>/dev/null || [ -x "$cache/nats-server" ]
"$cache/nats-server" --version
