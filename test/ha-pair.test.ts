// Two routers, one state: two real wgcpd, each in its own network namespace with
// wireguard-go, joined by a link their standby channel runs over (signed with a shared
// key). keepalived's notices are given by hand with `wgcp ha notify` on each admin socket.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { linkNamespaces, Netns } from './helpers/netns';
import { nsRequest, startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { tempDir } from './helpers/daemon';
import { eventually } from './helpers/receiver';
import { signRequest, saltTag, AUTH_HEADER } from '../src/ha/auth';
import { MIGRATIONS } from '../src/store/migrations';
import { DB_FILE } from '../src/store/db';
import { generateKeyPair, generatePresharedKey } from '../src/wg/keys';
import Database from 'better-sqlite3';

const t = suiteNeeding('standby pair: two routers follow one journal', ['ip', 'wg', 'wireguard-go', 'nsenter', 'unshare'], { root: true });

const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const KEY = 'ha-test-api-key-0123456789';
const SALT = 'ha-test-salt-0123456789abcdef';
const A_ADDR = '10.78.0.1';
const B_ADDR = '10.78.0.2';
const VIRTUAL = '10.78.0.100';
const CHANNEL_PORT = 7480;

const w = {} as { a: Netns; b: Netns; aIf: string; bIf: string; keyFile: string; aDir: string; bDir: string; da: NsDaemon | null; db: NsDaemon | null; serverId: number; ifname: string };

function envFor(self: string, partner: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    WGCP_API_KEY: KEY, SERVER_SALT: SALT, WGCP_HA_LISTEN: `${self}:${CHANNEL_PORT}`, WGCP_HA_PARTNER: `http://${partner}:${CHANNEL_PORT}`,
    WGCP_HA_KEY_FILE: w.keyFile, WGCP_HA_VIRTUAL_ADDRESS: VIRTUAL, WGCP_USAGE_INTERVAL_S: '3600', ...extra,
  };
}
const startA = async (extra?: Record<string, string>) => { w.da = await startNsDaemon(w.a, { dataDir: w.aDir, env: envFor(A_ADDR, B_ADDR, extra) }); return w.da; };
/** The first primary waits for its standby as long as a test needs (the bound is what a later test sees). */
const PATIENT = { WGCP_HA_ACK_WAIT_MS: '60000' };
const startB = async (extra?: Record<string, string>) => { w.db = await startNsDaemon(w.b, { dataDir: w.bDir, env: envFor(B_ADDR, A_ADDR, extra) }); return w.db; };

/** `wgcp ha notify STATE` on the router's admin socket: its exit code and what it said. */
async function notify(d: NsDaemon, state: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [CLI, '--data-dir', d.dataDir, 'ha', 'notify', state, '--json']);
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

const ha = async (d: NsDaemon) => (await d.api('GET', '/api/ha')).json as { role: string; epoch: number; sequence: number; partner: { url: string; connected: boolean; behind: number } };
const peerNames = async (d: NsDaemon): Promise<string[]> => ((await d.api('GET', `/api/servers/${w.serverId}/peers`)).json as { name: string }[]).map((p) => p.name).sort();
const kernelPeers = (d: NsDaemon): string[] => d.exec('wg', ['show', w.ifname, 'peers']).trim().split('\n').filter(Boolean).sort();
const addPeer = async (d: NsDaemon, name: string) => {
  const r = await d.api('POST', `/api/servers/${w.serverId}/peers`, { name });
  assert.is(r.status, 201, r.text);
  return r.json as { id: number; publicKey: string };
};
const caughtUp = (d: NsDaemon, seq: number) => eventually(`sequence ${seq} on ${d.ns.name}`, async () => ((await ha(d)).sequence >= seq ? true : undefined), 30_000);

t.before(async () => {
  w.a = new Netns('haa');
  w.b = new Netns('hab');
  ({ aIf: w.aIf, bIf: w.bIf } = linkNamespaces(w.a, `${A_ADDR}/24`, w.b, `${B_ADDR}/24`));
  const dir = tempDir('wgcp-ha-key-');
  w.keyFile = path.join(dir, 'ha-key');
  fs.writeFileSync(w.keyFile, 'a-shared-secret-of-the-pair-0123456789\n', { mode: 0o600 });
  w.aDir = tempDir('wgcp-ha-a-');
  w.bDir = tempDir('wgcp-ha-b-');
  await startA(PATIENT);
  await startB();
});

