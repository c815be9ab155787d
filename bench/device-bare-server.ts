// The baseline for the heartbeat benchmark: a bare node:http server that reads a JSON body,
// parses it, and answers a JSON body of the given size. Nothing else: no routing, no store.
//   node device-bare-server.js <port> <responseBytes>    prints "ready <port>" once listening
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const port = Number(process.argv[2] ?? 0);
const size = Number(process.argv[3] ?? 512);
const filler = 'x'.repeat(Math.max(0, size - '{"status":"ok","pad":""}'.length));

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { device_id?: string };
    const text = JSON.stringify({ status: body.device_id ? 'ok' : 'no', pad: filler });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  });
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`ready ${(server.address() as AddressInfo).port}\n`));
