// `wgcp tls init`: a self-signed certificate and key for the device listener, made with
// the openssl command line (EC P-256). The key file is 0600; existing files are kept
// unless --force. Prints the two variables to set and the certificate's fingerprint.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError, stringOption, type Args } from './args';

export const TLS_USAGE = 'usage: wgcp tls init [--out-dir DIR] [--cn NAME] [--san DNS:name,IP:addr,...] [--days N] [--force]';

const SAN_ITEM = /^(DNS:[A-Za-z0-9*.-]{1,253}|IP:[0-9A-Fa-f:.]{2,45})$/;

export interface TlsFiles { cert: string; key: string; fingerprint: string }

export function runTlsCommand(args: Args, dataDir: string, out: (s: string) => void): TlsFiles {
  if (args.words[1] !== 'init') throw new UsageError(TLS_USAGE);
  const dir = path.resolve(stringOption(args, 'out-dir') ?? path.join(dataDir, 'tls'));
  // A host name that is not a valid DNS name (underscores, say) falls back to localhost.
  const cn = stringOption(args, 'cn') ?? (/^[A-Za-z0-9.-]{1,64}$/.test(os.hostname()) ? os.hostname() : 'localhost');
  if (!/^[A-Za-z0-9*.-]{1,64}$/.test(cn)) throw new UsageError('--cn must be a host name');
  const san = (stringOption(args, 'san') ?? `DNS:${cn},DNS:localhost,IP:127.0.0.1,IP:::1`).split(',').map((s) => s.trim());
  if (san.some((s) => !SAN_ITEM.test(s))) throw new UsageError('--san must be a comma-separated list of DNS:name and IP:address');
  const days = stringOption(args, 'days') ?? '825';
  if (!/^\d{1,5}$/.test(days) || Number(days) < 1) throw new UsageError('--days must be a whole number of days, at least 1');
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  if (!args.options.has('force') && (fs.existsSync(cert) || fs.existsSync(key))) {
    throw new UsageError(`${cert} or ${key} exists already; use --force to replace them`);
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // openssl writes the key itself: make it owner-only before a single byte lands.
  fs.rmSync(key, { force: true });
  fs.closeSync(fs.openSync(key, 'w', 0o600));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', days, '-subj', `/CN=${cn}`,
    '-addext', `subjectAltName=${san.join(',')}`,
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,digitalSignature,keyCertSign',
    '-addext', 'extendedKeyUsage=serverAuth',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  fs.chmodSync(key, 0o600);
  fs.chmodSync(cert, 0o644);
  const fingerprint = execFileSync('openssl', ['x509', '-in', cert, '-noout', '-fingerprint', '-sha256'], { encoding: 'utf8' }).trim().replace(/^.*=/, '');
  out(`WGCP_TLS_CERT=${cert}\nWGCP_TLS_KEY=${key}\n# SHA-256 fingerprint ${fingerprint}\n# give ${cert} to the agents as their ca_file\n`);
  return { cert, key, fingerprint };
}
