// The daemon's own subscribers (the access scheduler, the usage job) hear typed notices of
// each committed change, made by the change runner from the records, not the public payload.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { countingKernel } from './helpers/counting-kernel';
import type { ChangeNotice } from '../src/events/bus';

const t = suite('typed change notices from the change runner');

let d: TestDaemon;
let api: ReturnType<typeof client>;
const notices: ChangeNotice[] = [];
let sid: number;
const officeHours = { timezone: 'UTC', windows: [{ days: ['mon'], from: '08:00', to: '18:00' }] };

t.before(async () => {
  d = await startTestDaemon({ dataDir: tempDir(), options: { kernel: countingKernel().kernel, events: { schedule: false } } });
  api = client(d);
  d.daemon.app.events.onChange((n) => notices.push(n));
  sid = (await api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.61.0.1/16' })).json.id;
});
t.after(async () => { await d.stop(); });

t('a server made is a server notice with its id', () => {
  assert.equal(notices.at(-1), { kind: 'server', id: sid });
});

t('a peer made, given a schedule and deleted: one peer notice each, with the stored schedule and whether it is gone', async () => {
  notices.length = 0;
  const p = (await api.post(`/api/servers/${sid}/peers`, { name: 'n1' })).json;
  assert.equal(notices, [{ kind: 'peer', id: p.id, gone: false, enabled: true, schedule: null }]);
  assert.is((await api.put(`/api/peers/${p.id}`, { schedule: officeHours })).status, 200);
  const scheduled = notices.at(-1);
  assert.ok(scheduled?.kind === 'peer' && scheduled.id === p.id && !scheduled.gone);
  assert.equal(scheduled.kind === 'peer' && scheduled.schedule?.timezone, 'UTC');
  assert.is((await api.del(`/api/peers/${p.id}`)).status, 204);
  assert.equal(notices.at(-1), { kind: 'peer', id: p.id, gone: true, enabled: scheduled.kind === 'peer' && scheduled.enabled, schedule: scheduled.kind === 'peer' ? scheduled.schedule : null });
});

t('a refused change makes no notice', async () => {
  notices.length = 0;
  assert.is((await api.put('/api/peers/999999', { name: 'x' })).status, 404);
  assert.equal(notices, []);
});

t.run();
