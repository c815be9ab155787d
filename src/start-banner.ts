// What wgcpd says in plain words once it listens, when its output is a terminal (a person ran
// `npm start` or `wgcp serve`): where the page is, where the API key to sign in with is, and
// how to reach the page from another machine. Under systemd or procd (not a terminal) the log
// stays JSON lines and this is not printed: the same facts are in the log's fields.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_KEY_FILE } from './first-key';
import type { HostPort } from './config';

export interface BannerFacts {
  version: string;
  /** WGCP_LISTEN as configured, with the port the listener got (port 0 picks one). */
  listen: HostPort;
  dataDir: string;
  /** WGCP_API_KEY is set. */
  apiKeyFromEnv: boolean;
  /** <dataDir>/api-key exists. */
  keyFileExists: boolean;
  kernel: { state: 'on' | 'off'; reason?: string };
  /** This machine's IPv4 addresses other than loopback, for the LAN advice. */
  lanAddresses: string[];
  /** Started by `npm start` (npm sets npm_lifecycle_event): the advice names that command. */
  underNpmStart: boolean;
}

const urlOf = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
const ANY = new Set(['0.0.0.0', '::', '']);
const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\./.test(host);

/** The IPv4 addresses of this machine's interfaces, loopback left out. */
export function lanAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flat()
    .filter((a): a is os.NetworkInterfaceInfo => a !== undefined && a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}

/** The facts of a running daemon, read from its configuration and its data folder. */
export function bannerFacts(o: Omit<BannerFacts, 'keyFileExists' | 'lanAddresses' | 'underNpmStart'>, env: NodeJS.ProcessEnv = process.env): BannerFacts {
  const dataDir = path.resolve(o.dataDir); // `npm start`'s ./var, said in full
  return { ...o, dataDir, keyFileExists: fs.existsSync(path.join(dataDir, API_KEY_FILE)), lanAddresses: lanAddresses(), underNpmStart: env.npm_lifecycle_event === 'start' };
}

export function startBanner(f: BannerFacts): string {
  const { host, port } = f.listen;
  const lines = [`wgcpd ${f.version} is running (Ctrl-C stops it).`, ''];
  if (ANY.has(host)) {
    lines.push(`  The page:     ${urlOf('127.0.0.1', port)} on this machine`);
    for (const a of f.lanAddresses) lines.push(`                ${urlOf(a, port)} from the LAN`);
  } else {
    lines.push(`  The page:     ${urlOf(host, port)}`);
  }
  const keyFile = path.join(f.dataDir, API_KEY_FILE);
  if (f.keyFileExists) lines.push(`  The API key:  in ${keyFile} (sign in on the page with it; it is a secret)`);
  else if (f.apiKeyFromEnv) lines.push('  The API key:  the one in WGCP_API_KEY');
  else lines.push(`  The API key:  ${keyFile} is gone; make a key with \`${f.underNpmStart ? 'npm run wgcp --' : 'wgcp'} apikey create\``);
  lines.push(`  Data folder:  ${f.dataDir}`);
  if (isLoopback(host)) {
    const lan = f.lanAddresses[0] ?? '192.168.1.2';
    const start = f.underNpmStart ? 'npm start' : 'wgcpd';
    lines.push('', `  The page answers on this machine only (WGCP_LISTEN=${host}:${port}). To open it from`,
      `  another machine on the LAN, start it with WGCP_LISTEN set to this machine's LAN address`,
      `  (or 0.0.0.0 for every address), e.g.  WGCP_LISTEN=${lan}:${port} ${start}`,
      '  It is plain HTTP: do that on a network you trust.');
  }
  if (f.kernel.state === 'off') {
    lines.push('', `  The kernel backend is off (${f.kernel.reason ?? 'WGCP_KERNEL=off'}): changes are stored, not applied to`,
      '  WireGuard or nftables. Run as root (or with CAP_NET_ADMIN) to apply them (docs/kernel.md).');
  }
  return lines.join('\n') + '\n\n';
}
