// `wgcp ha notify MASTER|BACKUP|FAULT` (keepalived's notify script calls it) and `wgcp ha
// status`: both ask the running wgcpd on its admin socket (POST /api/ha/notify, GET
// /api/ha); the pair's role lives in the daemon, so without one there is nothing to tell.
import { askDaemon } from './daemon-socket';
import { UsageError, type Args } from './args';
import { renderTable } from './table';

/** keepalived waits for its notify script: a daemon that does not answer by then is not waited for longer. */
const ANSWER_MS = 15_000;

interface Status { role: string; epoch: number; sequence: number; partner: { url: string; connected: boolean; behind: number } | null }

function print(s: Status, json: boolean, out: (s: string) => void): void {
  if (json) { out(JSON.stringify(s, null, 2) + '\n'); return; }
  out(renderTable(['ROLE', 'EPOCH', 'SEQUENCE', 'PARTNER', 'CONNECTED', 'BEHIND'], [[s.role, String(s.epoch), String(s.sequence),
    s.partner?.url ?? '-', s.partner ? (s.partner.connected ? 'yes' : 'no') : '-', s.partner ? String(s.partner.behind) : '-']]));
}

export async function runHaCommand(args: Args, dataDir: string, out: (s: string) => void, json: boolean): Promise<number> {
  const sub = args.words[1];
  let answer;
  if (sub === 'notify') {
    const state = (args.words[2] ?? '').toUpperCase();
    if (!['MASTER', 'BACKUP', 'FAULT'].includes(state)) throw new UsageError('wgcp ha notify takes MASTER, BACKUP or FAULT');
    answer = await askDaemon(dataDir, 'POST', '/api/ha/notify', { state }, ANSWER_MS);
  } else if (sub === 'status') {
    answer = await askDaemon(dataDir, 'GET', '/api/ha', undefined, ANSWER_MS);
  } else {
    throw new UsageError('wgcp ha takes notify STATE or status');
  }
  if (answer === null) throw new Error('wgcpd is not running (no admin socket in the data folder): the pair\'s role lives in the daemon');
  if (answer.status !== 200) throw new Error(`wgcpd answered ${answer.status}: ${answer.json?.error ?? 'no reason given'}`);
  print(answer.json as Status, json, out);
  return 0;
}
