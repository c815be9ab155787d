// TCP, UDP and ICMP flows for the firewall suites, run inside namespaces:
//   node flow-probe.js serve <port> <label>       answers "<label> <remote address>" on TCP and UDP <port>
//   node flow-probe.js try <json> <timeoutMs>     tries each [proto, host, port] at once; prints a JSON
//                                                 array of answers (null: none within the time)
// A UDP or ICMP answer is a reply only conntrack lets back: one that arrives proves both ways.
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';

type Flow = ['tcp' | 'udp' | 'icmp', string, number];

function tcp(host: string, port: number, ms: number): Promise<string | null> {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    let got = '';
    const done = (v: string | null) => { clearTimeout(timer); sock.destroy(); resolve(v); };
    const timer = setTimeout(() => done(null), ms);
    sock.on('data', (d) => { got += d.toString(); });
    sock.on('end', () => done(got.trim() || null));
    sock.on('error', () => done(null));
  });
}

function udp(host: string, port: number, ms: number): Promise<string | null> {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    const send = () => sock.send('hello', port, host, () => undefined);
    // Sent again now and then: the first may wait for a WireGuard handshake.
    const again = setInterval(send, 300);
    const done = (v: string | null) => { clearTimeout(timer); clearInterval(again); sock.close(); resolve(v); };
    const timer = setTimeout(() => done(null), ms);
    sock.on('message', (m) => done(m.toString().trim()));
    sock.on('error', () => undefined);
    send();
  });
}

function icmp(host: string, ms: number): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('ping', ['-n', '-c', '1', '-w', String(Math.max(1, Math.round(ms / 1000))), host], (err) => resolve(err ? null : 'echo reply'));
  });
}

const [mode, a, b] = process.argv.slice(2);
if (mode === 'serve') {
  let ready = 0;
  const up = () => { if (++ready === 2) process.stdout.write('ready\n'); };
  net.createServer((sock) => sock.end(`${b} ${sock.remoteAddress?.replace(/^::ffff:/, '')}\n`)).listen(Number(a), '::', up);
  const u = dgram.createSocket({ type: 'udp6' });
  u.on('message', (_m, rinfo) => u.send(`${b} ${rinfo.address.replace(/^::ffff:/, '')}`, rinfo.port, rinfo.address));
  u.bind(Number(a), '::', up);
} else if (mode === 'try') {
  const flows = JSON.parse(a) as Flow[];
  const ms = Number(b);
  void Promise.all(flows.map(([proto, host, port]) => (proto === 'tcp' ? tcp(host, port, ms) : proto === 'udp' ? udp(host, port, ms) : icmp(host, ms))))
    .then((answers) => { process.stdout.write(JSON.stringify(answers)); process.exit(0); });
} else {
  process.stderr.write('usage: flow-probe serve <port> <label> | try <json flows> <timeoutMs>\n');
  process.exit(2);
}
