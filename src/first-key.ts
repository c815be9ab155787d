// On the first start, with no API key anywhere, the daemon makes one and writes it to
// <dataDir>/api-key (mode 0600) so that the operator can reach the API at all.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import type { Logger } from './log';
import type { Store } from './store/store';

export const API_KEY_FILE = 'api-key';

export function writeSecretFile(file: string, content: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, content, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

export function ensureFirstApiKey(store: Store, config: Config, log: Logger, now: string): void {
  if (config.apiKey !== null || store.credentials.count('apikey') > 0) return;
  const { secret } = store.credentials.create('apikey', 'first-start', now);
  const file = path.join(config.dataDir, API_KEY_FILE);
  writeSecretFile(file, secret + '\n');
  log.warn('no API key existed: made one and wrote it to the key file', { keyFile: file });
}
