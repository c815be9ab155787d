#!/usr/bin/env bash
# `npm run package:ipk`: builds wgcp_<version>_<arch>.ipk and wgcp-agent_<version>_all.ipk
# laid out as openwrt/Makefile installs them (fields, conffiles, postinst and files taken
# from it), as an ar archive of debian-binary, control.tar.gz and data.tar.gz.
# This is for checking the package here: the daemon's better-sqlite3 in it is built for this
# machine (glibc). A router's ipk comes from the OpenWrt SDK through openwrt/Makefile,
# which compiles it for the target's CPU and musl.
# Usage: build-ipk.sh [OUT_DIR]   (default dist/packages)
set -euo pipefail
# Modes of what is packed must not depend on the caller's umask (a test runner may hold 077).
umask 022

root=$(cd "$(dirname "$0")/.." && pwd)
feed="$root/openwrt"
out=$(mkdir -p "${1:-$root/dist/packages}" && cd "${1:-$root/dist/packages}" && pwd)
# A folder of this run's own (inside the repository, see stage-app.sh): builds may run side
# by side in one working tree.
work="$root/dist/pkgbuild/run-$$"
trap 'rm -rf "$work"' EXIT
mk="$feed/Makefile"
mkdir -p "$work"

mk_var() { sed -n "s/^$1:=//p" "$mk"; }
# The body of `define NAME` ... `endef`, with make's $$ turned back into $.
mk_define() { awk -v name="define $1" '$0 == name { on = 1; next } on && /^endef$/ { exit } on { print }' "$mk" | sed 's/\$\$/$/g'; }
# One field (DEPENDS:=, USERID:= …) of a package definition.
mk_field() { mk_define "Package/$1" | sed -n "s/^[[:space:]]*$2:=//p"; }

version="$(mk_var PKG_VERSION)-$(mk_var PKG_RELEASE)"
agent_version="$(mk_var AGENT_VERSION)-$(mk_var PKG_RELEASE)"
case $(dpkg --print-architecture) in
  amd64) arch=x86_64 ;; arm64) arch=aarch64_generic ;; i386) arch=i386_pentium4 ;; *) arch=$(uname -m) ;;
esac

# OpenWrt's generated maintainer scripts: they call default_postinst/default_prerm from
# /lib/functions.sh, which add the Require-User users, run uci-defaults, enable the init
# script, and then run the package's own postinst-pkg.
write_default_scripts() {
  local ctl=$1
  cat >"$ctl/postinst" <<'SCRIPT'
#!/bin/sh
[ "${IPKG_NO_SCRIPT}" = "1" ] && exit 0
[ -s "${IPKG_INSTROOT}/lib/functions.sh" ] || exit 0
# shellcheck source=/dev/null # OpenWrt's /lib/functions.sh
. "${IPKG_INSTROOT}/lib/functions.sh"
default_postinst "$0" "$@"
SCRIPT
  cat >"$ctl/prerm" <<'SCRIPT'
#!/bin/sh
[ -s "${IPKG_INSTROOT}/lib/functions.sh" ] || exit 0
# shellcheck source=/dev/null # OpenWrt's /lib/functions.sh
. "${IPKG_INSTROOT}/lib/functions.sh"
default_prerm "$0" "$@"
SCRIPT
  chmod 0755 "$ctl/postinst" "$ctl/prerm"
}

# Packs CTL and DATA into OUT_FILE.
pack_ipk() {
  local ctl=$2 data=$3 file=$4 tmp="$work/$1-ipk"
  local tarflags=(--owner=0 --group=0 --numeric-owner --sort=name --mtime=@"${SOURCE_DATE_EPOCH:-0}")
  rm -rf "$tmp" && mkdir -p "$tmp"
  echo 2.0 >"$tmp/debian-binary"
  tar -C "$ctl" "${tarflags[@]}" -cf - . | gzip -9n >"$tmp/control.tar.gz"
  tar -C "$data" "${tarflags[@]}" -cf - . | gzip -9n >"$tmp/data.tar.gz"
  rm -f "$file"
  (cd "$tmp" && ar -rcD "$file" debian-binary control.tar.gz data.tar.gz)
  echo "$file"
}

