// GET /api/events: a WebSocket stream of every event (the webhook envelope as JSON) and of
// usage snapshots after each collection. Credentials as for the API, or an access token
// offered as a Sec-WebSocket-Protocol value (browsers cannot set headers). A client that
// does not keep up is dropped: nothing is buffered for it beyond a fixed bound. `ws` is
// loaded at the first client (about 10 MB of RSS a daemon without clients never pays).
// A stream lives no longer than what let it in: revoking its key or token closes it at the
// revocation's commit, and every few seconds each stream's key, token or session is looked
// at again (expired, signed out, idle, revoked by a `wgcp` command on the file).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer, WebSocket } from 'ws';
import type { App } from '../app';
import type { WgcpEvent } from './bus';
import { envelopeOf } from './webhook-render';
import { wholeGB } from '../data-limit';
import type { HeldCredential } from '../http/auth';

export const STREAM_PATH = '/api/events';
/** The subprotocol a browser may offer beside its token, and that the server then selects. */
export const STREAM_PROTOCOL = 'wgcp';

export interface StreamOptions {
  /** What let the headers in; throws unless they carry a live credential (the API's own check). */
  authenticate(headers: IncomingMessage['headers']): HeldCredential;
  /** Whether it still would (looks only: an open stream is no use of a session). */
  stillHeld(held: HeldCredential): boolean;
  maxBufferedBytes?: number;
  maxClients?: number;
  pingIntervalMs?: number;
  /** How often each stream's credential is looked at again. */
  recheckMs?: number;
}

/** The close code of a stream whose credential ended (4000-4999: the application's own). */
export const CLOSE_ACCESS_ENDED = 4401;

const refuse = (socket: Duplex, status: number, text: string, error: string) => {
  const body = JSON.stringify({ error });
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
};

export class EventStream {
  private server: WebSocketServer | null = null;
  private readonly chosen = new WeakMap<IncomingMessage, string>();
  /** What let each request in, from the check until its socket is a stream; then each stream's. */
  private readonly heldBy = new WeakMap<IncomingMessage, HeldCredential>();
  private readonly held = new Map<WebSocket, HeldCredential>();
  private readonly rechecker: NodeJS.Timeout;
  private readonly alive = new WeakSet<WebSocket>();
  private readonly maxBuffered: number;
  private readonly maxClients: number;
  private readonly pinger: NodeJS.Timeout;
  dropped = 0;

  constructor(private readonly app: App, private readonly opts: StreamOptions) {
    this.maxBuffered = opts.maxBufferedBytes ?? 4 * 1024 * 1024;
    this.maxClients = opts.maxClients ?? 64;
    // A client that stops answering pings is gone: drop it rather than write into the void.
    this.pinger = setInterval(() => {
      for (const ws of this.clients()) {
        if (!this.alive.has(ws)) { ws.terminate(); continue; }
        this.alive.delete(ws);
        ws.ping();
      }
    }, opts.pingIntervalMs ?? 30_000);
    this.pinger.unref();
    this.rechecker = setInterval(() => this.endWhere((h) => !opts.stillHeld(h)), opts.recheckMs ?? 2000);
    this.rechecker.unref();
  }

  /** After a change revoked these keys or tokens: their streams, and those of sessions opened with them, close now. */
  accessEnded(credentialIds: readonly number[]): void {
    this.endWhere((h) => h.kind !== 'configured' && h.credentialId !== null && credentialIds.includes(h.credentialId));
  }

  private endWhere(ended: (h: HeldCredential) => boolean): void {
    for (const [ws, h] of this.held) {
      if (!ended(h)) continue;
      this.held.delete(ws);
      ws.close(CLOSE_ACCESS_ENDED, 'credentials ended');
      // A peer that does not answer the close is cut off rather than kept listening.
      setTimeout(() => ws.terminate(), 1000).unref();
    }
  }

  get clientCount(): number { return this.server?.clients.size ?? 0; }

  private clients(): Iterable<WebSocket> { return this.server?.clients ?? []; }

