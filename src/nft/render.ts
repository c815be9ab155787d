// The full text of the `inet wgcp` table. Start-up loads it as one batch that creates the
// table if missing, deletes it and defines it again: atomic, and no other table is touched.
import { PAIRED_FIELD, nftElement, SET_NAMES, type PolicyElements } from './elements';

export const TABLE = 'inet wgcp';

function elementsLine(items: Iterable<string>): string {
  const list = [...items];
  return list.length ? `\n    elements = { ${list.join(',\n      ')} }` : '';
}

function mapLine(map: Map<string, string>): string {
  return elementsLine([...map].map(([k, v]) => `${k} : ${v}`));
}

/**
 * The sets of the router's own networks, who may reach them or be reached from them, and the
 * elements that hold a network prefix. Those with prefixes are interval sets, and every one
 * of them a concatenation: a set of one prefix field holds "any address" beside it
 * (`ip saddr . ip saddr`, `10.90.0.0/24 . 0.0.0.0/0`), since nft 1.0.6 reads every
 * single-field interval set of the ruleset back before any element change (docs/kernel.md).
 * The ones that hold one address a peer (lan_all, reach_lan) are exact, as pairs and
 * internet are: a change of a concatenated interval set costs the kernel in proportion to
 * that set's size, one of an exact set the same at any size.
 */
function lanSets(el: PolicyElements): string {
  const one = (field: keyof typeof SET_NAMES, type: string, interval = true): string => {
    const items = el[field] as Set<string>;
    const pair = PAIRED_FIELD[field] ? ` . ${type}` : '';
    return `  set ${SET_NAMES[field]} {\n    type ${type}${pair}${interval ? '\n    flags interval' : ''}${elementsLine([...items].map((e) => nftElement(field, e)))}\n  }\n`;
  };
  return one('routerNets', 'ipv4_addr') + one('routerNets6', 'ipv6_addr')
    + one('pairsNets', 'ipv4_addr . ipv4_addr') + one('pairsNets6', 'ipv6_addr . ipv6_addr')
    + one('internetNets', 'ipv4_addr') + one('internetNets6', 'ipv6_addr')
    + one('lanAllNets', 'ipv4_addr') + one('lanAllNets6', 'ipv6_addr')
    + one('reachLanNets', 'ipv4_addr') + one('reachLanNets6', 'ipv6_addr')
    + one('lanAll', 'ipv4_addr', false) + one('lanAll6', 'ipv6_addr', false)
    + one('lanAccess', 'ipv4_addr . ipv4_addr') + one('lanAccess6', 'ipv6_addr . ipv6_addr')
    + one('reachLan', 'ipv4_addr', false) + one('reachLan6', 'ipv6_addr', false)
    + one('reachFrom', 'ipv4_addr . ipv4_addr') + one('reachFrom6', 'ipv6_addr . ipv6_addr').trimEnd();
}

