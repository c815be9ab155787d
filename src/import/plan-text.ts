// A plan as the operator reads it before anything happens: as text (the CLI) and as JSON
// (the API). Neither shows a private or preshared key. Pure.
import type { ImportPlan } from './plan';

/** The plan without its secrets, for POST /api/import's answer. */
export function planView(plan: ImportPlan) {
  const { privateKey: _secret, ...server } = plan.server;
  return {
    source: plan.source,
    server,
    peers: plan.peers.map((p) => ({
      name: p.name, ip: p.ip, ip6: p.ip6, publicKey: p.publicKey, enabled: p.enabled, expiresAt: p.expiresAt,
      allowInternet: p.allowInternet, hasPrivateKey: p.privateKey !== null, hasPresharedKey: !/^A{43}=$/.test(p.presharedKey),
    })),
    notCarried: plan.notCarried,
    notes: plan.notes,
  };
}

export function planText(plan: ImportPlan): string {
  const s = plan.server;
  const lines = [
    `import from ${plan.source}`,
    `server "${s.name}": interface ${s.interface ?? 'wgcp<id>'}, ${s.address}${s.address6 ? `, ${s.address6}` : ''}, listens on ${s.listenPort}/udp, mode ${s.mode}`,
    `  endpoint ${s.endpoint}, DNS ${s.dns}${s.mtu !== null ? `, MTU ${s.mtu}` : ''}, public key ${s.publicKey} (its private key is kept)`,
    `peers: ${plan.peers.length}`,
    ...plan.peers.map((p) => `  ${p.name}: ${p.ip}${p.ip6 ? `, ${p.ip6}` : ''}, key ${p.publicKey}${p.enabled ? '' : ', disabled'}`
      + `${p.expiresAt ? `, expires ${p.expiresAt}` : ''}${p.allowInternet ? ', internet' : ''}${p.privateKey !== null ? ', private key kept' : ''}`),
  ];
  lines.push(plan.notCarried.length ? 'not carried over:' : 'not carried over: nothing');
  for (const n of plan.notCarried) lines.push(`  - ${n}`);
  if (plan.notes.length) lines.push('notes:');
  for (const n of plan.notes) lines.push(`  - ${n}`);
  return lines.join('\n') + '\n';
}
