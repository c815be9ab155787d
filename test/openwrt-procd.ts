// Reads back what an init script, run with test/fixtures/openwrt/rc-procd.sh (the shell
// stand-ins of rc.common, functions.sh and procd.sh), handed procd.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './packaging-container';

/** The shell stand-ins of rc.common, functions.sh and procd.sh (their file says what each does). */
export const RC_FAKES = path.join(REPO_ROOT, 'test', 'fixtures', 'openwrt', 'rc-procd.sh');

/** One instance as procd received it: each parameter with its values (env and command in order). */
export interface ProcdInstance { name: string; params: Map<string, string[]>; jail: string[] }
export interface ProcdRecord { instances: ProcdInstance[]; triggers: string[]; kills: string[] }

/** Reads $PROCD_LOG back: `set K` starts a parameter (replacing an earlier one), `append K` adds to it, `value V` is one value. */
export function readProcdLog(file: string): ProcdRecord {
  const out: ProcdRecord = { instances: [], triggers: [], kills: [] };
  let current: ProcdInstance | null = null;
  let key = '';
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  for (const line of lines) {
    const [word, ...rest] = line.split(' ');
    const arg = rest.join(' ');
    if (word === 'open_instance') current = { name: arg, params: new Map(), jail: [] };
    else if (word === 'close_instance' && current) { out.instances.push(current); current = null; }
    else if (word === 'set' && current) { key = arg; current.params.set(key, []); }
    else if (word === 'append' && current) { key = arg; if (!current.params.has(key)) current.params.set(key, []); }
    else if (word === 'value' && current) current.params.get(key)!.push(arg);
    else if (word === 'jail' && current) current.jail = rest;
    else if (word === 'reload_trigger') out.triggers.push(arg);
    else if (word === 'kill') out.kills.push(arg);
  }
  return out;
}

/** The instance's environment as procd passes it: only what it names. */
export function instanceEnv(i: ProcdInstance): Record<string, string> {
  return Object.fromEntries((i.params.get('env') ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}
