// Which links are wgcp's. Every link wgcpd makes carries the alias "wgcp-managed", which the
// kernel keeps for the link's life (so it survives daemon restarts). Only a marked link is
// ever deleted, flushed or reused; any other link, whatever its name, is the router's.
// Links are read from /sys/class/net, which every Linux has, BusyBox routers included.
import fs from 'node:fs';
import path from 'node:path';
import { apiError } from '../error-registry';
import { run } from '../exec/command';

export const OWN_MARK = 'wgcp-managed';
const SYS_NET = '/sys/class/net';

export interface LinkInfo {
  name: string;
  /** `wireguard`, `tun`, `bridge`, `veth`... or null for a plain device. */
  kind: string | null;
  /** True when the link carries wgcp's mark. */
  ours: boolean;
}

function readSys(name: string, file: string): string | null {
  try {
    return fs.readFileSync(path.join(SYS_NET, name, file), 'utf8');
  } catch {
    return null;
  }
}

export function linkInfo(name: string): LinkInfo | null {
  if (name.includes('/') || !fs.existsSync(path.join(SYS_NET, name))) return null;
  const devtype = /^DEVTYPE=(.+)$/m.exec(readSys(name, 'uevent') ?? '')?.[1] ?? null;
  const kind = devtype ?? (readSys(name, 'tun_flags') !== null ? 'tun' : null);
  return { name, kind, ours: (readSys(name, 'ifalias') ?? '').trim() === OWN_MARK };
}

/** Every link of this network namespace. */
export function listLinks(): LinkInfo[] {
  return fs.readdirSync(SYS_NET).map(linkInfo).filter((l): l is LinkInfo => l !== null);
}

export function linkExists(name: string): boolean {
  return linkInfo(name) !== null;
}

/** True when a link of this name exists and wgcp did not make it. */
export function isForeignLink(name: string): boolean {
  const link = linkInfo(name);
  return link !== null && !link.ours;
}

/** The error for a name held by a link that is not wgcp's: a conflict, never a takeover. */
export function foreignLinkError(name: string): Error {
  return apiError('WGCP_INTERFACE_FOREIGN', { name }, { field: 'interface' });
}

/** Marks a link wgcpd has just made. BusyBox's `ip` has no `alias`: then sysfs is written. */
export async function markOwnLink(name: string): Promise<void> {
  try {
    await run('ip', ['link', 'set', 'dev', name, 'alias', OWN_MARK]);
  } catch {
    fs.writeFileSync(path.join(SYS_NET, name, 'ifalias'), OWN_MARK);
  }
  if (!linkInfo(name)?.ours) throw new Error(`could not mark interface ${name} as wgcp's`);
}

/** Deletes a link wgcpd made; a missing link is fine, a foreign one is never touched. */
export async function deleteOwnLink(name: string): Promise<void> {
  const link = linkInfo(name);
  if (!link) return;
  if (!link.ours) throw new Error(`interface ${name} was not made by wgcp; it is left alone`);
  await run('ip', ['link', 'del', 'dev', name]);
}
