// A TCP link that a test can cut and mend: it listens on a port of its own and carries each
// connection to `target`; cut() ends every connection and refuses new ones (as a link gone
// down), mend() carries them again. Two of them stand for the pair's channel between two
// daemons on loopback.
import net from 'node:net';

export class CuttableLink {
  private readonly sockets = new Set<net.Socket>();
  private down = false;
  private constructor(private readonly server: net.Server) {}

  static async open(target: number): Promise<CuttableLink> {
    const server = net.createServer();
    const link = new CuttableLink(server);
    server.on('connection', (inbound) => link.carry(inbound, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return link;
  }

  get port(): number { return (this.server.address() as net.AddressInfo).port; }

  private carry(inbound: net.Socket, target: number): void {
    if (this.down) { inbound.destroy(); return; }
    const outbound = net.connect(target, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => { inbound.destroy(); outbound.destroy(); });
    }
    inbound.pipe(outbound).pipe(inbound);
  }

  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.destroy();
  }

  mend(): void { this.down = false; }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
