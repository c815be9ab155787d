// `wgcp check`: compares the kernel with the database, as the daemon's reconciler does,
// and prints what differs without repairing anything; exit 1 when something does. Reading
// the kernel needs CAP_NET_ADMIN (nft), which the CLI lacks where it runs as the daemon's
// user (OpenWrt's wrapper drops to it inside node, without setpriv to keep the capability):
// so while wgcpd runs, the daemon compares and the CLI prints its report (GET
// /api/kernel/check on the admin socket). With no daemon answering, the CLI compares in its
// own process, with the privileges it has (root, the daemon stopped).
import type { Store } from '../store/store';
import { kernelCheckReport, type KernelCheckReport } from '../ops/kernel-check';
import { wanInterfacesOf } from '../config';
import { askDaemon, type DaemonAnswer } from './daemon-socket';
import { renderTable } from './table';

/** The daemon has the whole kernel to read: a wait this long is a daemon that does not answer (stopped, hung). */
const DAEMON_ANSWER_MS = 10_000;

/** The running daemon's report, or null when none answers (or it is older than the route): then the CLI compares itself. */
async function daemonReport(dataDir: string): Promise<KernelCheckReport | null> {
  let answer: DaemonAnswer | null;
  try {
    answer = await askDaemon(dataDir, 'GET', '/api/kernel/check', undefined, DAEMON_ANSWER_MS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ETIMEDOUT') throw err;
    process.stderr.write(`wgcp: wgcpd did not answer on its socket within ${DAEMON_ANSWER_MS / 1000} s: comparing here\n`);
    return null;
  }
  if (answer === null || answer.status === 404) return null;
  if (answer.status !== 200) throw new Error(`wgcpd answered ${answer.status}: ${answer.json?.error ?? 'no reason given'}`);
  return answer.json as KernelCheckReport;
}

/** Prints each difference (no keys), as a table or with `json` as JSON; resolves to the exit code: 0 none, 1 some. */
export async function runCheckCommand(dataDir: string, openStore: () => Store, out: (s: string) => void, json = false): Promise<number> {
  let report = await daemonReport(dataDir);
  if (!report) {
    const store = openStore();
    try {
      report = await kernelCheckReport(store, wanInterfacesOf(process.env.WGCP_WAN_INTERFACES));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // No daemon answered, and this process may not read the kernel: say which way works.
      throw new Error(/Operation not permitted/.test(message) ? `${message}\nwith wgcpd running, wgcp check asks it on its socket; with wgcpd stopped, run it as root` : message);
    } finally {
      store.close();
    }
  }
  const { differences } = report;
  const found = differences.length;
  if (json) out(JSON.stringify({ same: found === 0, differences }, null, 2) + '\n');
  else {
    if (found) out(renderTable(['KIND', 'DIFFERENCE'], differences.map((d) => [d.kind, d.summary])));
    out(found === 0 ? 'the kernel holds what the database says\n' : `${found} difference${found === 1 ? '' : 's'}: wgcpd repairs them (docs/kernel.md, "Drift")\n`);
  }
  return found === 0 ? 0 : 1;
}
