#!/bin/sh
# Stage 1 of the VM tier's guest (test/vm/boot.ts), PID 1 from the initramfs, BusyBox alone:
# the host's / read-only over 9p under an overlay whose writes stay in the guest's memory,
# the run folder (9p, read-write: the command, its output and exit status), the kernel's own
# module tree for modprobe, then stage 2 from the run folder in the new root.
# The kernel command line hands over (as environment): WGCP_VM_MODULES (the unpacked
# lib/modules/<version> on the host), WGCP_VM_KMOD (kmod's binary on the host).
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

halt() {
  echo "wgcp-vm stage 1: $*" > /dev/kmsg
  echo o > /proc/sysrq-trigger
  sleep 30
}

while read -r m; do
  insmod "/modules/$m" || halt "insmod $m failed"
done < /modules/order

NINEP=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$NINEP,ro,cache=loose" hostroot /host || halt "cannot mount the host's root over 9p"
mount -t tmpfs -o mode=0755 tmpfs /mem || halt "tmpfs"
mkdir /mem/upper /mem/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/mem/upper,workdir=/mem/work /root || halt "overlay"

# The host's /run and /dev/shm stay out: its netns, wireguard-go sockets and locks are not the guest's.
mount -t tmpfs -o mode=0755 tmpfs /root/run
mkdir -p /root/run/wgcp-vm /root/run/lock
mount -t 9p -o "$NINEP,cache=none" vmrun /root/run/wgcp-vm || halt "cannot mount the run folder over 9p"
mount -t proc proc /root/proc
mount -t sysfs sysfs /root/sys
mount -t devtmpfs devtmpfs /root/dev
mkdir -p /root/dev/pts /root/dev/shm
mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts /root/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /root/dev/shm
# /tmp stays the host's under the overlay (its writes stay in memory all the same): a checkout
# under /tmp (CI clones anywhere) must be where stage 2 runs the command.
mount -t cgroup2 cgroup2 /root/sys/fs/cgroup 2>/dev/null

# Modules load on demand (`ip link add … type wireguard`, nft, tc) from the kernel's own
# tree, through kmod as /usr/sbin/modprobe: the host has neither.
version=$(basename "$WGCP_VM_MODULES")
mkdir -p /root/usr/lib/modules
ln -sfn "$WGCP_VM_MODULES" "/root/usr/lib/modules/$version"
for tool in modprobe insmod rmmod lsmod modinfo; do
  [ -e "/root/usr/sbin/$tool" ] || ln -s "$WGCP_VM_KMOD" "/root/usr/sbin/$tool"
done
echo /usr/sbin/modprobe > /proc/sys/kernel/modprobe

umount /proc /sys /dev
exec switch_root /root /bin/sh /run/wgcp-vm/stage2.sh
