#!/usr/bin/env bash
# Unpacks Debian bookworm's arm64 `nodejs` and the libraries it loads into one folder, so
# that `qemu-aarch64 -L <folder> <folder>/usr/bin/node` runs the agent as an ARM device would.
# Usage: arm-setup.sh [folder]   (default /opt/wgcp-arm64; prints the folder when done)
set -euo pipefail
root=${1:-/opt/wgcp-arm64}
export DEBIAN_FRONTEND=noninteractive

if [ -x "$root/usr/bin/node" ] && command -v qemu-aarch64 >/dev/null; then
  echo "$root"
  exit 0
fi

dpkg --add-architecture arm64
apt-get update -q >&2
apt-get install -y --no-install-recommends qemu-user >&2

# nodejs and the closure of its Depends (arm64 libraries plus the arch-all JS modules that
# Debian's libnode loads at run time).
packages=(
  nodejs:arm64 libnode108:arm64 libc6:arm64 libgcc-s1:arm64 gcc-12-base:arm64
  libstdc++6:arm64 libbrotli1:arm64 libc-ares2:arm64 libicu72:arm64 libnghttp2-14:arm64
  libssl3:arm64 libuv1:arm64 zlib1g:arm64
  node-acorn node-cjs-module-lexer node-undici node-busboy node-xtend
)

work=$(mktemp -d)
chmod 755 "$work"  # apt-get download drops privileges to _apt
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "${packages[@]}" >&2)
mkdir -p "$root"
for deb in "$work"/*.deb; do
  dpkg -x "$deb" "$root"
done
qemu-aarch64 -L "$root" "$root/usr/bin/node" --version >&2
echo "$root"
