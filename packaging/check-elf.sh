#!/usr/bin/env bash
# Refuses native Node modules built for another machine than the package's: every *.node
# under DIR must be an ELF shared object whose machine is ARCH's (readelf -h), and, for a
# musl target (WGCP_TARGET_LIBC=musl), must not need glibc (libc.so.6, GLIBC_ versions).
# The OpenWrt feed Makefile runs it after the native build; a host compiler's output stops
# the build here instead of failing at the router's first start.
# Usage: check-elf.sh ARCH DIR   (ARCH as OpenWrt names it: x86_64, aarch64, arm, i386)
# READELF names the readelf to use (default readelf; any GNU readelf reads every machine).
set -euo pipefail
arch=${1:?usage: check-elf.sh ARCH DIR}
dir=${2:?usage: check-elf.sh ARCH DIR}
readelf=${READELF:-readelf}
command -v "$readelf" >/dev/null || readelf=readelf

case $arch in
  x86_64) machine='Advanced Micro Devices X86-64' class=ELF64 ;;
  aarch64) machine='AArch64' class=ELF64 ;;
  arm) machine='ARM' class=ELF32 ;;
  i386) machine='Intel 80386' class=ELF32 ;;
  *) echo "check-elf.sh: no node for $arch (OpenWrt builds node for x86_64, aarch64, arm and i386)" >&2; exit 2 ;;
esac

found=0
while IFS= read -r -d '' file; do
  found=$((found + 1))
  header=$("$readelf" -h "$file" 2>&1) || { echo "check-elf.sh: $file is not an ELF file: $header" >&2; exit 1; }
  got_machine=$(sed -n 's/^ *Machine: *//p' <<<"$header")
  got_class=$(sed -n 's/^ *Class: *//p' <<<"$header")
  got_type=$(sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p' <<<"$header")
  if [ "$got_machine" != "$machine" ] || [ "$got_class" != "$class" ] || [ "$got_type" != DYN ]; then
    echo "check-elf.sh: $file is $got_class $got_type for \"$got_machine\", not $class DYN for \"$machine\" ($arch): built with the wrong compiler" >&2
    exit 1
  fi
  if [ "${WGCP_TARGET_LIBC:-}" = musl ]; then
    if "$readelf" -d "$file" | grep -q 'Shared library: \[libc\.so\.6\]' || "$readelf" -V "$file" | grep -q 'GLIBC_'; then
      echo "check-elf.sh: $file needs glibc; the target's C library is musl: built with the wrong toolchain" >&2
      exit 1
    fi
  fi
  echo "$file: $got_class $got_machine"
done < <(find "$dir" -name '*.node' -type f -print0)
if [ "$found" = 0 ]; then echo "check-elf.sh: no .node file under $dir" >&2; exit 1; fi
