// A peer create through the HTTP API beside the kernel's own floor for the same change,
// measured in the same run on the same machine (issue 23): one `nft` element batch through
// a kept `nft -i` (as the daemon applies them) plus one `wg set` of a peer on the daemon's
// own interface (wireguard-go), each timed from here. The create is timed the way a client
// meets it: request sent to answer read, through the real wgcpd with its kernel on. The
// floor's `wg set` is the daemon's own call (preshared key through a 0600 file, an IPv4 and
// an IPv6 address), its batch one element.
//   npx tsc -p . && node dist/bench/create-floor.js        (root; makes and removes its namespace)
//   WGCP_BENCH_SIZES=100,10000 WGCP_BENCH_ROUNDS=100
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Daemon } from './scale-daemon';
import { Fleet } from './scale-fleet';
import { say } from './scale-measure';
import { machineLines, runInNamespace } from './scale-namespace';
import { NftSession } from '../src/nft/session';
import { SECRET_FILE, run } from '../src/exec/command';
import { generateKeyPair, generatePresharedKey } from '../src/wg/keys';

const SIZES = (process.env.WGCP_BENCH_SIZES ?? '100,10000').split(',').map(Number);
const ROUNDS = Number(process.env.WGCP_BENCH_ROUNDS ?? 100);

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const fmt = (xs: number[]): string => `${quantile(xs, 0.5).toFixed(2)} / ${quantile(xs, 0.95).toFixed(2)}`;

/** The floor: one element batch through a kept nft -i in a scratch table, one `wg set` and its removal. */
class Floor {
  private readonly nft = new NftSession();
  private n = 0;
  constructor(private readonly ifname: string) {}

  async setUp(): Promise<void> {
    await run('nft', ['-f', '-'], { input: 'table inet wgcpfloor {\n set pairs { type ipv4_addr . ipv4_addr; }\n}\n' });
  }

  /** ms of one batch and of one `wg set`, as the daemon runs them for a new peer. */
  async once(): Promise<{ nftMs: number; wgMs: number }> {
    const i = ++this.n;
    const a = `10.250.${(i >> 8) & 255}.${i & 255}`;
    const t0 = performance.now();
    await this.nft.apply(`add element inet wgcpfloor pairs { ${a} . 10.250.0.1 }\n`);
    const nftMs = performance.now() - t0;
    const key = generateKeyPair().publicKey;
    const t1 = performance.now();
    // As the daemon sets a new peer: its preshared key through a private file, both families.
    await run('wg', ['set', this.ifname, 'peer', key, 'preshared-key', SECRET_FILE, 'allowed-ips', `${a}/32,fd99::${i.toString(16)}/128`], { secret: `${generatePresharedKey()}\n` });
    const wgMs = performance.now() - t1;
    // Untimed: the scratch element and peer go again, so the floor's interface stays its size.
    await this.nft.apply(`delete element inet wgcpfloor pairs { ${a} . 10.250.0.1 }\n`);
    await run('wg', ['set', this.ifname, 'peer', key, 'remove']);
    return { nftMs, wgMs };
  }

  async close(): Promise<void> {
    await this.nft.close();
    await run('nft', ['delete', 'table', 'inet', 'wgcpfloor']);
  }
}

async function inside(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-floor-'));
  const daemon = new Daemon(dataDir, 18081, { WGCP_USAGE_INTERVAL_S: '3600' });
  const ifname = `wgfl${process.pid % 10000}`;
  const lines: string[] = [
    '| peers | create through HTTP | nft batch | wg set | floor (nft + wg) | create / floor (medians) |',
    '|---:|---:|---:|---:|---:|---:|',
  ];
  try {
    await daemon.start();
    const fleet = await Fleet.create(() => daemon.client, 'floor', '10.91.0.1/16', ifname, 51950);
    const floor = new Floor(ifname);
    await floor.setUp();
    for (const size of SIZES) {
      await fleet.growTo(size, (n) => say(`${n} peers`));
      const creates: number[] = [];
      const nfts: number[] = [];
      const wgs: number[] = [];
      const floors: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        // Interleaved, so that the machine's load falls on both alike.
        const f = await floor.once();
        nfts.push(f.nftMs);
        wgs.push(f.wgMs);
        floors.push(f.nftMs + f.wgMs);
        const made = await daemon.client.must('POST', `/api/servers/${fleet.serverId}/peers`, { name: `floor-${size}-${r}`, allowInternet: r % 2 === 0 });
        creates.push(made.ms);
        await daemon.client.must('DELETE', `/api/peers/${made.json.id}`);
      }
      const ratio = quantile(creates, 0.5) / quantile(floors, 0.5);
      lines.push(`| ${size.toLocaleString('en')} | ${fmt(creates)} | ${fmt(nfts)} | ${fmt(wgs)} | ${fmt(floors)} | ${ratio.toFixed(2)}x |`);
      say(lines[lines.length - 1]);
    }
    await floor.close();
  } catch (err) {
    say(`wgcpd's last output:\n${daemon.log().slice(-3000)}`);
    throw err;
  } finally {
    await daemon.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write([...machineLines(), `- ${ROUNDS} rounds a size; milliseconds, median / p95`, '', ...lines].join('\n') + '\n');
}

if (process.argv.includes('--inside')) {
  inside().catch((err) => { process.stderr.write(`${err instanceof Error ? err.stack : err}\n`); process.exit(1); });
} else {
  runInNamespace(__filename, 'floor');
}
