// `wgcp import wg-quick FILE [--name NAME] [--dry-run]` and `wgcp import wg-easy FILE`:
// prints the plan and what cannot be carried over, refuses conflicts (exit 2, nothing
// imported), and with --dry-run stops there. With wgcpd running, the import is its change:
// sent through its socket, it is applied to the kernel and announced at once. Without one,
// it goes into the database through the same operation, and the next start brings it up.
import { Store } from '../store/store';
import { KernelOff, type KernelPlane } from '../kernel/plane';
import { isForeignLink } from '../wg/link-owner';
import { checkImport, runImport, udpPortTaken, type ImportContext } from '../ops/import';
import { cliRunner } from '../ops/cli-runner';
import { CLI_ACTOR } from '../ops/runner';
import { planText } from '../import/plan-text';
import { planFromFile } from '../import/source';
import type { ImportOptions } from '../import/plan';
import type { ServerMode } from '../store/servers';
import { reloadDaemon, runningDaemon } from '../backup/daemon-reload';
import { kernelOutcome, readKernelReport } from '../backup/daemon-kernel';
import { UsageError, stringOption, type Args } from './args';
import { askDaemon, type DaemonAnswer } from './daemon-socket';
import fs from 'node:fs';
import path from 'node:path';
import createError from 'http-errors';

const USAGE = 'usage: wgcp import wg-quick FILE [--name NAME] [--endpoint HOST:PORT] [--mode forward|standalone] [--interface IF] [--dry-run]\n'
  + '       wgcp import wg-easy FILE [same options]   (FILE: wg0.json of v14, or the v15 database)';

/** The CLI applies nothing to the kernel (wgcpd does), but still sees which links the router holds. */
function cliKernel(): KernelPlane {
  return Object.assign(new KernelOff('the CLI stores; wgcpd applies'), { isForeignLink: (name: string) => isForeignLink(name) });
}

function optionsOf(args: Args): ImportOptions {
  const mode = stringOption(args, 'mode');
  return {
    name: stringOption(args, 'name'),
    endpoint: stringOption(args, 'endpoint'),
    mode: mode as ServerMode | undefined,
    interface: stringOption(args, 'interface'),
  };
}

export async function runImportCommand(args: Args, dataDir: string, out: (s: string) => void): Promise<number> {
  const [, source, file] = args.words;
  if ((source !== 'wg-quick' && source !== 'wg-easy') || !file || args.words.length > 3) throw new UsageError(USAGE);
  const plan = planFromFile(source, file, optionsOf(args), new Date());
  out(planText(plan));
  if (runningDaemon(dataDir) !== null) {
    const body = { source, fileBase64: fs.readFileSync(file).toString('base64'), fileName: path.basename(file), dryRun: args.options.has('dry-run'), ...optionsOf(args) };
    const answer = await askDaemon(dataDir, 'POST', '/api/import', body);
    if (answer) return reportDaemonImport(answer, body.dryRun, dataDir, out);
  }
  const store = Store.open(dataDir);
  let imported;
  try {
    const kernel = cliKernel();
    const ctx: ImportContext = { store, kernel, now: () => new Date(), runner: cliRunner(store, kernel) };
    checkImport(ctx, plan);
    const taken = udpPortTaken(plan.server.listenPort);
    if (taken) throw taken;
    if (args.options.has('dry-run')) {
      out('dry run: nothing was changed; the import would be accepted\n');
      return 0;
    }
    imported = await runImport(ctx, plan, { actor: CLI_ACTOR });
  } finally {
    store.close();
  }
  out(`imported: server ${imported.server.id} "${imported.server.name}" (interface ${imported.server.interface}) with ${imported.peers.length} peers\n`);
  const pid = runningDaemon(dataDir);
  if (pid === null) {
    out('wgcpd is not running: its next start brings the server up (when its kernel backend is on)\n');
    return 0;
  }
  out(`wgcpd (pid ${pid}) is running: it starts again (SIGHUP) to bring the server up\n`);
  const outcome = await reloadDaemon(dataDir, pid);
  if (outcome !== 'reloaded') throw new Error(`the import is stored, but wgcpd ${outcome === 'stopped' ? 'stopped while starting again' : 'did not start again within 60 s'}: see its log`);
  out(`wgcpd started again: ${kernelOutcome(readKernelReport(dataDir), 'the imported server', imported.server.id)}\n`);
  return 0;
}

/** What the running daemon said of the import: its refusal is the CLI's (exit 2 for a 4xx, as a local refusal). */
function reportDaemonImport(answer: DaemonAnswer, dryRun: boolean, dataDir: string, out: (s: string) => void): number {
  if (answer.status >= 400) throw createError(answer.status, String(answer.json?.error ?? `wgcpd answered ${answer.status}`));
  if (dryRun) {
    out('dry run: nothing was changed; wgcpd would accept the import\n');
    return 0;
  }
  const s = answer.json.server as { id: number; name: string; interface: string; peers: unknown[]; kernelState: string; kernelFailure: { reason: string } | null };
  out(`imported through wgcpd: server ${s.id} "${s.name}" (interface ${s.interface}) with ${s.peers.length} peers\n`);
  if (s.kernelState === 'up') out('the kernel holds the imported server\n');
  else if (s.kernelState === 'failed') out(`the server is stored, but the kernel could not bring it up (wgcpd retries): ${s.kernelFailure?.reason ?? 'see its log'}\n`);
  else out(`${kernelOutcome(readKernelReport(dataDir), 'the imported server', s.id)}\n`);
  return 0;
}
