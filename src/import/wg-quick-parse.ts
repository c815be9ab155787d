// A wg-quick config read as wg-quick reads it: [Interface] and [Peer] sections of
// `Key = Value` lines, keys in any case, `#` starting a comment; a key may repeat (Address,
// AllowedIPs, DNS, PostUp). Comments right above a [Peer] are kept: tools write the peer's
// name there ("# alice", "# Client: alice (id)", "# Name = alice"). Pure.
import { badFile } from './plan';

export interface ConfLine { key: string; value: string; line: number }

export interface ConfSection {
  kind: 'interface' | 'peer';
  line: number;
  lines: ConfLine[];
  /** Comment lines directly above the section header, without their `#`. */
  comments: string[];
  /** Comment lines inside the section. */
  inner: string[];
}

export interface WgQuickConf { iface: ConfSection; peers: ConfSection[] }

export function parseWgQuick(text: string): WgQuickConf {
  const sections: ConfSection[] = [];
  let current: ConfSection | null = null;
  // Comments seen since the last line of another kind: the next header's, if one follows at once.
  let pending: string[] = [];
  const settle = () => {
    if (current) current.inner.push(...pending);
    pending = [];
  };
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '') return settle();
    if (trimmed.startsWith('#')) { pending.push(trimmed.replace(/^#+\s*/, '')); return; }
    const header = /^\[(\w+)\]$/.exec(trimmed);
    if (header) {
      const kind = header[1].toLowerCase();
      if (kind !== 'interface' && kind !== 'peer') throw badFile(`line ${line}: unknown section [${header[1]}]`);
      current = { kind, line, lines: [], comments: pending, inner: [] };
      pending = [];
      sections.push(current);
      return;
    }
    settle();
    const kv = /^([A-Za-z0-9]+)\s*=\s*(.*)$/.exec(raw.replace(/#.*$/, '').trim());
    if (!kv) throw badFile(`line ${line}: not a "Key = Value" line`);
    if (!current) throw badFile(`line ${line}: ${kv[1]} comes before any [Interface] or [Peer] section`);
    current.lines.push({ key: kv[1].toLowerCase(), value: kv[2].trim(), line });
  });
  settle();
  const ifaces = sections.filter((s) => s.kind === 'interface');
  if (ifaces.length !== 1) throw badFile(ifaces.length === 0 ? 'no [Interface] section: not a wg-quick config' : `${ifaces.length} [Interface] sections; a wg-quick config has one`);
  return { iface: ifaces[0], peers: sections.filter((s) => s.kind === 'peer') };
}

/** Every value of `key` in a section, comma lists split (Address = a, b). */
export function listOf(s: ConfSection, key: string): { value: string; line: number }[] {
  return s.lines.filter((l) => l.key === key).flatMap((l) => l.value.split(',').map((v) => ({ value: v.trim(), line: l.line })).filter((v) => v.value !== ''));
}

/** The one value of `key`, or undefined; a key given twice is refused. */
export function oneOf(s: ConfSection, key: string, label: string): string | undefined {
  const found = s.lines.filter((l) => l.key === key);
  if (found.length > 1) throw badFile(`line ${found[1].line}: ${label} is given twice`);
  return found[0]?.value;
}

/** The peer's name from its comments: "Name = x" (above or inside), "Client: x (id)", or the last comment line above. */
export function peerName(s: ConfSection): string | null {
  for (const c of [...s.comments, ...s.inner]) {
    const m = /^Name\s*=\s*(.+)$/i.exec(c);
    if (m) return m[1].trim().slice(0, 64);
  }
  const last = s.comments[s.comments.length - 1];
  if (!last) return null;
  const client = /^Client:\s*(.+?)(\s*\([^)]*\))?$/.exec(last);
  return (client ? client[1] : last).trim().slice(0, 64) || null;
}
