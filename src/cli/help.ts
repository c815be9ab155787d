// What `wgcp --help` and `wgcp COMMAND --help` print: one entry a command, with its synopsis,
// its options and an example, so that each command's help is its own and the global list is
// made from the same entries (one line each). The options listed are also the only ones a
// command accepts (main.ts refuses others): a typo never passes silently.
import { DATA_DIR_RULE } from './data-dir';

export interface CommandHelp {
  /** One line for the global list. */
  summary: string;
  /** The forms of the command, without the leading `wgcp `. */
  synopsis: string[];
  /** [option as written, what it does]. `--json` where the command prints data. */
  options: [string, string][];
  examples: string[];
  /** More words, when the synopsis does not say enough. */
  notes?: string[];
}

const JSON_OPTION: [string, string] = ['--json', 'print JSON for scripts instead of a table'];
const ROLE = 'admin, operator or viewer';

export const COMMANDS: Record<string, CommandHelp> = {
  serve: {
    summary: 'run the daemon (wgcpd) in the foreground on the data folder',
    synopsis: ['serve'],
    options: [],
    examples: ['WGCP_LISTEN=0.0.0.0:8080 wgcp serve'],
    notes: ['The environment configures it (docs/configuration.md); SIGTERM or Ctrl-C stops it.'],
  },
  init: {
    summary: "make the data folder's database if missing (wgcpd makes it too)",
    synopsis: ['init'],
    options: [],
    examples: ['wgcp --data-dir /var/lib/wgcp init'],
  },
  apikey: {
    summary: 'API keys: create, list, change the role of, revoke',
    synopsis: ['apikey create [--name NAME] [--role ROLE]', 'apikey list [--json]', 'apikey role ID ROLE', 'apikey revoke ID'],
    options: [['--name NAME', 'a name to know the key by (default: apikey-<time>)'], ['--role ROLE', `${ROLE} (default: admin)`], JSON_OPTION],
    examples: ['wgcp apikey create --name laptop --role operator', 'wgcp apikey list'],
    notes: ['A new key is printed once, alone on stdout; the database keeps only its hash.'],
  },
  token: {
    summary: 'access tokens (Authorization: Bearer): create, list, change the role of, revoke',
    synopsis: ['token create [--name NAME] [--role ROLE] [--expires-in-days N]', 'token list [--json]', 'token role ID ROLE', 'token revoke ID'],
    options: [['--name NAME', 'a name to know the token by'], ['--role ROLE', `${ROLE} (default: admin)`],
      ['--expires-in-days N', 'refused after N days (default: never)'], JSON_OPTION],
    examples: ['wgcp token create --name grafana --role viewer --expires-in-days 90', 'wgcp token list --json'],
    notes: ['A new token is printed once, alone on stdout.'],
  },
  totp: {
    summary: 'remove the two-factor sign-in of a key or token (a lost phone)',
    synopsis: ['totp reset ID'],
    options: [],
    examples: ['wgcp totp reset 3'],
    notes: ['ID is the key\'s or token\'s id, as `wgcp apikey list` shows it.'],
  },
  passkey: {
    summary: 'remove the passkeys of a key or token (lost authenticators)',
    synopsis: ['passkey reset ID'],
    options: [],
    examples: ['wgcp passkey reset 3'],
    notes: ['ID is the key\'s or token\'s id, as `wgcp apikey list` shows it. The key then signs in on the page with itself alone (and its TOTP code, if on).'],
  },
  audit: {
    summary: 'the audit log, oldest first',
    synopsis: ['audit [--actor KIND[:ID]] [--target TYPE[:ID]] [--action A] [--since T] [--until T] [--after ID] [--json]'],
    options: [['--actor KIND[:ID]', 'who: apikey, token, page, cli, job, reconciler or share, and its id'], ['--target TYPE[:ID]', 'what: peer, server, apikey, ... and its id'],
      ['--action A', 'one action, e.g. peer.update'], ['--since T', 'from this time on (ISO 8601)'], ['--until T', 'before this time (ISO 8601)'],
      ['--after ID', 'only entries after this id (continue from the last one shipped)'], ['--json', 'one JSON object a line, for shipping elsewhere']],
    examples: ['wgcp audit --target peer:12', 'wgcp audit --json --after 4711 >> audit.jsonl'],
  },
  regtoken: {
    summary: 'registration tokens for devices: create, list, revoke',
    synopsis: ['regtoken create --server ID', 'regtoken list [--server ID] [--json]', 'regtoken revoke TOKEN'],
    options: [['--server ID', 'the server the device joins (required by create)'], JSON_OPTION],
    examples: ['wgcp regtoken create --server 1', 'wgcp regtoken list --server 1'],
    notes: ['A new token is printed alone on stdout; give it to the device\'s wgcp-agent.'],
  },
  top: {
    summary: 'the busiest peers of the last hour (traffic history)',
    synopsis: ['top [--limit N] [--json]'],
    options: [['--limit N', 'how many peers (1-9999, default 10)'], JSON_OPTION],
    examples: ['wgcp top --limit 5'],
  },
  check: {
    summary: 'compare the kernel with the database, repair nothing; exit 1: they differ',
    synopsis: ['check [--json]'],
    options: [JSON_OPTION],
    examples: ['wgcp check'],
    notes: ['While wgcpd runs, the daemon compares (it holds CAP_NET_ADMIN) and answers on its socket;',
      'with wgcpd stopped, wgcp reads the kernel itself, which needs root.',
      'wgcpd repairs what differs on its own (docs/kernel.md, "Drift").'],
  },
  ha: {
    summary: 'the standby pair: tell wgcpd keepalived\'s state, or show where it stands',
    synopsis: ['ha notify MASTER|BACKUP|FAULT [--json]', 'ha status [--json]'],
    options: [JSON_OPTION],
    examples: ['wgcp ha status', 'wgcp ha notify MASTER'],
    notes: ['keepalived\'s notify script runs `wgcp ha notify STATE` (docs/ha.md): MASTER promotes this router',
      '(while it holds WGCP_HA_VIRTUAL_ADDRESS), BACKUP makes it follow its partner, FAULT stops it acting as primary.',
      'Both ask the running wgcpd on its admin socket.'],
  },
  tls: {
    summary: 'make a self-signed certificate and key for the device listener',
    synopsis: ['tls init [--out-dir DIR] [--cn NAME] [--san DNS:x,IP:y] [--days N] [--force]'],
    options: [['--out-dir DIR', 'where cert.pem and key.pem go (default: <data folder>/tls)'], ['--cn NAME', 'the certificate\'s name (default: the host name)'],
      ['--san LIST', 'its names, DNS:name and IP:address separated by commas'], ['--days N', 'valid for N days (default 825)'], ['--force', 'replace existing files']],
    examples: ['wgcp tls init --san DNS:vpn.example.com,IP:192.0.2.1'],
  },
  backup: {
    summary: 'a consistent snapshot of the state, mode 0600; it holds every secret',
    synopsis: ['backup [--out FILE|-] [--passphrase-file F]'],
    options: [['--out FILE', 'where to write it; - is stdout (default: <data folder>/backups/wgcp-backup-<time>.db)'],
      ['--passphrase-file F', 'encrypt it with the passphrase in F (scrypt + AES-256-GCM)']],
    examples: ['wgcp backup --out /root/wgcp.wgcpenc --passphrase-file /root/pw'],
    notes: ['It works beside a running wgcpd. Copy it off the router: a backup on its disk dies with that disk.'],
  },
  restore: {
    summary: 'replace the state with a backup (the old one is kept); exit 2: refused',
    synopsis: ['restore FILE [--passphrase-file F]'],
    options: [['--passphrase-file F', 'the passphrase of an encrypted backup']],
    examples: ['wgcp restore /root/wgcp-backup-20261128T010000Z.db'],
    notes: ['A running wgcpd applies it as one change, without a restart.'],
  },
  import: {
    summary: 'import a wg-quick config or a wg-easy database, with the keys clients have',
    synopsis: ['import wg-quick FILE [--name NAME] [--endpoint HOST:PORT] [--mode M] [--interface IF] [--dry-run]',
      'import wg-easy FILE [same options]   (FILE: wg0.json of v14, or the v15 database)'],
    options: [['--name NAME', 'the new server\'s name'], ['--endpoint HOST:PORT', 'the address clients reach it at'],
      ['--mode M', 'forward or standalone'], ['--interface IF', 'its interface name'], ['--dry-run', 'print the plan, change nothing']],
    examples: ['wgcp import wg-quick /etc/wireguard/wg0.conf --endpoint vpn.example.com:51820 --dry-run'],
  },
  join: {
    summary: 'join another wgcp router as a site: its LAN and this one linked (docs/site-to-site.md)',
    synopsis: ['join URL --token TOKEN --networks PREFIX[,PREFIX] [--name NAME] [--reachable-from REACH] [--ca-file FILE]', 'join --conf FILE [--name NAME] [--reachable-from REACH]'],
    options: [['--token TOKEN', 'a registration token of the other router\'s server'], ['--networks PREFIXES', 'this router\'s LAN, which the other side routes here'],
      ['--name NAME', 'what both routers call the link (default: site)'],
      ['--reachable-from REACH', 'what the other side may open connections to here: lan (this router\'s networks, the default), none (replies only), or PREFIX[,PREFIX]'],
      ['--ca-file FILE', 'the other router\'s device listener certificate, when self-signed'],
      ['--conf FILE', 'a .conf the other router gave for a peer of it, instead of a token']],
    examples: ['wgcp join https://hq.example.com:8443 --token 6f1c…-… --networks 192.168.2.0/24 --name branch', 'wgcp join --conf hq.conf --name hq --reachable-from 192.168.2.10/32'],
    notes: ['wgcpd must run: it makes the link (an interface wgcps<id>) through its admin socket.'],
  },
  version: {
    summary: 'print the version (wgcpd, wgcp and wgcp-agent share it)',
    synopsis: ['version [--json]'],
    options: [JSON_OPTION],
    examples: ['wgcp version'],
  },
  help: {
    summary: 'print this, or a command\'s own help',
    synopsis: ['help [COMMAND]', 'COMMAND --help'],
    options: [],
    examples: ['wgcp help backup'],
  },
};

