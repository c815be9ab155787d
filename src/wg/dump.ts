// Parses `wg show <if> dump`: the first line is the interface, then one tab-separated line
// a peer (public-key, preshared-key, endpoint, allowed-ips, latest-handshake, rx, tx, keepalive).
// The dump holds keys: callers keep only the counters below and never log the text.

export interface DumpPeer {
  publicKey: string;
  endpoint: string | null;
  allowedIps: string[];
  /** Seconds since the epoch of the last handshake; 0 when there has been none. */
  latestHandshake: number;
  rxBytes: number;
  txBytes: number;
}

export interface Dump {
  listenPort: number;
  peers: DumpPeer[];
}

function count(text: string, what: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`wg dump: ${what} is not a number`);
  return Number(text);
}

export function parseDump(text: string): Dump {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) throw new Error('wg dump: empty output');
  const head = lines[0].split('\t');
  if (head.length < 4) throw new Error('wg dump: the interface line has too few fields');
  const peers = lines.slice(1).map((line, i): DumpPeer => {
    const f = line.split('\t');
    if (f.length < 8) throw new Error(`wg dump: peer line ${i + 1} has ${f.length} fields, expected 8`);
    return {
      publicKey: f[0],
      endpoint: f[2] === '(none)' ? null : f[2],
      allowedIps: f[3] === '(none)' ? [] : f[3].split(','),
      latestHandshake: count(f[4], 'latest-handshake'),
      rxBytes: count(f[5], 'transfer-rx'),
      txBytes: count(f[6], 'transfer-tx'),
    };
  });
  return { listenPort: head[2] === 'off' ? 0 : count(head[2], 'listen-port'), peers };
}
