#!/bin/sh
# Prints the path of a fresh Debian root made by debootstrap for the real-install test.
# The bootstrapped root is cached as a tarball (keyed on suite, arch and package list) so
# a second run only unpacks it. Usage: debian-root.sh DEST_DIR
set -eu

dest=${1:?usage: debian-root.sh DEST_DIR}
suite=${WGCP_CI_SUITE:-trixie}
mirror=${WGCP_CI_MIRROR:-http://deb.debian.org/debian}
cache=${WGCP_CI_CACHE:-/var/cache/wgcp-ci}
arch=$(dpkg --print-architecture)
# What the wgcp deb depends on (and wireguard-go, which this kernel needs), preinstalled so
# that `dpkg -i` needs no network; systemd boots the root as a container and brings
# systemd-notify and systemd-analyze of the target release; curl talks to the API inside;
# procps (pgrep) and iputils-ping look at processes and IPv6 through the tunnel.
include=nodejs,openssl,nftables,wireguard-tools,wireguard-go,iproute2,systemd,curl,procps,iputils-ping

key=$(printf '%s %s %s' "$suite" "$arch" "$include" | sha256sum | cut -c1-12)
tarball="$cache/debian-$suite-$arch-$key.tar.gz"

mkdir -p "$cache"
# A build whose process is gone (a run killed half-way) is 300 MB of nothing.
for old in "$cache"/build-*; do
  [ -d "$old" ] || continue
  kill -0 "${old##*-}" 2>/dev/null || rm -rf "$old"
done
if [ ! -s "$tarball" ]; then
  work="$cache/build-$$"
  rm -rf "$work"
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase --include="$include" "$suite" "$work" "$mirror" >&2
  rm -rf "$work/var/cache/apt/archives/"*.deb "$work/var/lib/apt/lists/"*_Packages
  tar -C "$work" -czf "$tarball.tmp-$$" .
  mv "$tarball.tmp-$$" "$tarball"
  rm -rf "$work"
  # Roots made for another package list are dead weight now.
  find "$cache" -maxdepth 1 -name "debian-$suite-$arch-*.tar.gz" ! -name "${tarball##*/}" -delete
fi

rm -rf "$dest"
mkdir -p "$dest"
tar -C "$dest" -xzf "$tarball"
echo "$dest"