export const COMMAND_NAMES = Object.keys(COMMANDS);

/** Options every command takes. */
export const GLOBAL_OPTIONS = ['data-dir', 'help'];

/** The option names a command accepts (without `--`). */
export function optionNames(command: string): string[] {
  const own = (COMMANDS[command]?.options ?? []).map(([flag]) => flag.replace(/^--/, '').split(' ')[0]);
  return [...GLOBAL_OPTIONS, ...own];
}

export function globalHelp(): string {
  const width = Math.max(...COMMAND_NAMES.map((n) => n.length));
  return 'usage: wgcp [--data-dir DIR] COMMAND [options]\n\n'
    + COMMAND_NAMES.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n].summary}`).join('\n')
    + '\n\nwgcp COMMAND --help (or wgcp help COMMAND) says what a command takes, with an example.\n'
    + 'Commands that print data print a table; --json prints JSON for scripts.\n'
    + `${DATA_DIR_RULE}\n`;
}

export function commandHelp(command: string): string {
  const c = COMMANDS[command];
  const lines = [`usage: ${c.synopsis.map((s) => `wgcp ${s}`).join('\n       ')}`, '', c.summary];
  if (c.notes) lines.push(...c.notes);
  if (c.options.length) {
    const width = Math.max(...c.options.map(([f]) => f.length));
    lines.push('', 'options:', ...c.options.map(([f, what]) => `  ${f.padEnd(width)}  ${what}`));
  }
  lines.push('', c.examples.length === 1 ? 'example:' : 'examples:', ...c.examples.map((e) => `  ${e}`));
  lines.push('', '--data-dir DIR chooses the data folder (wgcp --help says which one is used otherwise).');
  return lines.join('\n') + '\n';
}

/** The command nearest to a mistyped one (one letter off, two in a word of five or more), for the hint. */
export function nearestCommand(word: string): string | null {
  let best: string | null = null;
  let bestDistance = word.length >= 5 ? 3 : 2;
  for (const name of COMMAND_NAMES) {
    const d = editDistance(word.toLowerCase(), name);
    if (d < bestDistance) { best = name; bestDistance = d; }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
