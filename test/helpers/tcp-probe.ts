// A tiny TCP server and client for traffic tests, run inside namespaces:
//   node tcp-probe.js serve <port> <label>   answers "<label> <remote address>" to each connection
//   node tcp-probe.js connect <host> <port> <timeoutMs>   prints the answer, exit 1 if none
import net from 'node:net';

const [mode, a, b, c] = process.argv.slice(2);
if (mode === 'serve') {
  const server = net.createServer((sock) => {
    sock.end(`${b} ${sock.remoteAddress?.replace(/^::ffff:/, '')}\n`);
  });
  // '::' takes IPv4 too (as ::ffff:a.b.c.d, shown without the prefix).
  server.listen(Number(a), '::', () => process.stdout.write('ready\n'));
} else if (mode === 'connect') {
  const sock = net.connect({ host: a, port: Number(b) });
  let got = '';
  const timer = setTimeout(() => { process.stdout.write('timeout'); process.exit(1); }, Number(c));
  sock.on('data', (d) => { got += d.toString(); });
  sock.on('end', () => { clearTimeout(timer); process.stdout.write(got.trim()); process.exit(got ? 0 : 1); });
  sock.on('error', (err) => { clearTimeout(timer); process.stdout.write(String((err as NodeJS.ErrnoException).code ?? err)); process.exit(1); });
} else {
  process.stderr.write('usage: tcp-probe serve <port> <label> | connect <host> <port> <timeoutMs>\n');
  process.exit(2);
}