write_control() {
  local pkg=$1 pkgarch=$2 data=$3 ctl=$4 pkgversion=$5 depends user
  depends=$(mk_field "$pkg" DEPENDS | tr ' ' '\n' | sed -n 's/^+//p' | paste -sd, | sed 's/,/, /g')
  user=$(mk_field "$pkg" USERID)
  {
    echo "Package: $pkg"
    echo "Version: $pkgversion"
    echo "Depends: libc, $depends"
    echo "Source: feeds/wgcp/wgcp"
    echo "SourceName: $pkg"
    echo "License: $(mk_var PKG_LICENSE)"
    echo "Section: net"
    echo "Maintainer: $(mk_var PKG_MAINTAINER)"
    if [ -n "$user" ]; then echo "Require-User: $user"; fi
    echo "Architecture: $pkgarch"
    echo "Installed-Size: $(du -sb "$data" | cut -f1)"
    echo "Description: $(mk_field "$pkg" TITLE)"
    mk_define "Package/$pkg/description"
  } >"$ctl/control"
  mk_define "Package/$pkg/conffiles" >"$ctl/conffiles"
}

build_daemon_ipk() {
  local data="$work/wgcp-ipk-data" ctl="$work/wgcp-ipk-control" app="$work/app"
  "$root/packaging/stage-app.sh" "$(mk_var PKG_VERSION)" "$app"
  rm -rf "$data" "$ctl" && mkdir -p "$data" "$ctl"
  install -d "$data/usr/lib/wgcp" "$data/usr/bin" "$data/etc/init.d" "$data/etc/config" "$data/etc/capabilities" "$data/lib/upgrade/keep.d"
  cp -a "$app/." "$data/usr/lib/wgcp/"
  install -m 0755 "$feed/files/wgcp.cli" "$data/usr/bin/wgcp"
  install -m 0755 "$feed/files/wgcpd.init" "$data/etc/init.d/wgcpd"
  install -m 0600 "$feed/files/wgcp.config" "$data/etc/config/wgcp"
  install -m 0644 "$feed/files/wgcpd.capabilities.json" "$data/etc/capabilities/wgcpd.json"
  install -m 0644 "$feed/files/wgcp.keep" "$data/lib/upgrade/keep.d/wgcp"
  write_control wgcp "$arch" "$data" "$ctl" "$version"
  write_default_scripts "$ctl"
  mk_define Package/wgcp/postinst >"$ctl/postinst-pkg"
  chmod 0755 "$ctl/postinst-pkg"
  pack_ipk wgcp "$ctl" "$data" "$out/wgcp_${version}_${arch}.ipk"
}

build_agent_ipk() {
  local data="$work/wgcp-agent-ipk-data" ctl="$work/wgcp-agent-ipk-control" bundle="$root/agent/dist/wgcp-agent.js"
  if [ ! -f "$bundle" ]; then
    (cd "$root/agent" && npm ci --no-audit --no-fund --loglevel=error && npm run build) >&2
  fi
  rm -rf "$data" "$ctl" && mkdir -p "$data" "$ctl"
  install -d "$data/usr/lib/wgcp-agent" "$data/etc/init.d" "$data/etc/capabilities" "$data/etc/wgcp-agent"
  install -m 0644 "$bundle" "$data/usr/lib/wgcp-agent/wgcp-agent.js"
  install -m 0755 "$feed/files/wgcp-agent.init" "$data/etc/init.d/wgcp-agent"
  install -m 0644 "$feed/files/wgcp-agent.capabilities.json" "$data/etc/capabilities/wgcp-agent.json"
  write_control wgcp-agent all "$data" "$ctl" "$agent_version"
  write_default_scripts "$ctl"
  pack_ipk wgcp-agent "$ctl" "$data" "$out/wgcp-agent_${agent_version}_all.ipk"
}

build_daemon_ipk
build_agent_ipk