t.after(async () => {
  await w.da?.stop();
  await w.db?.stop();
  w.a?.destroy();
  w.b?.destroy();
});

t('a router with a partner starts as standby; MASTER promotes it only while it holds the virtual address', async () => {
  const da = w.da!;
  assert.is((await ha(da)).role, 'standby');
  const refused = await notify(da, 'MASTER');
  assert.is(refused.code, 1);
  assert.match(refused.out, /does not hold the virtual address 10\.78\.0\.100/);
  w.a.exec('ip', ['addr', 'add', `${VIRTUAL}/24`, 'dev', w.aIf]);
  const promoted = await notify(da, 'MASTER');
  assert.is(promoted.code, 0, promoted.out);
  const s = JSON.parse(promoted.out);
  assert.is(s.role, 'primary');
  assert.is(s.epoch, 2, 'a promotion raises the epoch');
});

t('a change on the primary is in the standby\'s store and kernel when the primary answers it', async () => {
  const da = w.da!;
  const db = w.db!;
  await eventually('the standby connected', async () => ((await ha(da)).partner.connected ? true : undefined), 15_000);
  const s = await da.api('POST', '/api/servers', { name: 'pair', endpoint: `${VIRTUAL}:51820`, mode: 'forward', address: '10.78.8.1/24' });
  assert.is(s.status, 201, s.text);
  w.serverId = s.json.id;
  w.ifname = s.json.interface;
  const phone = await addPeer(da, 'phone');
  // No wait: the primary answered once the standby held the change.
  assert.equal(await peerNames(db), ['phone']);
  await eventually('the peer in the standby\'s kernel', () => (kernelPeers(db).includes(phone.publicKey) ? true : undefined));
  assert.equal(kernelPeers(db), kernelPeers(da));
});

t('while the standby does not take a change, the primary does not answer it', async () => {
  const da = w.da!;
  const db = w.db!;
  process.kill(db.pid, 'SIGSTOP');
  let answered = false;
  const pending = addPeer(da, 'watch').then((p) => { answered = true; return p; });
  try {
    // Committed on the primary (its reads never wait), not yet answered: the standby holds nothing.
    await eventually('the change committed on the primary', async () => ((await peerNames(da)).includes('watch') ? true : undefined));
    assert.is(answered, false, 'the change was answered before the standby held it');
  } finally {
    process.kill(db.pid, 'SIGCONT');
  }
  await pending;
  assert.equal(await peerNames(db), ['phone', 'watch']);
});

t('the standby refuses writes with 409 and names the primary; reads work on both', async () => {
  const r = await w.db!.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'refused' });
  assert.is(r.status, 409);
  assert.is(r.json.error, 'this router is the standby');
  assert.is(r.json.code, 'WGCP_HA_STANDBY');
  assert.is(r.json.primary, `http://${A_ADDR}:${CHANNEL_PORT}`);
  assert.equal(await peerNames(w.db!), ['phone', 'watch']);
});

t('GET /api/ha and the metrics say where each router stands', async () => {
  await eventually('the standby caught up', async () => ((await ha(w.db!)).partner.behind === 0 ? true : undefined));
  const a = await ha(w.da!);
  const b = await ha(w.db!);
  assert.equal({ role: a.role, epoch: a.epoch, partner: a.partner }, { role: 'primary', epoch: 2, partner: { url: `http://${B_ADDR}:${CHANNEL_PORT}`, connected: true, behind: 0 } });
  assert.equal({ role: b.role, epoch: b.epoch, partner: b.partner }, { role: 'standby', epoch: 2, partner: { url: `http://${A_ADDR}:${CHANNEL_PORT}`, connected: true, behind: 0 } });
  const metrics = (await w.da!.api('GET', '/metrics')).text;
  assert.match(metrics, /^wgcp_ha_role\{role="primary"\} 1$/m);
  assert.match(metrics, /^wgcp_ha_epoch 2$/m);
  assert.ok(Number(/^wgcp_ha_sequence (\d+)$/m.exec(metrics)?.[1]) >= a.sequence, 'the sequence gauge');
  assert.match(metrics, /^wgcp_ha_partner_connected 1$/m);
  assert.match(metrics, /^wgcp_ha_behind 0$/m);
});

