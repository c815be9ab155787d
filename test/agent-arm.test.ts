// Proof of ARM: the same agent bundle runs its provisioning round on Debian bookworm's
// arm64 nodejs (18.x) under qemu-aarch64 user emulation, against the real daemon.
// agent/test/arm-setup.sh unpacks that nodejs into WGCP_ARM64_ROOT (.ci/run calls it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot, skip } from './helpers/root';
import { AGENT_BUNDLE, AgentInstall, newToken, startAgentWorld, type AgentWorld } from './helpers/agent-world';

const t = suite('agent on arm64 under qemu-aarch64');
const ARM_ROOT = process.env.WGCP_ARM64_ROOT ?? '/opt/wgcp-arm64';
const ARM_NODE = ['qemu-aarch64', '-L', ARM_ROOT, path.join(ARM_ROOT, 'usr', 'bin', 'node')];

function armReady(): boolean {
  if (!canRunAsRoot('agent on arm64', ['ip', 'nft', 'wg', 'wireguard-go', 'openssl', 'ping', 'qemu-aarch64'])) return false;
  if (!fs.existsSync(AGENT_BUNDLE)) return skip('agent on arm64', `${AGENT_BUNDLE} is not built: \`npm test\` builds it, or \`npm --prefix agent ci && npm --prefix agent run build\``);
  if (fs.existsSync(path.join(ARM_ROOT, 'usr', 'bin', 'node'))) return true;
  return skip('agent on arm64', `no arm64 nodejs in ${ARM_ROOT}: run agent/test/arm-setup.sh ${ARM_ROOT}`);
}

let w: AgentWorld;
let agent: AgentInstall;

if (armReady()) {
  t.before(async () => {
    w = await startAgentWorld('arm');
    agent = new AgentInstall(w, ARM_NODE);
    agent.writeConfig(await newToken(w));
  });

  t.after(async () => {
    await agent?.stop('SIGKILL');
    await w?.destroy();
  });

  t('runs Debian arm64 nodejs 18 under emulation', () => {
    const r = spawnSync(ARM_NODE[0], [...ARM_NODE.slice(1), '-p', 'process.arch + " " + process.version'], { encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /^arm64 v18\./);
    const v = spawnSync(ARM_NODE[0], [...ARM_NODE.slice(1), AGENT_BUNDLE, '--version'], { encoding: 'utf8' });
    assert.equal([v.status, v.stdout], [0, '1.0.0\n']);
  });

  t('the bundle provisions, brings its tunnel up and heartbeats on arm64', async () => {
    agent.start();
    await agent.waitConnected(120_000);
    assert.ok(agent.ping(w.serverWgIp), 'traffic to the server tunnel address');
    const [dev] = (await w.daemon.api('GET', '/api/devices')).json;
    assert.is(dev.tunnelUp, true);
    assert.is(dev.state, 'HEARTBEAT');
    const tokens = (await w.daemon.api('GET', `/api/servers/${w.serverId}/tokens`)).json;
    assert.equal(tokens.map((x: { state: string }) => x.state), ['used']);
  });

  t('its status command runs on arm64 and shows no key', () => {
    const r = spawnSync(ARM_NODE[0], [...ARM_NODE.slice(1), AGENT_BUNDLE, 'status', '--config', agent.configFile], { encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
    const status = JSON.parse(r.stdout);
    assert.equal(Object.keys(status).sort(), ['device_id', 'display', 'last_heartbeat', 'running', 'state']);
    assert.is(status.display, 'connected');
    assert.is(status.running, true, 'the running agent answered through its socket');
  });

  t('stops cleanly on SIGTERM under emulation', async () => {
    await agent.stop('SIGTERM');
    assert.is(agent.child!.exitCode, 0);
    assert.throws(() => w.device.exec('ip', ['link', 'show', agent.ifname]));
  });
}

t.run();
