// One JSON line per event on standard output (journald, procd's logd). Callers never pass
// keys, tokens or the salt; the mask is a second line of defence.
export interface Logger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
}

const SECRET_FIELD = /key|token|salt|secret|password/i;

export function createLogger(write: (line: string) => void = (l) => process.stdout.write(l), debug = false): Logger {
  const emit = (level: string) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (level === 'debug' && !debug) return;
    const safe: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) safe[k] = SECRET_FIELD.test(k) ? '[redacted]' : v;
    write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...safe }) + '\n');
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
