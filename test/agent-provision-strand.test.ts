// The known strand, tried for real: the daemon answers a provisioning (the token is spent)
// and the device loses power before it saves the answer. A relay in the router namespace
// passes the agent's request to the real daemon, keeps the daemon's whole answer and tells
// the test, which then SIGKILLs the agent: the daemon has committed, the agent saved nothing.
// By the device contract the token is spent: restarted, the agent is refused and says it
// needs a new token. With the opt-in retry window (WGCP_PROVISION_RETRY_WINDOW) it comes up
// with the same token, as the same device.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot, skip } from './helpers/root';
import { tempDir } from './helpers/daemon';
import { AGENT_BUNDLE, AgentInstall, newToken, startAgentWorld, type AgentWorld } from './helpers/agent-world';
import { startNsDaemon } from './helpers/ns-daemon';

const t = suite('agent: power lost between the provisioning answer and its save');
let w: AgentWorld;
let relay: ChildProcess;
let relayOut = '';

// An HTTPS relay with the daemon's own certificate: forwards POST /api/v1/provision, prints
// the daemon's answer as one JSON line and never passes it on.
const RELAY = `
const https = require('node:https'); const fs = require('node:fs');
const [cert, key, listenHost, listenPort, upstream] = process.argv.slice(2);
const ca = fs.readFileSync(cert);
https.createServer({ cert: ca, key: fs.readFileSync(key) }, (req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    const up = https.request(upstream + req.url, { method: req.method, ca, headers: { 'content-type': 'application/json' } }, (ans) => {
      let text = '';
      ans.on('data', (c) => { text += c; });
      ans.on('end', () => process.stdout.write(JSON.stringify({ path: req.url, status: ans.statusCode, answer: text }) + '\\n'));
    });
    up.end(body);
  });
}).listen(Number(listenPort), listenHost, () => process.stdout.write('{"listening":true}\\n'));
`;

function decrypt(blob: string, hwid: string): Record<string, string> {
  const raw = Buffer.from(blob, 'base64');
  const key = crypto.createHash('sha256').update(hwid + w.salt, 'utf8').digest();
  const d = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(raw.length - 16));
  return JSON.parse(Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8'));
}

async function waitFor<T>(get: () => T | undefined, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; relay said: ${relayOut.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const relayLines = () => relayOut.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));

const bundleBuilt = () => fs.existsSync(AGENT_BUNDLE) || skip('agent provisioning strand', `${AGENT_BUNDLE} is not built: \`npm test\` builds it`);
if (canRunAsRoot('agent provisioning strand', ['ip', 'nft', 'wg', 'wireguard-go', 'openssl']) && bundleBuilt()) {
  t.before(async () => {
    w = await startAgentWorld('st');
    const script = path.join(tempDir('wgcp-relay-'), 'relay.js');
    fs.writeFileSync(script, RELAY);
    relay = w.router.spawn(process.execPath, [script, w.certFile, w.keyFile, w.routerIp, '8444', `https://${w.routerIp}:8443`]);
    relay.stdout!.on('data', (d: Buffer) => { relayOut += d.toString(); });
    relay.stderr!.on('data', (d: Buffer) => { relayOut += d.toString(); });
    await waitFor(() => (relayLines().some((l) => l.listening) ? true : undefined), 'the relay to listen');
  });

  t.after(async () => {
    relay?.kill('SIGKILL');
    await w?.destroy();
  });

  /** Starts the agent through the relay and SIGKILLs it once the daemon has answered; returns the payload it never saved. */
  async function strand(agent: AgentInstall, token: string): Promise<Record<string, string>> {
    relayOut = relayOut.split('\n').filter((l) => !l.includes('/api/v1/provision')).join('\n');
    agent.writeConfig(token, { server_url: `https://${w.routerIp}:8444` });
    agent.start();
    const held = await waitFor(() => relayLines().find((l) => l.path === '/api/v1/provision'), 'the daemon\'s provisioning answer');
    await agent.stop('SIGKILL');
    assert.is(held.status, 200, `the daemon answered: ${held.answer}`);
    const tokens = (await w.daemon.api('GET', `/api/servers/${w.serverId}/tokens`)).json as { token: string; state: string }[];
    assert.equal(tokens.find((x) => x.token === token)?.state, 'used', 'the token is spent');
    const saved = fs.existsSync(path.join(agent.stateDir, 'state.json')) ? JSON.parse(fs.readFileSync(path.join(agent.stateDir, 'state.json'), 'utf8')) : {};
    assert.is(saved.sealed_config ?? null, null, 'the agent saved no configuration before it died');
    return decrypt(JSON.parse(held.answer).encrypted_config, `e2e-${path.basename(agent.dir)}`);
  }

  t('by the contract the spent token is refused: restarted, the agent says it needs a new token, and no second device is made', async () => {
    const agent = new AgentInstall(w);
    const token = await newToken(w);
    await strand(agent, token);
    const before = (await w.daemon.api('GET', '/api/devices')).json.length;
    agent.writeConfig(token);
    agent.start();
    await agent.waitFor(() => agent.output.includes('token already used'), 'the refusal');
    assert.ok(agent.output.includes('put a new registration token into the configuration file'), agent.output.slice(-2000));
    await agent.stop('SIGTERM');
    assert.is((await w.daemon.api('GET', '/api/devices')).json.length, before);
  });

  t('with WGCP_PROVISION_RETRY_WINDOW the agent comes back up with the same token, as the same device', async () => {
    await w.daemon.stop();
    w.daemonEnv.WGCP_PROVISION_RETRY_WINDOW = '600';
    w.daemon = await startNsDaemon(w.router, { dataDir: w.dataDir, env: w.daemonEnv });
    const agent = new AgentInstall(w);
    const token = await newToken(w);
    const first = await strand(agent, token);
    const before = (await w.daemon.api('GET', '/api/devices')).json.length;
    // Power back: the same configuration file, the same token, straight to the daemon.
    agent.writeConfig(token);
    agent.start();
    await agent.waitConnected();
    assert.is(agent.status().device_id, first.device_id, 'the device the first answer named');
    assert.not.ok(agent.output.includes('token already used'), agent.output.slice(-2000));
    assert.ok(agent.ping(w.serverWgIp), 'traffic through the tunnel with the replayed keys');
    assert.is((await w.daemon.api('GET', '/api/devices')).json.length, before, 'no second device');
    await agent.stop('SIGTERM');
  });

  t('a second device presenting the spent token (another hwid) is still refused: the retry is bound to the hwid', async () => {
    const tokens = (await w.daemon.api('GET', `/api/servers/${w.serverId}/tokens`)).json as { token: string }[];
    const before = (await w.daemon.api('GET', '/api/devices')).json.length;
    const other = new AgentInstall(w);
    other.writeConfig(tokens[tokens.length - 1].token);
    other.start();
    await other.waitFor(() => other.output.includes('token already used'), 'the refusal');
    await other.stop('SIGKILL');
    assert.is((await w.daemon.api('GET', '/api/devices')).json.length, before);
  });
}

t.run();
