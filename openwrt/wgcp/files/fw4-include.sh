#!/bin/sh
# fw4 runs this after each start, restart and reload of the firewall (the include
# "wgcp_include" that /etc/uci-defaults/90-wgcp adds). A firewall stop runs `fw4 flush`,
# which deletes every table, wgcp's own `inet wgcp` too, and wgcpd builds that table only
# when it starts: when the table is missing while wgcpd runs, restart wgcpd. At boot the
# firewall starts before wgcpd (which then builds the table itself): nothing to do.
INIT=/etc/init.d/wgcpd
nft list table inet wgcp >/dev/null 2>&1 && exit 0
[ -x "$INIT" ] || exit 0
"$INIT" running || exit 0
logger -t wgcpd "the firewall was restarted without the table inet wgcp: restarting wgcpd to rebuild it"
"$INIT" restart
