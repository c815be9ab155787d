// Starts the consumers of the event bus (webhook outbox, mail notices, the live stream) and
// stops them in reverse order. The daemon calls this once the app is built (and starts the jobs).
import type http from 'node:http';
import type { App } from '../app';
import { registerOwnListener } from '../net/own-listeners';
import { warnIfPlainHttp } from '../device/plain-http-warning';
import { MailNotices } from './mail-notices';
import { EventStream, type StreamOptions } from './stream';
import { WebhookDispatcher, type DispatcherOptions } from './webhooks';

export interface EventServiceOptions extends DispatcherOptions {
  authenticate: StreamOptions['authenticate'];
  stillHeld: StreamOptions['stillHeld'];
  /** How often an open stream's credential is looked at again (default 2 s). */
  streamRecheckMs?: number;
}

export interface EventServices {
  webhooks: WebhookDispatcher;
  mail: MailNotices;
  stream: EventStream;
  stop(): Promise<void>;
}

export function startEventServices(app: App, server: http.Server, opts: EventServiceOptions): EventServices {
  // The daemon hands its main listener over here: webhooks and mail must never be sent to
  // it, and since it serves the device API too, its plain HTTP is judged like the device listener's.
  registerOwnListener(server);
  warnIfPlainHttp(app.log, server, 'WGCP_LISTEN', false);
  const webhooks = new WebhookDispatcher(app, opts);
  const mail = new MailNotices(app);
  const stream = new EventStream(app, { authenticate: opts.authenticate, stillHeld: opts.stillHeld, recheckMs: opts.streamRecheckMs });
  const unsubscribe = [
    app.events.subscribe((e) => webhooks.onEvent(e)),
    app.events.subscribe((e) => mail.onEvent(e)),
    app.events.subscribe((e) => stream.onEvent(e)),
    app.events.onAccessEnded((ids) => stream.accessEnded(ids)),
  ];
  const onUpgrade = (req: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => stream.handleUpgrade(req, socket, head);
  server.on('upgrade', onUpgrade);
  webhooks.start();
  mail.start();
  return {
    webhooks, mail, stream,
    async stop() {
      server.off('upgrade', onUpgrade);
      await stream.close();
      for (const u of unsubscribe) u();
      await webhooks.stop();
      await mail.stop();
    },
  };
}
