// The fleet soak, short (issue 28): 1,000 simulated devices and 10 real agents against one
// wgcpd with its kernel on; two power cuts of the router at random moments; then every agent
// restarted at once. The longer run and its figures: bench/soak.ts, bench/RESULTS.md.
import fs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot, skip } from './helpers/root';
import { AGENT_BUNDLE } from './helpers/agent-world';
import { runSoak } from './helpers/fleet-soak';

const t = suite('fleet soak, short');
const INTERVAL_S = 30;

const bundleBuilt = () => fs.existsSync(AGENT_BUNDLE) || skip('fleet soak', `${AGENT_BUNDLE} is not built: \`npm test\` builds it`);
if (canRunAsRoot('fleet soak', ['ip', 'nft', 'wg', 'wireguard-go', 'openssl', 'ping']) && bundleBuilt()) {
  t('two power cuts and a site-wide agent restart: nothing committed lost, no heartbeat lost or 5xx, every device answered again, no new token', async () => {
    const f = await runSoak({ label: 'sk', devices: 1000, agents: 10, intervalS: INTERVAL_S, agentIntervalS: 5, durationS: 60, kills: 2, log: (l) => console.log(`  ${l}`) });
    console.log(`  ${JSON.stringify(f)}`);
    assert.is(f.sim.devices, 1000);
    assert.is(f.sim.lost, 0, 'no heartbeat lost (each answered 200 within 30 s, retries included)');
    assert.equal(Object.keys(f.sim.statuses).filter((s) => Number(s) >= 500), [], `no 5xx: ${JSON.stringify(f.sim.statuses)}`);
    assert.is(f.restarts.length, 2);
    for (const r of f.restarts) {
      assert.ok(r.peersChecked > 0, 'changes were committed before the cut');
      assert.equal(r.peersMissing, [], 'every committed peer is there after the cut');
      // Every device answered again after the restart. How soon (one interval, +10 % jitter,
      // and a few seconds) is a wall-clock figure: bench/soak.ts reports it, a loaded machine
      // running the suites would miss it.
      assert.ok(Number.isFinite(r.allAnsweredAfterS), 'every device was answered again after the restart');
    }
    assert.is(f.agentsProvisionedAgain, 0, 'no agent needed a new token');
    assert.is(f.devicesAfter, f.devicesBefore);
  });
}

t.run();
