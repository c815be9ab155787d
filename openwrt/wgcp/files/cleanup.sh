#!/bin/sh
# Removes what wgcpd made in the kernel, and only that: the interfaces its servers name in
# its database that carry wgcpd's mark, the IFB devices of its bandwidth limits (wgifb*, marked
# too), and the nftables tables inet wgcp and netdev wgcp. Run by the package's prerm (opkg remove);
# data and settings stay. The database is read as the user wgcp, so no file in the data
# folder becomes root's.
INIT=/etc/init.d/wgcpd
NODE=/usr/bin/node
LIB=/usr/lib/wgcp
DEFAULT_DATA_DIR=/etc/wgcp/data

[ -x "$INIT" ] && "$INIT" stop >/dev/null 2>&1
data_dir=$(uci -q get wgcp.main.data_dir 2>/dev/null) || data_dir=$DEFAULT_DATA_DIR
if [ -f "$data_dir/wgcp.db" ] && [ -x "$NODE" ]; then
	# shellcheck disable=SC2016 # JavaScript, not shell.
	names=$("$NODE" -e '
		const [lib, file] = process.argv.slice(1);
		process.initgroups("wgcp", "wgcp"); process.setgid("wgcp"); process.setuid("wgcp");
		const Database = require(lib + "/node_modules/better-sqlite3");
		const db = new Database(file, { readonly: true, fileMustExist: true });
		for (const { name } of db.prepare("SELECT interface AS name FROM servers").all()) {
			if (/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/.test(name)) console.log(name);
		}' "$LIB" "$data_dir/wgcp.db") || names=
	for ifname in $names; do
		# Only a link wgcpd marked as its own (its alias): a router link of that name stays.
		if [ "$(cat "/sys/class/net/$ifname/ifalias" 2>/dev/null)" = wgcp-managed ]; then ip link del dev "$ifname"; fi
	done
fi
for dev in /sys/class/net/wgifb*; do
	[ -e "$dev" ] || continue
	if [ "$(cat "$dev/ifalias" 2>/dev/null)" = wgcp-managed ]; then ip link del dev "${dev##*/}"; fi
done
if nft list table inet wgcp >/dev/null 2>&1; then nft delete table inet wgcp; fi
if nft list table netdev wgcp >/dev/null 2>&1; then nft delete table netdev wgcp; fi
exit 0
