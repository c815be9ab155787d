// Which data folder `wgcp` works on, so that it meets the database the running daemon uses:
// --data-dir, else $WGCP_DATA_DIR, else ./var when the working folder holds ./var/wgcp.db (a
// clone after `npm start`, which uses ./var), else /var/lib/wgcp (the packages' folder).
import fs from 'node:fs';
import path from 'node:path';
import { DB_FILE } from '../store/db';

export const INSTALLED_DATA_DIR = '/var/lib/wgcp';
export const CHECKOUT_DATA_DIR = 'var';

export const DATA_DIR_RULE = 'The data folder is --data-dir, else $WGCP_DATA_DIR, else ./var when ./var/wgcp.db exists\n'
  + `(a clone run with \`npm start\`; \`npm run wgcp -- COMMAND\` there), else ${INSTALLED_DATA_DIR}.`;

/** The folder by the rule above; `hasFile` is asked about ./var/wgcp.db under `cwd`. */
export function chooseDataDir(option: string | undefined, env: NodeJS.ProcessEnv, cwd: string,
  hasFile: (file: string) => boolean = fs.existsSync): string {
  const given = option ?? (env.WGCP_DATA_DIR || undefined);
  if (given !== undefined) return path.resolve(cwd, given);
  const checkout = path.join(cwd, CHECKOUT_DATA_DIR);
  return hasFile(path.join(checkout, DB_FILE)) ? checkout : INSTALLED_DATA_DIR;
}

/** Refuses a folder without a database, rather than making an empty one the daemon does not use. */
export function requireDatabase(dataDir: string): string {
  const file = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(file)) {
    throw new Error(`no database at ${file}: is the data folder right (--data-dir, WGCP_DATA_DIR)? wgcpd makes it when it first starts`);
  }
  return file;
}
