// SERVER_SALT: taken from the configuration, else read from <dataDir>/server-salt, else
// generated once into that file (mode 0600) so every restart derives the same device keys.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const SALT_FILE = 'server-salt';

export interface SaltSource { salt: string; origin: 'config' | 'file' | 'generated'; file: string | null }

export function loadServerSalt(configured: string | null, dataDir: string): SaltSource {
  if (configured !== null) return { salt: configured, origin: 'config', file: null };
  const file = path.join(dataDir, SALT_FILE);
  try {
    const salt = fs.readFileSync(file, 'utf8').trim();
    if (salt.length < 16) throw new Error(`${file} holds fewer than 16 characters; delete it or set SERVER_SALT`);
    return { salt, origin: 'file', file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const salt = crypto.randomBytes(32).toString('hex');
  // 'wx': if another process made the file first, its salt wins and we read it back.
  try {
    fs.writeFileSync(file, salt + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadServerSalt(null, dataDir);
    throw err;
  }
  return { salt, origin: 'generated', file };
}
