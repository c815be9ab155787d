// The end-to-end bench's tables: each figure's median and p95 at every size with its
// ratio to the 100-peer value, memory and start-up per size, and memory under churn.
import type { Memory } from './scale-daemon';
import type { Figures } from './scale-fleet';
import type { Samples } from './scale-http';

export interface SizeResult {
  peers: number;
  figures: Figures;
  /** Each create while the fleet grew to this size. */
  fill: Samples;
  startMs: number;
  afterWork: Memory;
  afterRestart: Memory;
  loadBefore: number;
  loadAfter: number;
}

export interface ChurnSample extends Memory { s: number; steps: number; load: number }

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (x: number, base: number) => `${(x / base).toFixed(2)}x`;

/** Rows: figures; columns: median / p95 at each size, then the largest size's ratios to the smallest. */
export function figureTable(results: SizeResult[], names: string[]): string {
  const base = results[0];
  const last = results[results.length - 1];
  const head = ['what', ...results.map((r) => `${r.peers} peers`), `${last.peers} vs ${base.peers}: median`, 'p95'];
  const lines = [`| ${head.join(' | ')} |`, `|---|${head.slice(1).map(() => '---:').join('|')}|`];
  for (const name of names) {
    const cells = results.map((r) => `${ms(r.figures[name].median)} / ${ms(r.figures[name].p95)}`);
    const b = base.figures[name];
    const l = last.figures[name];
    lines.push(`| ${name} (n=${l.count}) | ${cells.join(' | ')} | ${ratio(l.median, b.median)} | ${ratio(l.p95, b.p95)} |`);
  }
  return lines.join('\n');
}

/** One size: each figure's median, p95 and sample count. */
export function sizeTable(r: SizeResult, names: string[]): string {
  const lines = [`| what (${r.peers} peers) | median | p95 | n |`, '|---|---:|---:|---:|'];
  for (const name of names) lines.push(`| ${name} | ${ms(r.figures[name].median)} | ${ms(r.figures[name].p95)} | ${r.figures[name].count} |`);
  return lines.join('\n');
}

export function memoryTable(results: SizeResult[]): string {
  const mb = (x: number) => x.toFixed(1);
  const lines = [
    '| peers | creates while growing: median / p95 | start-up with reconcile | RSS after the rounds (peak) | RSS after restart, usage cycle, 1,000 heartbeats (anon / file) | load before / after |',
    '|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    lines.push(`| ${r.peers} | ${ms(r.fill.median)} / ${ms(r.fill.p95)} | ${ms(r.startMs)} | ${mb(r.afterWork.rssMB)} MB (${mb(r.afterWork.hwmMB)}) | ${mb(r.afterRestart.rssMB)} MB (${mb(r.afterRestart.anonMB)} / ${mb(r.afterRestart.fileMB)}) | ${r.loadBefore.toFixed(2)} / ${r.loadAfter.toFixed(2)} |`);
  }
  return lines.join('\n');
}

export function churnTable(samples: ChurnSample[]): string {
  const lines = ['| seconds | churn steps | RSS (MB) | anon (MB) | peak (MB) | load |', '|---:|---:|---:|---:|---:|---:|'];
  // At most ~20 rows: every k-th sample and the last.
  const k = Math.max(1, Math.ceil(samples.length / 20));
  samples.forEach((s, i) => {
    if (i % k === 0 || i === samples.length - 1) lines.push(`| ${s.s} | ${s.steps < 0 ? 'end' : s.steps} | ${s.rssMB.toFixed(1)} | ${s.anonMB.toFixed(1)} | ${s.hwmMB.toFixed(1)} | ${s.load.toFixed(2)} |`);
  });
  return lines.join('\n');
}
