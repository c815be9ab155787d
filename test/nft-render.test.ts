import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { diff } from '../src/nft/diff';
import { emptyElements, type PolicyElements } from '../src/nft/elements';
import { renderTable } from '../src/nft/render';

const t = suite('nft render and diff');

function elements(over: Partial<PolicyElements>): PolicyElements {
  return { ...emptyElements(), ...over };
}

t('the full table replaces itself in one batch and touches no other table', () => {
  const text = renderTable(elements({ tunnels: new Set(['"wgcp1"']), pairs: new Set(['10.1.0.2 . 10.1.0.3']) }));
  const lines = text.split('\n');
  assert.equal(lines.slice(0, 3), ['table inet wgcp', 'delete table inet wgcp', 'table inet wgcp {']);
  assert.ok(text.includes('elements = { "wgcp1" }'));
  assert.ok(text.includes('elements = { 10.1.0.2 . 10.1.0.3 }'));
  assert.equal(lines.filter((l) => /^\S*table /.test(l.trim()) && !l.includes('inet wgcp')), []);
  assert.not.ok(/flush ruleset/.test(text));
});

t('empty sets are declared without an elements line', () => {
  const text = renderTable(emptyElements());
  assert.not.ok(text.includes('elements'));
  assert.ok(text.includes('set pairs {\n    type ipv4_addr . ipv4_addr\n  }'));
  assert.ok(text.includes('set pairs_nets {\n    type ipv4_addr . ipv4_addr\n    flags interval\n  }'));
});

t('no interval set has a single field: a set of prefixes holds the packet\'s family beside each (nft reads those back before every change)', () => {
  const text = renderTable(elements({ internetNets: new Set(['10.9.0.0/24']), routerNets6: new Set(['fd61::/64']) }));
  const intervalTypes = [...text.matchAll(/set (\S+) \{\n    type ([^\n]+)\n    flags interval/g)].map((m) => [m[1], m[2]]);
  assert.is(intervalTypes.length, 16);
  assert.equal(intervalTypes.filter(([, type]) => !type.includes(' . ')), []);
  assert.ok(text.includes('set internet_nets {\n    type ipv4_addr . ipv4_addr\n    flags interval\n    elements = { 10.9.0.0/24 . 0.0.0.0/0 }'));
  assert.ok(text.includes('set router_nets6 {\n    type ipv6_addr . ipv6_addr\n    flags interval\n    elements = { fd61::/64 . ::/0 }'));
});

t('diff writes a prefix of a single-prefix set with its family beside it', () => {
  const batch = diff(elements({ lanAllNets: new Set(['10.9.0.0/24']) }), elements({ reachLanNets6: new Set(['fd09::/64']) }));
  assert.is(batch, 'delete element inet wgcp lan_all_nets { 10.9.0.0/24 . 0.0.0.0/0 }\nadd element inet wgcp reach_lan_nets6 { fd09::/64 . ::/0 }\n');
});

t('the forward chain drops tunnel traffic that no pair, LAN access, internet flag or conntrack allows, in both families', () => {
  const text = renderTable(emptyElements());
  const chain = /chain tunnel_forward \{([^}]*)\}/.exec(text)![1].trim().split('\n').map((l) => l.trim());
  assert.equal(chain, [
    'ct state established,related accept',
    'oifname @site_links drop',
    'ip saddr . ip daddr @pairs accept',
    'ip6 saddr . ip6 daddr @pairs6 accept',
    'ip saddr . ip daddr @pairs_nets accept',
    'ip6 saddr . ip6 daddr @pairs_nets6 accept',
    'ip saddr . ip daddr @lan_access accept',
    'ip6 saddr . ip6 daddr @lan_access6 accept',
    'ip daddr . ip daddr @router_nets ip saddr @lan_all accept',
    'ip6 daddr . ip6 daddr @router_nets6 ip6 saddr @lan_all6 accept',
    'ip daddr . ip daddr @router_nets ip saddr . ip saddr @lan_all_nets accept',
    'ip6 daddr . ip6 daddr @router_nets6 ip6 saddr . ip6 saddr @lan_all_nets6 accept',
    'oifname != @tunnels ip daddr . ip daddr != @router_nets ip saddr @internet accept',
    'oifname != @tunnels ip6 daddr . ip6 daddr != @router_nets6 ip6 saddr @internet6 accept',
    'oifname != @tunnels ip daddr . ip daddr != @router_nets ip saddr . ip saddr @internet_nets accept',
    'oifname != @tunnels ip6 daddr . ip6 daddr != @router_nets6 ip6 saddr . ip6 saddr @internet_nets6 accept',
    'drop',
  ]);
  assert.ok(text.includes('iifname @tunnels oifname != @tunnels ip saddr @internet masquerade'));
  assert.ok(text.includes('fib daddr type local dnat ip to meta l4proto . th dport map @port_forwards'));
});

