// The full text of the `inet wgcp` table. Start-up loads it as one batch that creates the
// table if missing, deletes it and defines it again: atomic, and no other table is touched.
import { SET_NAMES, type PolicyElements } from './elements';

export const TABLE = 'inet wgcp';

function elementsLine(items: Iterable<string>): string {
  const list = [...items];
  return list.length ? `\n    elements = { ${list.join(',\n      ')} }` : '';
}

function mapLine(map: Map<string, string>): string {
  return elementsLine([...map].map(([k, v]) => `${k} : ${v}`));
}

/** The table's definition alone (what `nft list table inet wgcp` shows, give or take layout). */
export function renderDefinition(el: PolicyElements): string {
  return `table ${TABLE} {
  set ${SET_NAMES.tunnels} {
    type ifname${elementsLine(el.tunnels)}
  }
  set ${SET_NAMES.serverAddrs} {
    type ifname . ipv4_addr${elementsLine(el.serverAddrs)}
  }
  set ${SET_NAMES.pairs} {
    type ipv4_addr . ipv4_addr${elementsLine(el.pairs)}
  }
  set ${SET_NAMES.internet} {
    type ipv4_addr${elementsLine(el.internet)}
  }
  map ${SET_NAMES.forwards} {
    type inet_proto . inet_service : ipv4_addr . inet_service${mapLine(el.forwards)}
  }
  set ${SET_NAMES.standalone} {
    type ifname${elementsLine(el.standalone)}
  }
  set ${SET_NAMES.wan} {
    type ifname${elementsLine(el.wan)}
  }
  set ${SET_NAMES.serverAddrs6} {
    type ifname . ipv6_addr${elementsLine(el.serverAddrs6)}
  }
  set ${SET_NAMES.pairs6} {
    type ipv6_addr . ipv6_addr${elementsLine(el.pairs6)}
  }
  set ${SET_NAMES.internet6} {
    type ipv6_addr${elementsLine(el.internet6)}
  }
  map ${SET_NAMES.forwards6} {
    type inet_proto . inet_service : ipv6_addr . inet_service${mapLine(el.forwards6)}
  }
  chain input {
    type filter hook input priority filter; policy accept;
    iifname @${SET_NAMES.tunnels} jump tunnel_input
  }
  chain tunnel_input {
    ct state established,related accept
    iifname . ip daddr @${SET_NAMES.serverAddrs} accept
    iifname . ip6 daddr @${SET_NAMES.serverAddrs6} accept
    ip saddr @${SET_NAMES.internet} accept
    ip6 saddr @${SET_NAMES.internet6} accept
    drop
  }
  chain forward {
    type filter hook forward priority filter; policy accept;
    iifname @${SET_NAMES.standalone} oifname @${SET_NAMES.tunnels} drop
    iifname @${SET_NAMES.tunnels} oifname @${SET_NAMES.standalone} drop
    iifname @${SET_NAMES.tunnels} jump tunnel_forward
  }
  chain tunnel_forward {
    ct state established,related accept
    ip saddr . ip daddr @${SET_NAMES.pairs} accept
    ip6 saddr . ip6 daddr @${SET_NAMES.pairs6} accept
    oifname != @${SET_NAMES.tunnels} ip saddr @${SET_NAMES.internet} accept
    oifname != @${SET_NAMES.tunnels} ip6 saddr @${SET_NAMES.internet6} accept
    drop
  }
  chain prerouting {
    type nat hook prerouting priority dstnat; policy accept;
    iifname @${SET_NAMES.wan} fib daddr type local dnat ip to meta l4proto . th dport map @${SET_NAMES.forwards}
    iifname @${SET_NAMES.wan} fib daddr type local dnat ip6 to meta l4proto . th dport map @${SET_NAMES.forwards6}
  }
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    iifname @${SET_NAMES.tunnels} oifname != @${SET_NAMES.tunnels} ip saddr @${SET_NAMES.internet} masquerade
    iifname @${SET_NAMES.tunnels} oifname != @${SET_NAMES.tunnels} ip6 saddr @${SET_NAMES.internet6} ip6 saddr fc00::/7 masquerade
    oifname @${SET_NAMES.tunnels} ct status dnat masquerade
  }
}
`;
}

/** One batch that replaces the whole table: `table` (so the delete cannot fail), `delete table`, the definition. */
export function renderTable(el: PolicyElements): string {
  return `table ${TABLE}\ndelete table ${TABLE}\n${renderDefinition(el)}`;
}

