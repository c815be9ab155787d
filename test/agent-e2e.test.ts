// wgcp-agent end to end: the real daemon (kernel on, device API over HTTPS) in a router
// namespace, the built agent bundle with wireguard-go in a device namespace.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot, skip } from './helpers/root';
import { AGENT_BUNDLE, AgentInstall, newToken, startAgentWorld, type AgentWorld } from './helpers/agent-world';
import { sh } from './helpers/netns';
import { startNsDaemon } from './helpers/ns-daemon';
import { deviceByUuid } from './helpers/device-lookup';

const t = suite('agent end to end with wgcpd');
let w: AgentWorld;
let agent: AgentInstall;
let deviceId: string;
/** The device's id in the control plane's routes (its peer's); deviceId is the device_id the agent holds. */
let deviceNo: number;
let firstToken: string;

const devices = async () => (await w.daemon.api('GET', '/api/devices')).json as { id: number; tunnelUp: boolean; status: string; lastSeenAt: string | null }[];
const tokens = async () => (await w.daemon.api('GET', `/api/servers/${w.serverId}/tokens`)).json as { token: string; state: string }[];
const provisionedLines = () => agent.logs().filter((l) => l.msg === 'provisioned').length;

const bundleBuilt = () => fs.existsSync(AGENT_BUNDLE) || skip('agent end to end', `${AGENT_BUNDLE} is not built: \`npm test\` builds it, or \`npm --prefix agent ci && npm --prefix agent run build\``);
if (canRunAsRoot('agent end to end', ['ip', 'nft', 'wg', 'wireguard-go', 'openssl', 'ping']) && bundleBuilt()) {
  t.before(async () => {
    w = await startAgentWorld('ag');
    agent = new AgentInstall(w);
    firstToken = await newToken(w);
    agent.writeConfig(firstToken);
  });

  t.after(async () => {
    await agent?.stop('SIGKILL');
    await w?.destroy();
  });

  t('provisions over HTTPS with its token, brings the tunnel up and heartbeats', async () => {
    agent.start();
    await agent.waitConnected();
    const status = agent.status();
    deviceId = status.device_id!;
    deviceNo = (await deviceByUuid((p) => w.daemon.api('GET', p), deviceId)).id;
    assert.is(status.state, 'HEARTBEAT');
    assert.ok(status.last_heartbeat);
    assert.equal((await tokens()).map((x) => x.state), ['used']);
    const dev = (await w.daemon.api('GET', `/api/devices/${deviceNo}`)).json;
    assert.is(dev.tunnelUp, true);
    assert.is(dev.status, 'connected');
    assert.is(dev.state, 'HEARTBEAT');
    assert.ok(Date.now() - Date.parse(dev.lastHandshake) < 60_000, `last_handshake reported: ${dev.lastHandshake}`);
    assert.ok(Date.now() - Date.parse(dev.lastSeenAt) < 10_000);
  });

  t('status gives the running agent\'s last heartbeat as it holds it, not the hourly one of its state file', async () => {
    assert.is(agent.status().running, true);
    // An answered heartbeat reaches the state file once an hour: status must not wait for it.
    const onDisk = JSON.parse(fs.readFileSync(path.join(agent.stateDir, 'state.json'), 'utf8')).last_heartbeat;
    await agent.waitFor(() => Date.parse(agent.status().last_heartbeat!) > Date.parse(onDisk), 'a heartbeat newer than the state file in status', 20_000);
  });

  t('has a real handshake and carries traffic to the server tunnel address', async () => {
    assert.ok(agent.ping(w.serverWgIp), 'ping 10.88.0.1 through the tunnel');
    const dump = w.device.exec('wg', ['show', agent.ifname, 'dump']).trim().split('\n');
    assert.is(dump[1].split('\t')[7], '25', 'PersistentKeepalive 25');
    const serverPeers = w.daemon.exec('wg', ['show', `wgcp${w.serverId}`, 'latest-handshakes']);
    assert.ok(/\t[1-9]\d+/.test(serverPeers), `router side saw a handshake: ${serverPeers}`);
  });

  t('runs a dual-stack tunnel: its IPv6 address, and traffic to the server\'s IPv6 tunnel address', async () => {
    const server = (await w.daemon.api('GET', `/api/servers/${w.serverId}?peers=none`)).json;
    const device = (await w.daemon.api('GET', `/api/devices/${deviceNo}`)).json;
    const peer = (await w.daemon.api('GET', `/api/peers/${device.peerID}`)).json;
    assert.ok(peer.ip6, 'the device peer has an IPv6 address');
    assert.match(w.device.exec('ip', ['address', 'show', 'dev', agent.ifname]), `inet6 ${peer.ip6}/128`);
    assert.ok(agent.ping(server.address6.replace(/\/\d+$/, '')), 'ping the server\'s IPv6 tunnel address through the tunnel');
  });

  t('status shows no key; the state file and the log hold none in plaintext', async () => {
    const dev = (await w.daemon.api('GET', `/api/devices/${deviceNo}`)).json;
    const conf = (await w.daemon.api('GET', `/api/peers/${dev.peerID}/config`)).text;
    const keys = [/^PrivateKey = (\S+)$/m, /^PresharedKey = (\S+)$/m].map((re) => re.exec(conf)![1]);
    const hexKeys = keys.map((k) => Buffer.from(k, 'base64').toString('hex'));
    const stored = fs.readFileSync(path.join(agent.stateDir, 'state.json'), 'utf8');
    assert.equal(Object.keys(agent.status()).sort(), ['device_id', 'display', 'last_heartbeat', 'running', 'state']);
    assert.is(fs.statSync(path.join(agent.stateDir, 'state.json')).mode & 0o777, 0o600);
    for (const secret of [...keys, ...hexKeys, firstToken, w.salt]) {
      assert.not.ok(stored.includes(secret), 'secret in the state file');
      assert.not.ok(agent.output.includes(secret), 'secret in the log');
    }
  });

  t('rebuilds the tunnel when an admin adds a port forward', async () => {
    const rebuildsBefore = agent.logs().filter((l) => l.msg === 'tunnel rebuilt').length;
    const res = await w.daemon.api('POST', `/api/devices/${deviceNo}/forwards`, { protocol: 'tcp', listenPort: 9080, targetPort: 80 });
    assert.is(res.status, 201, res.text);
    await agent.waitFor(() => agent.logs().filter((l) => l.msg === 'tunnel rebuilt').length > rebuildsBefore, 'a rebuild');
    const reason = agent.logs().filter((l) => l.msg === 'rebuilding the tunnel').pop()!;
    assert.equal(reason.reasons, ['forwards_hash changed']);
    await agent.waitConnected();
    assert.ok(agent.ping(w.serverWgIp));
  });

  t('rebuilds with new keys when an admin rotates them', async () => {
    const publicKey = () => { try { return w.device.exec('wg', ['show', agent.ifname, 'public-key']).trim(); } catch { return null; } };
    const before = publicKey();
    const res = await w.daemon.api('POST', `/api/devices/${deviceNo}/rotate`);
    assert.is(res.status, 200, res.text);
    await agent.waitFor(() => { const now = publicKey(); return now !== null && now !== before; }, 'the new key in the tunnel', 30_000);
    await agent.waitConnected();
    assert.ok(agent.ping(w.serverWgIp));
  });

  t('keeps retrying while the daemon is down and recovers when it is back', async () => {
    await w.daemon.stop();
    const failedBefore = agent.logs().filter((l) => l.msg === 'heartbeat failed').length;
    await agent.waitFor(() => agent.logs().filter((l) => l.msg === 'heartbeat failed').length >= failedBefore + 2, 'failed heartbeats', 60_000);
    assert.is(agent.status().display, 'failed');
    assert.is(agent.child!.exitCode, null, 'the agent keeps running');
    w.daemon = await startNsDaemon(w.router, { dataDir: w.dataDir, env: w.daemonEnv });
    await agent.waitConnected(60_000);
    assert.is(agent.status().device_id, deviceId);
    assert.ok(await agent.pingSoon(w.serverWgIp), 'traffic again once WireGuard has made a new handshake');
    assert.is((await devices()).length, 1);
  });

  t('keeps going while the network vanishes and recovers when it returns', async () => {
    const provisioned = provisionedLines();
    w.device.exec('ip', ['link', 'set', w.deviceLink, 'down']);
    try {
      const failedBefore = agent.logs().filter((l) => l.msg === 'heartbeat failed').length;
      await agent.waitFor(() => agent.logs().filter((l) => l.msg === 'heartbeat failed').length >= failedBefore + 2, 'failed heartbeats', 60_000);
      assert.is(agent.status().display, 'failed');
      assert.is(agent.status().state, 'HEARTBEAT');
    } finally {
      w.device.exec('ip', ['link', 'set', w.deviceLink, 'up']);
    }
    await agent.waitConnected(60_000);
    assert.ok(await agent.pingSoon(w.serverWgIp));
    assert.is(provisionedLines(), provisioned, 'no new provisioning');
  });

  t('resumes after SIGKILL at random moments (some in a rebuild) without a new token', async () => {
    const rng = () => Math.floor(Math.random() * 2500);
    let forwardId: number | null = null;
    for (let round = 0; round < 6; round++) {
      await agent.stop('SIGKILL');
      // A forward changed while it was down: the next run rebuilds, and a kill may land in that rebuild.
      if (forwardId === null) {
        const res = await w.daemon.api('POST', `/api/devices/${deviceNo}/forwards`, { protocol: 'udp', listenPort: 9100 + round, targetPort: 53 });
        assert.is(res.status, 201, res.text);
        forwardId = res.json.id;
      } else {
        assert.is((await w.daemon.api('DELETE', `/api/forwards/${forwardId}`)).status, 204);
        forwardId = null;
      }
      agent.start();
      const delay = rng();
      await new Promise((r) => setTimeout(r, delay));
      await agent.stop('SIGKILL');
      agent.start();
      await agent.waitConnected(45_000);
      assert.is(provisionedLines(), 0, `round ${round} (killed after ${delay} ms) provisioned again`);
      assert.is(agent.status().device_id, deviceId);
    }
    assert.ok(agent.ping(w.serverWgIp));
    assert.equal((await tokens()).map((x) => x.state), ['used']);
    assert.is((await devices()).length, 1);
    const daemonHash = (await w.daemon.api('GET', `/api/devices/${deviceNo}`)).json.forwardsHash;
    await agent.waitFor(() => JSON.parse(fs.readFileSync(path.join(agent.stateDir, 'state.json'), 'utf8')).forwards_hash === daemonHash, 'the stored hash to match the daemon');
    const comms = sh('ip', ['netns', 'pids', w.device.name]).split(/\s+/).filter(Boolean)
      .map((pid) => { try { return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim(); } catch { return ''; } });
    assert.is(comms.filter((c) => c === 'wireguard-go').length, 1, `one wireguard-go left, not one per killed agent: ${comms}`);
  });

  t('provisions afresh (same device, new keys) when its stored configuration is corrupted', async () => {
    await agent.stop('SIGTERM');
    const file = path.join(agent.stateDir, 'state.json');
    const rec = JSON.parse(fs.readFileSync(file, 'utf8'));
    const bytes = Buffer.from(rec.sealed_config, 'base64');
    bytes[bytes.length - 1] ^= 0x55;
    fs.writeFileSync(file, JSON.stringify({ ...rec, sealed_config: bytes.toString('base64') }));
    agent.writeConfig(await newToken(w)); // the first token is spent; an operator hands out a new one
    agent.start();
    await agent.waitConnected();
    assert.ok(agent.logs().some((l) => l.msg === 'stored configuration cannot be decrypted: cleared, provisioning again'));
    assert.is(provisionedLines(), 1, agent.output);
    assert.is(agent.status().device_id, deviceId, 'a known hwid keeps its device');
    assert.ok(agent.ping(w.serverWgIp));
    assert.equal((await tokens()).map((x) => x.state), ['used', 'used']);
  });

  t('reports its stop and takes the tunnel down on SIGTERM; status then says STOPPED, with the last heartbeat it had', async () => {
    const before = agent.status().last_heartbeat!;
    await agent.stop('SIGTERM');
    assert.is(agent.child!.exitCode, 0);
    const [dev] = await devices();
    // The agent's last lines say why, when its one short attempt at the stop report failed.
    assert.is(dev.status, 'stopped', `the stop was not reported; agent output:\n${agent.output.slice(-1500)}`);
    assert.throws(() => w.device.exec('ip', ['link', 'show', agent.ifname]));
    const after = agent.status();
    assert.equal([after.running, after.state, after.display], [false, 'STOPPED', 'disconnected']);
    assert.ok(Date.parse(after.last_heartbeat!) >= Date.parse(before), `the last heartbeat kept at the stop: ${after.last_heartbeat} >= ${before}`);
  });
}

t.run();
