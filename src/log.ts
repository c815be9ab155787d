// One JSON line per event on stdout, for journald. Fields named like secrets are masked
// so that a careless caller cannot leak a key into the log.
import type { LogLevel } from './config';

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };
const SECRET_FIELD = /key|token|password|secret|salt|authorization/i;

export interface Logger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
}

function mask(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    // Paths to key files are fine to show; the values are not.
    out[k] = SECRET_FIELD.test(k) && !/(file|path)$/i.test(k) ? '[redacted]' : v;
  }
  return out;
}

export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const emit = (lvl: LogLevel) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[lvl] > ORDER[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...mask(fields) }) + '\n');
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
