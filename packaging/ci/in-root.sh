#!/bin/sh
# Runs a command inside a Debian root (made by debian-root.sh) with /proc, /sys and /dev
# mounted, in a private mount namespace so that the mounts vanish with the command.
# The command gets a clean environment (PATH and HOME only); pass others through env(1).
# Usage: in-root.sh ROOT COMMAND [ARG...]
set -eu

root=${1:?usage: in-root.sh ROOT COMMAND [ARG...]}
shift
if [ "${WGCP_IN_ROOT_NS:-}" != "$root" ]; then
  WGCP_IN_ROOT_NS=$root exec unshare --mount --propagation private -- "$0" "$root" "$@"
fi
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"
exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
