// What a V8 heap snapshot holds, by kind: the sum of each node's own size grouped by its
// type and name (constructor for objects), biggest first. Used on the snapshot the
// end-to-end bench takes (WGCP_BENCH_HEAP=1) to write docs/performance.md's table.
//   node dist/bench/heap-summary.js <file.heapsnapshot> [rows=30]
import fs from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export function summarise(snap: Snapshot): { total: number; count: number; rows: { kind: string; bytes: number; count: number }[] } {
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const byKind = new Map<string, { bytes: number; count: number }>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]];
    const size = snap.nodes[i + sizeAt];
    // Strings and code are grouped by type alone: their names are their contents.
    const kind = type === 'object' || type === 'native' || type === 'closure' ? `${type} ${snap.strings[snap.nodes[i + nameAt]]}` : type;
    const k = byKind.get(kind) ?? { bytes: 0, count: 0 };
    k.bytes += size;
    k.count++;
    byKind.set(kind, k);
    total += size;
  }
  const rows = [...byKind].map(([kind, v]) => ({ kind, ...v })).sort((a, b) => b.bytes - a.bytes);
  return { total, count: snap.nodes.length / width, rows };
}

if (require.main === module) {
  const [file, rows = '30'] = process.argv.slice(2);
  if (!file) { process.stderr.write('usage: heap-summary <file.heapsnapshot> [rows]\n'); process.exit(2); }
  const { total, count, rows: list } = summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot);
  const mb = (b: number) => (b / 1048576).toFixed(2);
  process.stdout.write(`${count} nodes, ${mb(total)} MB of own sizes\n\n| kind | MB | count |\n|---|---:|---:|\n`);
  for (const r of list.slice(0, Number(rows))) process.stdout.write(`| ${r.kind.slice(0, 80).replace(/\|/g, '\\|')} | ${mb(r.bytes)} | ${r.count} |\n`);
}
