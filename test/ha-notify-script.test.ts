// keepalived's notify script (packaging/ha/wgcp-ha-notify) with a stand-in `wgcp` on PATH
// that prints its arguments: what keepalived's four arguments become, under dash, the sh of
// Debian, as keepalived runs it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { tempDir } from './helpers/daemon';
import { suiteNeeding } from './helpers/root';

const t = suiteNeeding('ha: the keepalived notify script', ['sh']);
const SCRIPT = path.join(__dirname, '../../packaging/ha/wgcp-ha-notify');
const bin = tempDir('wgcp-notify-');
fs.writeFileSync(path.join(bin, 'wgcp'), '#!/bin/sh\nprintf "%s|" "$@"\n', { mode: 0o755 });

function notify(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync('sh', [SCRIPT, ...args], { env: { PATH: `${bin}:/usr/bin:/bin` }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

t('the state, keepalived\'s last argument but one, becomes `wgcp ha notify STATE`', () => {
  for (const state of ['MASTER', 'BACKUP', 'FAULT']) assert.equal(notify('INSTANCE', 'wgcp', state, '150'), { code: 0, out: `ha|notify|${state}|`, err: '' });
  assert.is(notify('GROUP', 'pair', 'MASTER', '0').out, 'ha|notify|MASTER|', 'a sync group\'s notice too');
});

t('STOP and DELETED mean this router no longer holds the address: FAULT', () => {
  assert.is(notify('INSTANCE', 'wgcp', 'STOP', '150').out, 'ha|notify|FAULT|');
  assert.is(notify('INSTANCE', 'wgcp', 'DELETED', '150').out, 'ha|notify|FAULT|');
});

t('arguments configured before keepalived\'s go to wgcp, before the command, spaces kept', () => {
  assert.is(notify('--data-dir', '/srv/wgcp data', 'INSTANCE', 'wgcp', 'BACKUP', '100').out, '--data-dir|/srv/wgcp data|ha|notify|BACKUP|');
});

t('an unknown state or too few arguments: exit 2 and why, wgcp not run', () => {
  const odd = notify('INSTANCE', 'wgcp', 'MASTER_RX_LOWER_PRI', '150');
  assert.is(odd.code, 2);
  assert.is(odd.out, '');
  assert.match(odd.err, /unknown state 'MASTER_RX_LOWER_PRI'/);
  const short = notify('MASTER');
  assert.is(short.code, 2);
  assert.match(short.err, /usage:/);
});

t.run();
