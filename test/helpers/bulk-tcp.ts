// Bulk TCP for data-limit tests, run inside namespaces:
//   node bulk-tcp.js sink <port>                       discards everything; prints "ready"
//   node bulk-tcp.js send <host> <port> <bytes> <stallMs>
// The sender writes until <bytes> are sent, or until the connection makes no progress
// for <stallMs> (traffic stopped), and prints {"sent": n, "stalled": bool, "ms": t}.
import net from 'node:net';

const [mode, a, b, c, d] = process.argv.slice(2);
if (mode === 'sink') {
  net.createServer((sock) => { sock.on('data', () => {}); sock.on('error', () => {}); })
    .listen(Number(a), '0.0.0.0', () => process.stdout.write('ready\n'));
} else if (mode === 'send') {
  const total = Number(c);
  const stallMs = Number(d);
  const chunk = Buffer.alloc(256 * 1024);
  const started = Date.now();
  let sent = 0;
  let lastProgress = Date.now();
  const sock = net.connect({ host: a, port: Number(b) });
  const done = (stalled: boolean) => {
    process.stdout.write(JSON.stringify({ sent, stalled, ms: Date.now() - started }));
    process.exit(0);
  };
  const pump = () => {
    while (sent < total) {
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      if (!sock.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return;
    }
    sock.end(() => done(false));
  };
  sock.on('connect', pump);
  sock.on('drain', () => { lastProgress = Date.now(); pump(); });
  sock.on('error', () => done(true));
  setInterval(() => { if (Date.now() - lastProgress > stallMs) done(true); }, 200);
} else {
  process.stderr.write('usage: bulk-tcp sink <port> | send <host> <port> <bytes> <stallMs>\n');
  process.exit(2);
}
