// One JSON line per event on stdout, for journald (a line of text at a terminal). Fields named like secrets are masked
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

/** `json` for journald and scripts; `text` for a person at a terminal (wgcpd picks it when stdout is one). */
export type LogFormat = 'json' | 'text';

/** `01:30:12 warn  the message  key=value …`: the same fields as the JSON line, masked the same. */
function textLine(time: Date, lvl: LogLevel, msg: string, fields: Record<string, unknown>): string {
  const rest = Object.entries(fields).map(([k, v]) => ` ${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`).join('');
  return `${time.toISOString().slice(11, 19)} ${lvl.padEnd(5)} ${msg}${rest}\n`;
}

export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stdout.write(l), format: LogFormat = 'json'): Logger {
  const emit = (lvl: LogLevel) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[lvl] > ORDER[level]) return;
    const time = new Date();
    write(format === 'text' ? textLine(time, lvl, msg, mask(fields)) : JSON.stringify({ time: time.toISOString(), level: lvl, msg, ...mask(fields) }) + '\n');
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
