// A ruleset laid out as firewall4 lays out its own (table inet fw4: hook chains input,
// forward, output with policy drop and a final reject, per-zone chains input_<zone>,
// forward_<zone>, output_<zone> jumping to accept_/reject_/drop_ to/from chains, the
// nftables.d chain-pre includes at the top of a zone chain, srcnat masquerade for a masq
// zone), rendered from a few UCI sections. fw4 itself (ucode) does not run here: this stands
// in for its output, for OpenWrt's default zones plus what /etc/uci-defaults/90-wgcp adds.
import fs from 'node:fs';
import path from 'node:path';

export interface Zone { name: string; devices: string[]; input: Verdict; output: Verdict; forward: Verdict; masq?: boolean }
export interface Rule { name: string; src: string; proto: string; destPort: string; target: Verdict; enabled: boolean }
export interface Fw4Config { zones: Zone[]; forwardings: [string, string][]; rules: Rule[]; includes: Map<string, string[]> }
type Verdict = 'ACCEPT' | 'REJECT' | 'DROP';

/** `wgcp+` is fw4's wildcard for `wgcp*`. */
const devSet = (z: Zone) => `{ ${z.devices.map((d) => `"${d.replace(/\+$/, '*')}"`).join(', ')} }`;
const verdict = (v: Verdict) => v.toLowerCase();

/** OpenWrt's default zones (firewall4's /etc/config/firewall): lan accepts, wan rejects input and drops forwards. */
export function defaultConfig(lanDevices: string[], wanDevices: string[]): Fw4Config {
  return {
    zones: [
      { name: 'lan', devices: lanDevices, input: 'ACCEPT', output: 'ACCEPT', forward: 'ACCEPT' },
      { name: 'wan', devices: wanDevices, input: 'REJECT', output: 'ACCEPT', forward: 'DROP', masq: true },
    ],
    forwardings: [['lan', 'wan']],
    rules: [],
    includes: new Map(),
  };
}

/**
 * Adds the `firewall.*` sections of a uci-defaults script's `uci batch` (set/add_list lines),
 * with `$name` shell variables taken from `vars`, to `config`.
 */
export function addUciBatch(config: Fw4Config, script: string, vars: Record<string, string>): void {
  const sections = new Map<string, { type: string; opts: Map<string, string[]> }>();
  for (const raw of script.split('\n')) {
    const line = raw.trim().replace(/\$(\w+)/g, (_, v: string) => vars[v] ?? '');
    let m = /^set firewall\.(\w+)=(\w+)$/.exec(line);
    if (m) { sections.set(m[1], { type: m[2], opts: new Map() }); continue; }
    m = /^(set|add_list) firewall\.(\w+)\.(\w+)='([^']*)'$/.exec(line);
    if (!m) continue;
    const opts = sections.get(m[2])!.opts;
    opts.set(m[3], m[1] === 'set' ? [m[4]] : [...(opts.get(m[3]) ?? []), m[4]]);
  }
  for (const { type, opts } of sections.values()) {
    const one = (k: string) => opts.get(k)?.[0] ?? '';
    if (type === 'zone') {
      config.zones.push({ name: one('name'), devices: opts.get('device') ?? [], input: one('input') as Verdict, output: one('output') as Verdict, forward: one('forward') as Verdict });
    } else if (type === 'forwarding') {
      config.forwardings.push([one('src'), one('dest')]);
    } else if (type === 'rule') {
      config.rules.push({ name: one('name'), src: one('src'), proto: one('proto'), destPort: one('dest_port'), target: one('target') as Verdict, enabled: one('enabled') !== '0' });
    }
  }
}

/** fw4's automatic includes: /usr/share/nftables.d/chain-pre/<chain>/*.nft, read from a package's data tree. */
export function addChainPreIncludes(config: Fw4Config, root: string): void {
  const base = path.join(root, 'usr/share/nftables.d/chain-pre');
  if (!fs.existsSync(base)) return;
  for (const chain of fs.readdirSync(base)) {
    for (const file of fs.readdirSync(path.join(base, chain)).filter((f) => f.endsWith('.nft')).sort()) {
      const lines = fs.readFileSync(path.join(base, chain, file), 'utf8').split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
      config.includes.set(chain, [...(config.includes.get(chain) ?? []), ...lines]);
    }
  }
}