t('a request not signed with the shared key is refused by the channel', async () => {
  const key = Buffer.from(fs.readFileSync(w.keyFile, 'utf8').trim());
  // The follower's line: the primary's own epoch (its promotion's node and first sequence), read from its database.
  const db = new Database(path.join(w.da!.dataDir, DB_FILE), { readonly: true });
  const line = db.prepare('SELECT node, start_seq AS start FROM ha_epochs WHERE epoch = 2').get() as { node: string; start: number };
  db.close();
  const tail = `/ha/tail?epoch=2&node=${line.node}&start=${line.start}&seq=${(await ha(w.da!)).sequence}&wait=0&salt=${saltTag(key, SALT)}&schema=${MIGRATIONS.length}`;
  const url = `http://${A_ADDR}:${CHANNEL_PORT}${tail}`;
  assert.is((await nsRequest(w.b, url, 'GET', {})).status, 401);
  const forged = signRequest(Buffer.from('not-the-pair-s-key-0123456789'), 'GET', tail);
  assert.is((await nsRequest(w.b, url, 'GET', { [AUTH_HEADER]: forged.header })).status, 401);
  const signed = signRequest(key, 'GET', tail);
  assert.is((await nsRequest(w.b, url, 'GET', { [AUTH_HEADER]: signed.header })).status, 200, 'the same request signed with the key');
});