/** The site links' sets (nft/site-link-policy.ts): their interfaces, and what their other sides may open connections to. */
function siteLinkSets(el: PolicyElements): string {
  const ifnames = (name: string, items: Set<string>): string => `  set ${name} {\n    type ifname${elementsLine(items)}\n  }\n`;
  const reach = (name: string, type: string, items: Set<string>): string => `  set ${name} {\n    type ifname . ${type}\n    flags interval${elementsLine(items)}\n  }\n`;
  return ifnames(SET_NAMES.siteLinks, el.siteLinks) + ifnames(SET_NAMES.siteReachLan, el.siteReachLan)
    + reach(SET_NAMES.siteReach, 'ipv4_addr', el.siteReach) + reach(SET_NAMES.siteReach6, 'ipv6_addr', el.siteReach6).trimEnd();
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
${lanSets(el)}
${siteLinkSets(el)}
  map ${SET_NAMES.forwards6} {
    type inet_proto . inet_service : ipv6_addr . inet_service${mapLine(el.forwards6)}
  }
  chain input {
    type filter hook input priority filter; policy accept;
    iifname @${SET_NAMES.tunnels} jump tunnel_input
    iifname @${SET_NAMES.siteLinks} jump site_input
  }
  chain tunnel_input {
    ct state established,related accept
    iifname . ip daddr @${SET_NAMES.serverAddrs} accept
    iifname . ip6 daddr @${SET_NAMES.serverAddrs6} accept
    ip saddr @${SET_NAMES.lanAll} accept
    ip6 saddr @${SET_NAMES.lanAll6} accept
    ip saddr . ip saddr @${SET_NAMES.lanAllNets} accept
    ip6 saddr . ip6 saddr @${SET_NAMES.lanAllNets6} accept
    ip saddr . ip daddr @${SET_NAMES.lanAccess} accept
    ip6 saddr . ip6 daddr @${SET_NAMES.lanAccess6} accept
    drop
  }
  chain forward {
    type filter hook forward priority filter; policy accept;
    iifname @${SET_NAMES.standalone} oifname @${SET_NAMES.tunnels} drop
    iifname @${SET_NAMES.tunnels} oifname @${SET_NAMES.standalone} drop
    iifname @${SET_NAMES.siteLinks} jump site_forward
    iifname @${SET_NAMES.tunnels} jump tunnel_forward
    oifname @${SET_NAMES.tunnels} jump tunnel_inbound
  }
  chain tunnel_forward {
    ct state established,related accept
    oifname @${SET_NAMES.siteLinks} drop
    ip saddr . ip daddr @${SET_NAMES.pairs} accept
    ip6 saddr . ip6 daddr @${SET_NAMES.pairs6} accept
    ip saddr . ip daddr @${SET_NAMES.pairsNets} accept
    ip6 saddr . ip6 daddr @${SET_NAMES.pairsNets6} accept
    ip saddr . ip daddr @${SET_NAMES.lanAccess} accept
    ip6 saddr . ip6 daddr @${SET_NAMES.lanAccess6} accept
    ip daddr . ip daddr @${SET_NAMES.routerNets} ip saddr @${SET_NAMES.lanAll} accept
    ip6 daddr . ip6 daddr @${SET_NAMES.routerNets6} ip6 saddr @${SET_NAMES.lanAll6} accept
    ip daddr . ip daddr @${SET_NAMES.routerNets} ip saddr . ip saddr @${SET_NAMES.lanAllNets} accept
    ip6 daddr . ip6 daddr @${SET_NAMES.routerNets6} ip6 saddr . ip6 saddr @${SET_NAMES.lanAllNets6} accept
    oifname != @${SET_NAMES.tunnels} ip daddr . ip daddr != @${SET_NAMES.routerNets} ip saddr @${SET_NAMES.internet} accept
    oifname != @${SET_NAMES.tunnels} ip6 daddr . ip6 daddr != @${SET_NAMES.routerNets6} ip6 saddr @${SET_NAMES.internet6} accept
    oifname != @${SET_NAMES.tunnels} ip daddr . ip daddr != @${SET_NAMES.routerNets} ip saddr . ip saddr @${SET_NAMES.internetNets} accept
    oifname != @${SET_NAMES.tunnels} ip6 daddr . ip6 daddr != @${SET_NAMES.routerNets6} ip6 saddr . ip6 saddr @${SET_NAMES.internetNets6} accept
    drop
  }
  chain tunnel_inbound {
    ct state established,related accept
    ct status dnat accept
    ip saddr . ip saddr @${SET_NAMES.routerNets} ip daddr @${SET_NAMES.reachLan} accept
    ip6 saddr . ip6 saddr @${SET_NAMES.routerNets6} ip6 daddr @${SET_NAMES.reachLan6} accept
    ip saddr . ip saddr @${SET_NAMES.routerNets} ip daddr . ip daddr @${SET_NAMES.reachLanNets} accept
    ip6 saddr . ip6 saddr @${SET_NAMES.routerNets6} ip6 daddr . ip6 daddr @${SET_NAMES.reachLanNets6} accept
    ip saddr . ip daddr @${SET_NAMES.reachFrom} accept
    ip6 saddr . ip6 daddr @${SET_NAMES.reachFrom6} accept
    drop
  }
  chain site_input {
    ct state established,related accept
    iifname . ip daddr @${SET_NAMES.siteReach} accept
    iifname . ip6 daddr @${SET_NAMES.siteReach6} accept
    drop
  }
  chain site_forward {
    ct state established,related accept
    iifname @${SET_NAMES.siteReachLan} ip daddr . ip daddr @${SET_NAMES.routerNets} accept
    iifname @${SET_NAMES.siteReachLan} ip6 daddr . ip6 daddr @${SET_NAMES.routerNets6} accept
    iifname . ip daddr @${SET_NAMES.siteReach} accept
    iifname . ip6 daddr @${SET_NAMES.siteReach6} accept
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
    iifname @${SET_NAMES.tunnels} oifname != @${SET_NAMES.tunnels} ip saddr . ip saddr @${SET_NAMES.internetNets} masquerade
    iifname @${SET_NAMES.tunnels} oifname != @${SET_NAMES.tunnels} ip6 saddr . ip6 saddr @${SET_NAMES.internetNets6} ip6 saddr fc00::/7 masquerade
    oifname @${SET_NAMES.tunnels} ct status dnat masquerade
  }
}
`;
}

/** One batch that replaces the whole table: `table` (so the delete cannot fail), `delete table`, the definition. */
export function renderTable(el: PolicyElements): string {
  return `table ${TABLE}\ndelete table ${TABLE}\n${renderDefinition(el)}`;
}

