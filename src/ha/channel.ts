// The channel a primary serves its journal on (WGCP_HA_LISTEN), to its partner alone: every
// request is signed with the shared key (auth.ts), every answer too.
//
//   GET /ha/tail?epoch=E&seq=S&wait=MS   the changes after S (the follower holds every one
//       up to S: that is its acknowledgement), or, after up to MS, none. 409 {"notPrimary"}
//       from a router that is not primary; 409 {"diverged": true, "since": N} when the
//       follower holds changes from N on that this line never had (a former primary); 410
//       {"snapshot": true} when the journal no longer reaches back to S.
//   GET /ha/snapshot                     the whole database in the backup format.
//   GET /ha/role                         {"role", "epoch", "node"} from any role: a primary
//       asks it of its partner to find a second primary (partner-watch.ts).
// A tail request also names the follower's epoch's node and first sequence (node=, start=):
// the primary judges the follower's line against its own (lines.ts).
import fs from 'node:fs';
import http from 'node:http';
import type { App } from '../app';
import { takeSnapshot } from '../backup/snapshot';
import { loadServerSalt } from '../device/server-salt';
import { RequestVerifier, AUTH_HEADER, SIGNATURE_HEADER, saltTag, signAnswer } from './auth';
import { judgeFollower, type FollowerLine, type TailVerdict } from './lines';
import type { Pair } from './pair';

/** Changes in one answer: a follower far behind takes the tail in bounded steps. */
const BATCH_CHANGES = 500;
/** The longest a tail request is held open waiting for a change. */
const MAX_WAIT_MS = 10_000;

/** How a follower stands to this primary's line (src/ha/lines.ts), from the store's reads. */
function judge(app: App, f: FollowerLine): TailVerdict {
  const own = app.store.ha.state();
  return judgeFollower({ ...own, pruned: app.store.ha.prunedUpTo(), epochs: app.store.ha.epochs() }, f);
}

function tailAnswer(app: App, after: number) {
  const own = app.store.ha.state();
  // Changes without replicated rows leave gaps: an answer that reaches the journal's end covers every sequence up to own.seq.
  const end = app.store.ha.batchEnd(after, BATCH_CHANGES);
  const upTo = end === null || app.store.ha.batchEnd(after, BATCH_CHANGES + 1) === end ? own.seq : end;
  return { epoch: own.epoch, seq: own.seq, upTo, epochs: app.store.ha.epochs(), entries: app.store.ha.entriesAfter(after, upTo) };
}

export function createChannelServer(app: App, pair: Pair, key: Buffer): http.Server {
  const verifier = new RequestVerifier(key);
  const watched = new WeakSet<object>();
  let ownSalt: string | null = null;
  let saidSalt = false;
  const send = (res: http.ServerResponse, nonce: string, status: number, body: Buffer, type = 'application/json') => {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': body.length, [SIGNATURE_HEADER]: signAnswer(key, nonce, body) });
    res.end(body);
  };
  const json = (res: http.ServerResponse, nonce: string, status: number, value: unknown) => send(res, nonce, status, Buffer.from(JSON.stringify(value)));

  const server = http.createServer({ requestTimeout: 0, headersTimeout: 15_000 }, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://ha');
    const nonce = verifier.verify(req.headers[AUTH_HEADER] as string | undefined, req.method ?? '', url.pathname + url.search);
    if (nonce === null) {
      app.log.warn('the standby channel refused a request that was not signed with the shared key', { address: req.socket.remoteAddress, path: url.pathname });
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":"not signed with the shared key"}');
      return;
    }
    const handle = async () => {
      if (url.pathname === '/ha/role' && req.method === 'GET') {
        const line = app.store.ha.currentEpoch();
        return json(res, nonce, 200, { role: pair.role, epoch: line.epoch, node: line.node });
      }
      if (pair.role !== 'primary') return json(res, nonce, 409, { notPrimary: true, role: pair.role });
      if (url.pathname === '/ha/snapshot' && req.method === 'GET') {
        const file = await takeSnapshot(app.store.db, app.config.dataDir, app.now());
        try {
          return send(res, nonce, 200, fs.readFileSync(file), 'application/vnd.sqlite3');
        } finally {
          fs.rmSync(file, { force: true });
        }
      }
      if (url.pathname !== '/ha/tail' || req.method !== 'GET') return json(res, nonce, 404, { error: 'not found' });
      const epoch = Number(url.searchParams.get('epoch'));
      const seq = Number(url.searchParams.get('seq'));
      const wait = Math.min(MAX_WAIT_MS, Number(url.searchParams.get('wait') ?? 0) || 0);
      if (!Number.isSafeInteger(epoch) || !Number.isSafeInteger(seq)) return json(res, nonce, 400, { error: 'epoch and seq must be whole numbers' });
      // A standby on an older schema would drop the columns it lacks: upgrade it first (docs/ha.md).
      const schema = Number(url.searchParams.get('schema') ?? 0);
      if (schema < app.store.ha.schemaVersion()) return json(res, nonce, 409, { schemaOlder: true, schema: app.store.ha.schemaVersion() });
      // Devices' keys derive from the salt: a standby with another one would answer them wrongly after a failover.
      ownSalt ??= saltTag(key, loadServerSalt(app.config.serverSalt, app.config.dataDir).salt);
      if (url.searchParams.get('salt') !== ownSalt) {
        if (!saidSalt) app.log.error('the standby holds another device API salt (SERVER_SALT): it is not served until both routers hold the same one');
        saidSalt = true;
        return json(res, nonce, 409, { saltDiffers: true });
      }
      const verdict = judge(app, { epoch, seq, node: url.searchParams.get('node') ?? '', start: Number(url.searchParams.get('start') ?? 1) || 1 });
      pair.partnerEpoch = Math.max(pair.partnerEpoch, epoch);
      if (verdict.kind === 'newer') {
        app.log.error('the partner holds a newer epoch than this primary: it should be primary, not this router', { partnerEpoch: epoch, epoch: app.store.ha.state().epoch });
        return json(res, nonce, 409, { newer: true });
      }
      if (verdict.kind === 'diverged') return json(res, nonce, 409, { diverged: true, since: verdict.since });
      if (verdict.kind === 'snapshot') return json(res, nonce, 410, { snapshot: true });
      pair.pollOpened(seq);
      // The follower's connection outlives each poll (keep-alive): its end, between two polls, is the follower gone.
      if (!watched.has(req.socket)) {
        watched.add(req.socket);
        req.socket.once('close', () => pair.connectionClosed());
      }
      let closed = false;
      let answered = false;
      res.once('close', () => { closed = true; pair.pollClosed(answered); });
      if (app.store.ha.state().seq <= seq && wait > 0) await pair.nextCommit(wait);
      answered = true;
      if (closed) return;
      // Demoted while the request waited (keepalived's BACKUP or FAULT): its answer is the refusal.
      if (pair.role !== 'primary') return json(res, nonce, 409, { notPrimary: true, role: pair.role });
      json(res, nonce, 200, tailAnswer(app, seq));
    };
    handle().catch((err: Error) => {
      app.log.error('the standby channel failed to answer', { path: url.pathname, error: err.message });
      if (!res.headersSent) json(res, nonce, 500, { error: err.message });
      else res.destroy();
    });
  });
  // One partner: a few connections are enough, and held long-polls cannot pile up.
  server.maxConnections = 16;
  return server;
}
