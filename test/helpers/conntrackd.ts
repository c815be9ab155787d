// conntrackd on each router of an HaPair (test/helpers/ha-pair.ts): the shipped example
// (packaging/ha/conntrackd.conf.example) with each router's sync addresses and its own files,
// run in the router's namespace, and keepalived's notify handing the role to it through
// conntrackd's own primary-backup.sh (pointed at this configuration) before wgcp's.
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { HaPair, RouterName } from './ha-pair';

const EXAMPLE = path.join(__dirname, '../../../packaging/ha/conntrackd.conf.example');
const PRIMARY_BACKUP = '/usr/share/doc/conntrackd/examples/sync/primary-backup.sh';
const SYNC: Record<RouterName, string> = { a: '10.254.0.1', b: '10.254.0.2' };

export const conntrackdConf = (r: { name: RouterName; dir: string }): string => path.join(r.dir, 'conntrackd.conf');

function writeConf(r: { name: RouterName; dir: string }): void {
  const other = r.name === 'a' ? 'b' : 'a';
  let text = fs.readFileSync(EXAMPLE, 'utf8');
  const put = (from: string, to: string) => {
    if (text.split(from).length !== 2) throw new Error(`the conntrackd example holds "${from}" not once`);
    text = text.replace(from, to);
  };
  put('IPv4_address 10.254.0.1          #', `IPv4_address ${SYNC[r.name]}          #`);
  put('IPv4_Destination_Address 10.254.0.2 ', `IPv4_Destination_Address ${SYNC[other]} `);
  put('LogFile on', `LogFile ${path.join(r.dir, 'conntrackd.log')}`);
  put('LockFile /var/lock/conntrackd.lock', `LockFile ${path.join(r.dir, 'conntrackd.lock')}`);
  put('Path /var/run/conntrackd.ctl', `Path ${path.join(r.dir, 'conntrackd.ctl')}`);
  fs.writeFileSync(conntrackdConf(r), text);
  // conntrackd's own script, with this router's configuration and lock file.
  const script = fs.readFileSync(PRIMARY_BACKUP, 'utf8')
    .replace(/^CONNTRACKD_LOCK=.*$/m, `CONNTRACKD_LOCK=${path.join(r.dir, 'conntrackd.lock')}`)
    .replace(/^CONNTRACKD_CONFIG=.*$/m, `CONNTRACKD_CONFIG=${conntrackdConf(r)}`);
  fs.writeFileSync(path.join(r.dir, 'primary-backup.sh'), script, { mode: 0o755 });
}

/** Starts conntrackd on both routers (before keepalived) and puts its script in keepalived's notify. */
export function startConntrackd(pair: HaPair): Record<RouterName, ChildProcess> {
  const out = {} as Record<RouterName, ChildProcess>;
  for (const name of ['a', 'b'] as const) {
    const r = pair.routers[name];
    writeConf(r);
    // keepalived's notify: conntrackd's script with the role, then the pair's own wrapper.
    const notify = path.join(r.dir, 'notify');
    const wgcp = path.join(r.dir, 'notify-wgcp');
    if (!fs.existsSync(wgcp)) fs.renameSync(notify, wgcp);
    fs.writeFileSync(notify, `#!/bin/sh
for a do prev=$last; last=$a; done
case $prev in MASTER) role=primary ;; BACKUP) role=backup ;; *) role=fault ;; esac
sh ${path.join(r.dir, 'primary-backup.sh')} $role >> ${path.join(r.dir, 'conntrackd-notify.log')} 2>&1
exec ${wgcp} "$@"
`, { mode: 0o755 });
    out[name] = r.ns.spawn('conntrackd', ['-C', conntrackdConf(r)]);
  }
  return out;
}

/** What conntrackd on a router holds from its partner (its external cache), as `conntrackd -e` prints it. */
export function externalCache(pair: HaPair, name: RouterName): string {
  return pair.routers[name].ns.exec('conntrackd', ['-C', conntrackdConf(pair.routers[name]), '-e']);
}