/** The whole `table inet fw4`, as one batch that replaces it (fw4 flushes its table and loads it again). */
export function renderFw4(c: Fw4Config): string {
  const L: string[] = ['table inet fw4', 'flush table inet fw4', 'table inet fw4 {'];
  const chain = (name: string, head: string | null, body: string[]) => {
    L.push(`  chain ${name} {`);
    if (head) L.push(`    ${head}`);
    for (const b of [...(c.includes.get(name) ?? []), ...body]) L.push(`    ${b}`);
    L.push('  }');
  };
  const jumps = (dir: 'iifname' | 'oifname', prefix: string) => c.zones.filter((z) => z.devices.length).map((z) => `${dir} ${devSet(z)} jump ${prefix}_${z.name}`);
  const ctVmap = 'ct state vmap { established : accept, related : accept }';
  chain('input', 'type filter hook input priority filter; policy drop;', ['iif "lo" accept', ctVmap, ...jumps('iifname', 'input'), 'jump handle_reject']);
  chain('forward', 'type filter hook forward priority filter; policy drop;', [ctVmap, ...jumps('iifname', 'forward'), 'jump handle_reject']);
  chain('output', 'type filter hook output priority filter; policy accept;', ['oif "lo" accept', ctVmap, ...jumps('oifname', 'output')]);
  chain('handle_reject', null, ['meta l4proto tcp reject with tcp reset', 'reject']);
  const used = new Set<string>();
  for (const z of c.zones) {
    const rules = c.rules.filter((r) => r.enabled && r.src === z.name)
      .map((r) => `meta l4proto ${r.proto} ${r.proto} dport ${r.destPort} ${verdict(r.target)} comment "!fw4: ${r.name}"`);
    chain(`input_${z.name}`, null, [...rules, `jump ${verdict(z.input)}_from_${z.name}`]);
    chain(`output_${z.name}`, null, [`jump ${verdict(z.output)}_to_${z.name}`]);
    const fwd = c.forwardings.filter(([s]) => s === z.name).map(([, d]) => `jump accept_to_${d}`);
    chain(`forward_${z.name}`, null, [...fwd, `jump ${verdict(z.forward)}_to_${z.name}`]);
    used.add(`${verdict(z.input)}_from_${z.name}`).add(`${verdict(z.output)}_to_${z.name}`).add(`${verdict(z.forward)}_to_${z.name}`);
    for (const [, d] of c.forwardings.filter(([s]) => s === z.name)) used.add(`accept_to_${d}`);
  }
  for (const z of c.zones) {
    if (!z.devices.length) continue;
    for (const v of ['accept', 'reject', 'drop']) {
      const act = v === 'reject' ? 'jump handle_reject' : v;
      if (used.has(`${v}_from_${z.name}`)) chain(`${v}_from_${z.name}`, null, [`iifname ${devSet(z)} ${act}`]);
      if (used.has(`${v}_to_${z.name}`)) {
        const invalid = v === 'accept' && z.masq ? [`meta nfproto ipv4 oifname ${devSet(z)} ct state invalid drop`] : [];
        chain(`${v}_to_${z.name}`, null, [...invalid, `oifname ${devSet(z)} ${act}`]);
      }
    }
  }
  chain('dstnat', 'type nat hook prerouting priority dstnat; policy accept;', []);
  const masq = c.zones.filter((z) => z.masq && z.devices.length);
  chain('srcnat', 'type nat hook postrouting priority srcnat; policy accept;', masq.map((z) => `oifname ${devSet(z)} jump srcnat_${z.name}`));
  for (const z of masq) chain(`srcnat_${z.name}`, null, ['meta nfproto ipv4 masquerade']);
  L.push('}');
  return L.join('\n') + '\n';
}