t('IPv6 from a tunnel is masqueraded only from unique local addresses; a global prefix is routed as it is', () => {
  const text = renderTable(emptyElements());
  assert.ok(text.includes('iifname @tunnels oifname != @tunnels ip6 saddr @internet6 ip6 saddr fc00::/7 masquerade'));
  assert.ok(text.includes('iifname @wan_ifaces fib daddr type local dnat ip6 to meta l4proto . th dport map @port_forwards6'));
});

t('port forwards apply only to packets from the WAN interfaces', () => {
  const text = renderTable(elements({ wan: new Set(['"eth1"']) }));
  assert.ok(text.includes('iifname @wan_ifaces fib daddr type local dnat ip to meta l4proto . th dport map @port_forwards'));
  assert.ok(text.includes('set wan_ifaces {\n    type ifname\n    elements = { "eth1" }'));
});

t('standalone interfaces and forward-mode tunnels are kept apart both ways, before any tunnel verdict', () => {
  const text = renderTable(elements({ standalone: new Set(['"wgcp2"']) }));
  const chain = /chain forward \{([^}]*)\}/.exec(text)![1].trim().split('\n').map((l) => l.trim());
  assert.equal(chain.slice(1), [
    'iifname @standalone oifname @tunnels drop',
    'iifname @tunnels oifname @standalone drop',
    'iifname @site_links jump site_forward',
    'iifname @tunnels jump tunnel_forward',
    'oifname @tunnels jump tunnel_inbound',
  ]);
});

t('traffic into a tunnel from elsewhere passes as a reply, a port forward or by reachableFrom; a new connection is dropped', () => {
  const text = renderTable(emptyElements());
  const chain = /chain tunnel_inbound \{([^}]*)\}/.exec(text)![1].trim().split('\n').map((l) => l.trim());
  assert.equal(chain, [
    'ct state established,related accept',
    'ct status dnat accept',
    'ip saddr . ip saddr @router_nets ip daddr @reach_lan accept',
    'ip6 saddr . ip6 saddr @router_nets6 ip6 daddr @reach_lan6 accept',
    'ip saddr . ip saddr @router_nets ip daddr . ip daddr @reach_lan_nets accept',
    'ip6 saddr . ip6 saddr @router_nets6 ip6 daddr . ip6 daddr @reach_lan_nets6 accept',
    'ip saddr . ip daddr @reach_from accept',
    'ip6 saddr . ip6 daddr @reach_from6 accept',
    'drop',
  ]);
});

t('the router\'s own addresses are open to a peer only through its tunnel address or lanAccess, not allowInternet', () => {
  const chain = /chain tunnel_input \{([^}]*)\}/.exec(renderTable(emptyElements()))![1];
  assert.not.match(chain, /@internet/);
  assert.match(chain, /ip saddr @lan_all accept/);
  assert.match(chain, /ip saddr \. ip daddr @lan_access accept/);
});

t('diff of equal policies is empty', () => {
  const a = elements({ pairs: new Set(['10.1.0.2 . 10.1.0.3']), internet: new Set(['10.1.0.2']) });
  assert.is(diff(a, a), '');
});

t('diff deletes what went and adds what came, deletes first', () => {
  const before = elements({ pairs: new Set(['10.1.0.2 . 10.1.0.3', '10.1.0.2 . 10.1.0.4']), internet: new Set(['10.1.0.2']) });
  const after = elements({ pairs: new Set(['10.1.0.2 . 10.1.0.4', '10.1.0.2 . 10.1.0.5']) });
  assert.is(diff(before, after), [
    'delete element inet wgcp pairs { 10.1.0.2 . 10.1.0.3 }',
    'delete element inet wgcp internet { 10.1.0.2 }',
    'add element inet wgcp pairs { 10.1.0.2 . 10.1.0.5 }',
    '',
  ].join('\n'));
});

t('a forward whose target changed is deleted by key and added with its new target', () => {
  const before = elements({ forwards: new Map([['tcp . 8080', '10.1.0.3 . 80'], ['udp . 53', '10.1.0.3 . 53']]) });
  const after = elements({ forwards: new Map([['tcp . 8080', '10.1.0.9 . 80'], ['udp . 53', '10.1.0.3 . 53']]) });
  assert.is(diff(before, after), 'delete element inet wgcp port_forwards { tcp . 8080 }\nadd element inet wgcp port_forwards { tcp . 8080 : 10.1.0.9 . 80 }\n');
});

t('applying a diff and then its reverse gives back the first state (the undo of a failed change)', () => {
  const a = elements({ tunnels: new Set(['"wgcp1"']), pairs: new Set(['10.1.0.2 . 10.1.0.3']) });
  const b = elements({ pairs: new Set(['10.1.0.3 . 10.1.0.2']), internet: new Set(['10.1.0.3']) });
  const forward = diff(a, b);
  const back = diff(b, a);
  assert.ok(forward.includes('delete element inet wgcp tunnels { "wgcp1" }'));
  assert.ok(back.includes('add element inet wgcp tunnels { "wgcp1" }'));
  assert.ok(back.includes('delete element inet wgcp internet { 10.1.0.3 }'));
});

t.run();
