#!/usr/bin/env bash
# `npm run package:deb`: builds wgcp_<version>_<arch>.deb (the daemon with its production
# node_modules) and wgcp-agent_<version>_all.deb (the agent's one-file bundle) with dpkg-deb.
# Usage: build-deb.sh [OUT_DIR]   (default dist/packages)
# WGCP_VERSION overrides the daemon's version from package.json (CI builds a "newer" one this
# way), WGCP_AGENT_VERSION the agent's from agent/package.json (the same version: it follows
# package.json, test/cli-commands.test.ts checks).
# WGCP_SKIP_AGENT=1 builds the daemon's deb alone.
set -euo pipefail
# Modes of what is packed must not depend on the caller's umask (a test runner may hold 077).
umask 022

root=$(cd "$(dirname "$0")/.." && pwd)
here="$root/packaging"
out=$(mkdir -p "${1:-$root/dist/packages}" && cd "${1:-$root/dist/packages}" && pwd)
version=${WGCP_VERSION:-$(node -p "require('$root/package.json').version")}
arch=$(dpkg --print-architecture)
# A folder of this run's own (inside the repository, see stage-app.sh): builds may run side
# by side in one working tree.
work="$root/dist/pkgbuild/run-$$"
trap 'rm -rf "$work"' EXIT
# The project has no mailing address of its own yet: set WGCP_MAINTAINER for a real build.
maintainer=${WGCP_MAINTAINER:-"wgcp maintainers <wgcp-maintainers@example.org>"}
mkdir -p "$work"

# Writes DEBIAN/md5sums, sets the modes lintian expects and builds the .deb.
finish_deb() {
  local tree=$1 file=$2
  find "$tree" -type d -exec chmod 0755 {} +
  (cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum >DEBIAN/md5sums)
  chmod 0644 "$tree/DEBIAN/md5sums"
  dpkg-deb --root-owner-group -Zxz --build "$tree" "$file" >/dev/null
  echo "$file"
}

# Installed-Size in KiB, as dpkg-gencontrol counts it.
installed_size() {
  du -sk --exclude=DEBIAN "$1" | cut -f1
}

# The native changelog and the copyright file every Debian package carries.
write_docs() {
  local tree=$1 pkg=$2 ver=$3 docdir="$1/usr/share/doc/$2"
  mkdir -p "$docdir"
  {
    echo "$pkg ($ver) unstable; urgency=medium"
    echo
    echo "  * Built from the wgcp repository (see README.md there)."
    echo
    echo " -- $maintainer  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}")"
  } | gzip -9n >"$docdir/changelog.gz"
  chmod 0644 "$docdir/changelog.gz"
  install -m 0644 "$here/deb/copyright.head" "$docdir/copyright"
}

