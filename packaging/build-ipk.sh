#!/usr/bin/env bash
# `npm run package:ipk`: builds wgcp_<version>_<arch>.ipk and wgcp-agent_<version>_all.ipk
# from the feed's package folders (openwrt/wgcp, openwrt/wgcp-agent), as an ar archive of
# debian-binary, control.tar.gz and data.tar.gz. The data is what each Makefile's
# Package/<name>/install puts there, run by make with the stand-in SDK of
# packaging/openwrt-sdk-stub; the control fields are read by make too.
# This is for checking the package here: the daemon's better-sqlite3 in it is built for this
# machine (glibc). A router's ipk comes from the OpenWrt SDK through openwrt/wgcp/Makefile,
# which compiles it for the target's CPU and musl (packaging/check-elf.sh refuses others).
# Usage: build-ipk.sh [OUT_DIR]   (default dist/packages)
set -euo pipefail
# Modes of what is packed must not depend on the caller's umask (a test runner may hold 077).
umask 022

root=$(cd "$(dirname "$0")/.." && pwd)
feed="$root/openwrt"
stub="$root/packaging/openwrt-sdk-stub"
out=$(mkdir -p "${1:-$root/dist/packages}" && cd "${1:-$root/dist/packages}" && pwd)
# A folder of this run's own (inside the repository, see stage-app.sh): builds may run side
# by side in one working tree.
work="$root/dist/pkgbuild/run-$$"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"

stub_make() { local pkg=$1; shift; make -s -C "$feed/$pkg" TOPDIR="$stub" STUB_WORK="$work/stub" "$@"; }
# One field of the package as make read it (stub-dump).
field() { stub_make "$1" stub-dump | sed -n "s/^$2: //p"; }
# The body of `define NAME` ... `endef` in the package's Makefile, with make's $$ turned back into $.
mk_define() { awk -v name="define $2" '$0 == name { on = 1; next } on && /^endef$/ { exit } on { print }' "$feed/$1/Makefile" | sed 's/\$\$/$/g'; }
mk_var() { sed -n "s/^$2:=//p" "$feed/$1/Makefile"; }

case $(dpkg --print-architecture) in
  amd64) arch=x86_64 ;; arm64) arch=aarch64_generic ;; i386) arch=i386_pentium4 ;; *) arch=$(uname -m) ;;
esac

# OpenWrt's generated maintainer scripts: they call default_postinst/default_prerm from
# /lib/functions.sh, which add the Require-User users, run the package's own postinst-pkg,
# its uci-defaults and enable the init script (postinst), or source its prerm-pkg and stop
# and disable the init script (prerm).
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

# The package's own scripts (Package/<name>/postinst, /prerm) as the SDK ships them.
write_package_scripts() {
  local pkg=$1 ctl=$2 script
  for script in postinst prerm; do
    if grep -q "^define Package/$pkg/$script\$" "$feed/$pkg/Makefile"; then
      mk_define "$pkg" "Package/$pkg/$script" >"$ctl/$script-pkg"
      chmod 0755 "$ctl/$script-pkg"
    fi
  done
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
  local pkg=$1 pkgarch=$2 data=$3 ctl=$4 depends user
  depends=$(field "$pkg" Depends | tr ' ' '\n' | sed -n 's/^+//p' | paste -sd, | sed 's/,/, /g')
  user=$(field "$pkg" Require-User)
  {
    echo "Package: $pkg"
    echo "Version: $(field "$pkg" Version)"
    echo "Depends: libc, $depends"
    echo "Source: feeds/wgcp/$pkg"
    echo "SourceName: $pkg"
    echo "License: $(mk_var "$pkg" PKG_LICENSE)"
    echo "Section: net"
    echo "Maintainer: $(mk_var "$pkg" PKG_MAINTAINER)"
    if [ -n "$user" ]; then echo "Require-User: $user"; fi
    echo "Architecture: $pkgarch"
    echo "Installed-Size: $(du -sb "$data" | cut -f1)"
    echo "Description: $(field "$pkg" Title)"
    mk_define "$pkg" "Package/$pkg/description"
  } >"$ctl/control"
  mk_define "$pkg" "Package/$pkg/conffiles" >"$ctl/conffiles"
}

# Runs Package/<pkg>/install with PKG_BUILD_DIR as the SDK's build folder would be.
install_data() {
  local pkg=$1 build=$2 data=$3
  rm -rf "$data"
  stub_make "$pkg" PKG_BUILD_DIR="$build" DESTDIR="$data" stub-install
}

build_daemon_ipk() {
  local data="$work/wgcp-ipk-data" ctl="$work/wgcp-ipk-control" build="$work/wgcp-build"
  "$root/packaging/stage-app.sh" "$(mk_var wgcp PKG_VERSION)" "$build/dist/pkgbuild/app"
  install_data wgcp "$build" "$data"
  rm -rf "$ctl" && mkdir -p "$ctl"
  write_control wgcp "$arch" "$data" "$ctl"
  write_default_scripts "$ctl"
  write_package_scripts wgcp "$ctl"
  pack_ipk wgcp "$ctl" "$data" "$out/wgcp_$(field wgcp Version)_${arch}.ipk"
}

build_agent_ipk() {
  local data="$work/wgcp-agent-ipk-data" ctl="$work/wgcp-agent-ipk-control"
  if [ ! -f "$root/agent/dist/wgcp-agent.js" ]; then
    (cd "$root/agent" && npm ci --no-audit --no-fund --loglevel=error && npm run build) >&2
  fi
  install_data wgcp-agent "$root/agent" "$data"
  rm -rf "$ctl" && mkdir -p "$ctl"
  write_control wgcp-agent all "$data" "$ctl"
  write_default_scripts "$ctl"
  write_package_scripts wgcp-agent "$ctl"
  pack_ipk wgcp-agent "$ctl" "$data" "$out/wgcp-agent_$(field wgcp-agent Version)_all.ipk"
}

build_daemon_ipk
build_agent_ipk