  private get wss(): WebSocketServer {
    if (!this.server) {
      const { WebSocketServer: Server } = require('ws') as typeof import('ws');
      this.server = new Server({
        noServer: true,
        maxPayload: 4096,
        clientTracking: true,
        perMessageDeflate: false,
        handleProtocols: (offered, req) => this.chosen.get(req) ?? (offered.has(STREAM_PROTOCOL) ? STREAM_PROTOCOL : false),
      });
    }
    return this.server;
  }

  /** The http server's 'upgrade' listener. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== STREAM_PATH) return refuse(socket, 404, 'Not Found', 'not found');
    if (!this.authorised(req)) return refuse(socket, 401, 'Unauthorized', 'unauthorized');
    if (this.clientCount >= this.maxClients) return refuse(socket, 503, 'Service Unavailable', 'too many event stream clients');
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.held.set(ws, this.heldBy.get(req)!);
      ws.once('close', () => this.held.delete(ws));
      this.welcome(ws);
    });
  }

  private authorised(req: IncomingMessage): boolean {
    try {
      this.heldBy.set(req, this.opts.authenticate(req.headers));
      return true;
    } catch { /* try the subprotocol values */ }
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    for (const value of offered) {
      if (value === STREAM_PROTOCOL) continue;
      try {
        this.heldBy.set(req, this.opts.authenticate({ authorization: value }));
        // Echo the plain subprotocol when offered, so the token is not sent back.
        this.chosen.set(req, offered.includes(STREAM_PROTOCOL) ? STREAM_PROTOCOL : value);
        return true;
      } catch { /* next value */ }
    }
    return false;
  }

  private welcome(ws: WebSocket): void {
    this.alive.add(ws);
    ws.on('pong', () => this.alive.add(ws));
    ws.on('error', () => ws.terminate());
    // Clients only listen; anything they send is ignored.
    ws.on('message', () => {});
    this.sendTo(ws, JSON.stringify(this.usageMessage()));
  }

  private sendTo(ws: WebSocket, text: string): void {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount + text.length > this.maxBuffered) {
      this.dropped++;
      this.app.log.warn('event stream client dropped: it does not keep up', { bufferedBytes: ws.bufferedAmount });
      ws.terminate();
      return;
    }
    ws.send(text);
  }

  private broadcast(message: unknown): void {
    if (this.clientCount === 0) return;
    const text = JSON.stringify(message);
    for (const ws of this.clients()) this.sendTo(ws, text);
  }

  onEvent(e: WgcpEvent): void { this.broadcast(envelopeOf(e)); }

  usageMessage() {
    const peers = this.app.store.usage.snapshot().map((p) => ({
      id: p.id, serverID: p.serverId, currentDataUsageBytes: p.usageBytes, dataLimitGB: wholeGB(p.dataLimitGB), dataLimitGiB: p.dataLimitGB,
      enabled: p.enabled, disabledReason: p.disabledReason, latestHandshake: p.latestHandshake,
    }));
    return { event: 'usage', timestamp: this.app.now().toISOString(), data: { peers } };
  }

  /** Sent after every usage collection. */
  publishUsage(): void { if (this.clientCount > 0) this.broadcast(this.usageMessage()); }

  /**
   * Closes every stream as "going away" (1001), so the page sees the daemon stop and
   * reconnects, and cuts a client that has not answered the close within `graceMs`.
   * An upgraded socket is no longer the HTTP server's: its close() would wait for it forever.
   */
  async close(graceMs = 1000): Promise<void> {
    clearInterval(this.pinger);
    clearInterval(this.rechecker);
    const open = [...this.clients()];
    await new Promise<void>((resolve) => {
      if (open.length === 0) return resolve();
      let left = open.length;
      const cut = setTimeout(() => { for (const ws of open) ws.terminate(); }, graceMs);
      for (const ws of open) {
        ws.once('close', () => { if (--left === 0) { clearTimeout(cut); resolve(); } });
        ws.close(1001, 'wgcpd is stopping');
      }
    });
    this.server?.close();
  }
}
