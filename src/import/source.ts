// From what the operator handed over (a file's path for the CLI, text or bytes for the API)
// to a plan: which reader, and the options checked as the API checks a server's fields.
import fs from 'node:fs';
import { endpointPort } from '../ops/server-rules';
import { badField } from '../ops/field-error';
import { nameProblem } from '../ops/name-rule';
import { badFile, type ImportOptions, type ImportPlan } from './plan';
import { INTERFACE_NAME_RULE, isInterfaceName } from '../wg/interface-name';
import { planWgQuick } from './wg-quick-plan';
import { planWgEasyJson } from './wg-easy-v14';
import { isSqlite, readWgEasyDb } from './wg-easy-v15-read';
import { planWgEasyDb } from './wg-easy-v15';

export const IMPORT_SOURCES = ['wg-quick', 'wg-easy'] as const;
export type ImportSource = typeof IMPORT_SOURCES[number];

/** The largest file an import reads: a wg-easy database of thousands of clients is far smaller. */
export const MAX_IMPORT_BYTES = 16 * 1024 * 1024;

export function checkOptions(o: ImportOptions): void {
  if (o.name !== undefined && (o.name.length < 1 || o.name.length > 64)) throw badField('name', 'must be 1 to 64 characters');
  const nameRefused = o.name === undefined ? null : nameProblem(o.name);
  if (nameRefused) throw badField('name', nameRefused);
  if (o.endpoint !== undefined && endpointPort(o.endpoint) === null) throw badField('endpoint', 'must be host:port, such as vpn.example.com:51820 or 203.0.113.7:51820');
  if (o.interface !== undefined && !isInterfaceName(o.interface)) throw badField('interface', `must be ${INTERFACE_NAME_RULE}`);
  if (o.mode !== undefined && o.mode !== 'forward' && o.mode !== 'standalone') throw badField('mode', 'must be one of "forward", "standalone"');
}

/** The plan of `bytes` read as `source`; `fileName` names a wg-quick server (wg0.conf -> wg0). */
export function planFromBytes(source: ImportSource, bytes: Buffer, fileName: string | null, options: ImportOptions, now: Date): ImportPlan {
  checkOptions(options);
  if (bytes.length === 0) throw badFile('is empty');
  if (source === 'wg-quick') {
    if (isSqlite(bytes)) throw badFile('is a SQLite database, not a wg-quick config');
    return planWgQuick(bytes.toString('utf8'), fileName, options);
  }
  if (isSqlite(bytes)) return planWgEasyDb(readWgEasyDb(bytes), options, now);
  return planWgEasyJson(bytes.toString('utf8'), options, now);
}

/** The plan of the file at `file` (the CLI): a wg-easy database is read in place, with its WAL. */
export function planFromFile(source: ImportSource, file: string, options: ImportOptions, now: Date): ImportPlan {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (err) {
    throw badFile(`${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (size > MAX_IMPORT_BYTES) throw badFile(`${file} is larger than ${MAX_IMPORT_BYTES} bytes`);
  const bytes = fs.readFileSync(file);
  if (source === 'wg-easy' && isSqlite(bytes)) {
    checkOptions(options);
    return planWgEasyDb(readWgEasyDb(file), options, now);
  }
  return planFromBytes(source, bytes, file, options, now);
}