build_daemon_deb() {
  local tree="$work/wgcp-deb" app="$work/app"
  "$here/stage-app.sh" "$version" "$app"
  rm -rf "$tree"
  mkdir -p "$tree/DEBIAN" "$tree/usr/lib" "$tree/usr/bin" "$tree/etc/wgcp" \
    "$tree/usr/lib/systemd/system" "$tree/usr/share/man/man1"
  cp -a "$app" "$tree/usr/lib/wgcp"
  install -m 0755 "$here/deb/wgcp/wgcp" "$tree/usr/bin/wgcp"
  install -m 0600 "$here/deb/wgcp/wgcpd.env" "$tree/etc/wgcp/wgcpd.env"
  install -m 0644 "$root/systemd/wgcpd.service" "$tree/usr/lib/systemd/system/wgcpd.service"
  install -D -m 0644 "$here/deb/wireguard-tmpfiles.conf" "$tree/usr/lib/tmpfiles.d/wgcp.conf"
  install -D -m 0644 "$here/deb/wgcp/sysctl.conf" "$tree/usr/lib/sysctl.d/60-wgcp.conf"
  # The standby pair (docs/ha.md): keepalived's notify script and an example configuration.
  install -D -m 0755 "$here/ha/wgcp-ha-notify" "$tree/usr/libexec/wgcp/wgcp-ha-notify"
  install -D -m 0644 "$here/ha/keepalived-wgcp.conf.example" "$tree/usr/share/doc/wgcp/examples/keepalived-wgcp.conf.example"
  install -D -m 0644 "$here/ha/conntrackd.conf.example" "$tree/usr/share/doc/wgcp/examples/conntrackd.conf.example"
  gzip -9n <"$here/man/wgcp.1" >"$tree/usr/share/man/man1/wgcp.1.gz"
  write_docs "$tree" wgcp "$version"
  gzip -9n <"$root/README.md" >"$tree/usr/share/doc/wgcp/README.md.gz"
  # The manual by topic (README.md is its front door); Debian compresses docs over 4 KiB.
  mkdir -p "$tree/usr/share/doc/wgcp/docs"
  for page in "$root"/docs/*.md; do
    name=$(basename "$page")
    gzip -9n <"$page" >"$tree/usr/share/doc/wgcp/docs/$name.gz"
  done
  node "$here/deb/module-copyright.js" "$tree/usr/lib/wgcp/node_modules" usr/lib/wgcp/node_modules >>"$tree/usr/share/doc/wgcp/copyright"
  mkdir -p "$tree/usr/share/lintian/overrides"
  install -m 0644 "$here/deb/wgcp/lintian-overrides" "$tree/usr/share/lintian/overrides/wgcp"
  for script in postinst prerm postrm; do install -m 0755 "$here/deb/wgcp/$script" "$tree/DEBIAN/$script"; done
  echo /etc/wgcp/wgcpd.env >"$tree/DEBIAN/conffiles"

  # The addon is built for this Node's ABI (NODE_MODULE_VERSION), which changes with each
  # major version: the package holds to the major it was built with.
  local major shlibs
  major=$(node -p 'process.versions.node.split(".")[0]')
  shlibs=$(shlib_depends "$tree/usr/lib/wgcp/node_modules/better-sqlite3/build/Release/better_sqlite3.node")
  cat >"$tree/DEBIAN/control" <<CONTROL
Package: wgcp
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(installed_size "$tree")
Depends: nodejs (>= $major), nodejs (<< $((major + 1))), openssl, iproute2, nftables, wireguard-tools, $shlibs
Suggests: wireguard-go
Section: net
Priority: optional
Description: WireGuard control plane daemon for routers
 wgcpd keeps WireGuard servers, peers, device registrations and port
 forwards in one SQLite file, applies them to the kernel with wg, ip and
 nftables, and serves an HTTP API to manage them (wgcp is its admin command).
 .
 It runs on Node.js $major (the native SQLite module is built for that major
 version; Debian 13 "trixie" ships Node.js 20). The first install makes an
 API key, the device salt and a self-signed TLS pair; purge deletes them.
CONTROL
  finish_deb "$tree" "$out/wgcp_${version}_${arch}.deb"
}

# Debian's own computation of library dependencies, run on a scratch debian/control.
shlib_depends() {
  local scratch="$work/shlibdeps"
  rm -rf "$scratch"
  mkdir -p "$scratch/debian"
  printf 'Source: wgcp\n\nPackage: wgcp\nArchitecture: any\n' >"$scratch/debian/control"
  (cd "$scratch" && dpkg-shlibdeps -O "$1" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}

build_agent_deb() {
  local bundle="$root/agent/dist/wgcp-agent.js" tree="$work/wgcp-agent-deb" agent_version
  if [ ! -f "$bundle" ]; then
    (cd "$root/agent" && npm ci --no-audit --no-fund --loglevel=error && npm run build) >&2
  fi
  # The agent's version (it reports it with --version) is the daemon's, kept in agent/package.json too.
  agent_version=${WGCP_AGENT_VERSION:-$(node -p "require('$root/agent/package.json').version")}
  rm -rf "$tree"
  mkdir -p "$tree/DEBIAN" "$tree/usr/lib/wgcp-agent" "$tree/usr/bin" "$tree/usr/lib/systemd/system" \
    "$tree/usr/share/man/man1" "$tree/usr/share/doc/wgcp-agent/examples" "$tree/usr/share/lintian/overrides"
  install -m 0755 "$bundle" "$tree/usr/lib/wgcp-agent/wgcp-agent.js"
  # Loaded only where Node has no WebCrypto (agent/build.js).
  install -m 0644 "$root/agent/dist/wgcp-agent-webcrypto.js" "$tree/usr/lib/wgcp-agent/wgcp-agent-webcrypto.js"
  install -m 0755 "$here/deb/wgcp-agent/wgcp-agent" "$tree/usr/bin/wgcp-agent"
  install -m 0644 "$root/systemd/wgcp-agent.service" "$tree/usr/lib/systemd/system/wgcp-agent.service"
  install -D -m 0644 "$here/deb/wireguard-tmpfiles.conf" "$tree/usr/lib/tmpfiles.d/wgcp-agent.conf"
  gzip -9n <"$here/man/wgcp-agent.1" >"$tree/usr/share/man/man1/wgcp-agent.1.gz"
  write_docs "$tree" wgcp-agent "$agent_version"
  install -m 0644 "$here/deb/wgcp-agent/README" "$tree/usr/share/doc/wgcp-agent/README"
  install -m 0644 "$here/deb/wgcp-agent/config.json" "$tree/usr/share/doc/wgcp-agent/examples/config.json"
  install -m 0644 "$here/deb/wgcp-agent/lintian-overrides" "$tree/usr/share/lintian/overrides/wgcp-agent"
  for script in postinst prerm postrm; do install -m 0755 "$here/deb/wgcp-agent/$script" "$tree/DEBIAN/$script"; done
  cat >"$tree/DEBIAN/control" <<CONTROL
Package: wgcp-agent
Version: $agent_version
Architecture: all
Maintainer: $maintainer
Installed-Size: $(installed_size "$tree")
Depends: nodejs (>= 18), iproute2, wireguard-tools
Suggests: wireguard-go
Section: net
Priority: optional
Description: device agent of the wgcp WireGuard control plane
 wgcp-agent registers a device with a wgcp daemon using a one-time token,
 receives its WireGuard configuration encrypted, keeps the tunnel up and
 reports a heartbeat. It is one JavaScript file with no native code and
 runs on Node.js 18 or later.
CONTROL
  finish_deb "$tree" "$out/wgcp-agent_${agent_version}_all.deb"
}

build_daemon_deb
if [ "${WGCP_SKIP_AGENT:-}" != 1 ]; then build_agent_deb; fi