t('a standby killed and started again catches up from the tail; meanwhile the primary says it is degraded', async () => {
  process.kill(w.db!.pid, 'SIGKILL');
  await w.db!.stop();
  await addPeer(w.da!, 'laptop');
  const alone = await ha(w.da!);
  assert.is(alone.partner.connected, false);
  assert.ok(alone.partner.behind >= 1);
  const health = (await w.da!.api('GET', '/healthz')).json;
  assert.is(health.status, 'degraded');
  assert.ok(health.reasons.some((r: string) => /standby pair is degraded/.test(r)), JSON.stringify(health));
  const db = await startB();
  await caughtUp(db, alone.sequence);
  assert.equal(await peerNames(db), ['laptop', 'phone', 'watch']);
  assert.not.match(db.output(), /caught up from the primary's snapshot/, 'the tail was enough');
  await eventually('every peer in the standby\'s kernel', () => (kernelPeers(db).length === 3 ? true : undefined));
});

t('a standby away longer than the kept tail catches up from a snapshot', async () => {
  await w.db!.stop();
  await w.da!.stop();
  await startA({ WGCP_HA_JOURNAL_KEEP: '10' });
  // A restarted router is standby until keepalived says otherwise.
  assert.is((await notify(w.da!, 'MASTER')).code, 0);
  for (let i = 0; i < 12; i++) await addPeer(w.da!, `tablet-${i}`);
  const at = (await ha(w.da!)).sequence;
  const db = await startB();
  await caughtUp(db, at);
  assert.match(db.output(), /caught up from the primary's snapshot/);
  assert.is((await peerNames(db)).length, 15);
  await eventually('every peer in the standby\'s kernel', () => (kernelPeers(db).length === 15 ? true : undefined), 20_000);
  assert.equal(kernelPeers(db), kernelPeers(w.da!));
});

/** Moves the virtual address to `to` (as keepalived would) and tells each router its state. */
async function switchPrimary(from: NsDaemon, to: NsDaemon): Promise<void> {
  assert.is((await notify(from, 'BACKUP')).code, 0);
  const [fromNs, fromIf, toNs, toIf] = from === w.da ? [w.a, w.aIf, w.b, w.bIf] : [w.b, w.bIf, w.a, w.aIf];
  fromNs.exec('ip', ['addr', 'del', `${VIRTUAL}/24`, 'dev', fromIf]);
  toNs.exec('ip', ['addr', 'add', `${VIRTUAL}/24`, 'dev', toIf]);
  const promoted = await notify(to, 'MASTER');
  assert.is(promoted.code, 0, promoted.out);
}

t('a site link made on the primary reaches the standby with its key (in its 0600 store) and is up only where the router acts: down on a standby (started as one too), up on a new primary', async () => {
  const [da, db] = [w.da!, w.db!];
  const keys = generateKeyPair();
  const made = await da.api('POST', '/api/site-links', { name: 'hq', privateKey: keys.privateKey, address: '10.99.0.2', peerPublicKey: generateKeyPair().publicKey,
    presharedKey: generatePresharedKey(), endpoint: '10.78.0.250:51820', routes: ['10.99.0.0/24'] });
  assert.is(made.status, 201, made.text);
  const ifname = made.json.interface as string;
  const keyUp = (d: NsDaemon): string | null => { try { return d.exec('wg', ['show', ifname, 'private-key']).trim(); } catch { return null; } };
  const filtered = (d: NsDaemon): boolean => d.exec('nft', ['list', 'set', 'inet', 'wgcp', 'site_links']).includes(`"${ifname}"`);
  // Answered once the standby held it.
  assert.equal((await db.api('GET', '/api/site-links')).json.map((l: { publicKey: string }) => l.publicKey), [keys.publicKey]);
  const store = new Database(path.join(w.bDir, DB_FILE), { readonly: true });
  try {
    assert.is(store.prepare('SELECT private_key FROM site_links WHERE id = ?').pluck().get(made.json.id), keys.privateKey, 'the standby holds the link\'s key');
  } finally { store.close(); }
  assert.is(fs.statSync(path.join(w.bDir, DB_FILE)).mode & 0o777, 0o600);
  assert.equal([keyUp(da), filtered(da)], [keys.privateKey, true], 'up and filtered on the primary');
  assert.equal([keyUp(db), filtered(db)], [null, false], 'not up on the standby: one key, one router handshaking');
  for (const d of [da, db]) {
    const check = (await d.api('GET', '/api/kernel/check')).json as { differences: { kind: string; summary: string }[] };
    assert.equal(check.differences.filter((x) => x.kind === 'siteLink' || /site/.test(x.summary)), [], `${d.ns.name}: the link is as wanted (down on a standby by design)`);
  }
  await switchPrimary(da, db);
  await eventually('up on the new primary, with the same key', () => (keyUp(db) === keys.privateKey && filtered(db) ? true : undefined));
  assert.equal([keyUp(da), filtered(da)], [null, false], 'down on the new standby');
  await switchPrimary(db, da);
  await eventually('up on the primary again', () => (keyUp(da) === keys.privateKey ? true : undefined));
  await eventually('down on the standby again', () => (keyUp(db) === null && !filtered(db) ? true : undefined));
  await db.stop();
  const again = await startB();
  assert.equal([keyUp(again), filtered(again)], [null, false], 'a standby started again leaves it down');
});

t('MASTER on the standby promotes it; the old primary back with a lower epoch follows and keeps its lone change aside', async () => {
  // The standby goes away; the primary commits a change alone, then dies.
  await w.db!.stop();
  await addPeer(w.da!, 'lone');
  await w.da!.stop();
  w.a.exec('ip', ['addr', 'del', `${VIRTUAL}/24`, 'dev', w.aIf]);
  // The standby comes back and keepalived gives it the virtual address.
  const db = await startB();
  const before = (await ha(db)).epoch;
  w.b.exec('ip', ['addr', 'add', `${VIRTUAL}/24`, 'dev', w.bIf]);
  const promoted = await notify(db, 'MASTER');
  assert.is(promoted.code, 0, promoted.out);
  assert.is(JSON.parse(promoted.out).epoch, before + 1);
  await addPeer(db, 'after-failover');
  // The old primary returns: standby, its lone change kept aside, then the new primary's state.
  const da = await startA();
  await caughtUp(da, (await ha(db)).sequence);
  const names = await peerNames(da);
  assert.ok(names.includes('after-failover') && !names.includes('lone'), names.join(','));
  const aside = fs.readdirSync(w.aDir).filter((f) => f.startsWith('ha-lone-changes-'));
  assert.is(aside.length, 1, 'one file of lone changes');
  const kept = JSON.parse(fs.readFileSync(path.join(w.aDir, aside[0]), 'utf8'));
  assert.ok(kept.entries.some((e: { tbl: string; row: { name?: string } }) => e.tbl === 'peers' && e.row.name === 'lone'), 'the lone peer is in the file');
  assert.is((fs.statSync(path.join(w.aDir, aside[0])).mode & 0o777), 0o600);
  assert.is(da.output().split('committed changes the primary never had').length - 1, 1, 'said once in the log');
  assert.is((await ha(da)).role, 'standby');
  const w1 = await da.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'never' });
  assert.is(w1.status, 409, 'the old primary never answers a write');
});

t.run();
