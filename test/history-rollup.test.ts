// The traffic history against a test clock, on a real SQLite file: what is written and
// when (batched a bucket at a time, idle peers nothing), roll-ups through days and months
// with every byte kept, pruning at 400 days, and the bound on rows per active peer.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Store } from '../src/store/store';
import { silentLogger } from '../src/log';
import { HistoryRecorder, type PeerTraffic } from '../src/history/recorder';
import { HistoryTable, serverSubject } from '../src/history/table';
import { readSeries } from '../src/history/series';
import { bucketStart, cutoffs, maxRowsPerSubject, TIERS } from '../src/history/tiers';
import { tempDir } from './helpers/daemon';

const t = suite('traffic history: buckets, roll-ups and pruning');

const MIN = 60;
const HOUR = 3600;
const DAY = 86_400;
// A Monday, 00:00 UTC.
const START = Date.UTC(2026, 0, 5) / 1000;
const at = (s: number) => new Date(s * 1000);

interface Rig { store: Store; table: HistoryTable; recorder: HistoryRecorder }

function rig(store = Store.open(tempDir())): Rig {
  const table = new HistoryTable(store.db);
  return { store, table, recorder: new HistoryRecorder(store, table, silentLogger) };
}

const rows = (r: Rig, table: string) => r.store.db.prepare(`SELECT t, subject, rx_bytes AS rx, tx_bytes AS tx FROM ${table} ORDER BY t, subject`).all() as { t: number; subject: number; rx: number; tx: number }[];
const changes = (r: Rig) => r.store.db.prepare('SELECT total_changes()').pluck().get() as number;

/** Every byte held for a subject, over all tiers. */
function heldBytes(r: Rig, subject: number): [number, number] {
  let rx = 0;
  let tx = 0;
  for (const tier of TIERS) {
    const s = r.store.db.prepare(`SELECT COALESCE(SUM(rx_bytes), 0) AS rx, COALESCE(SUM(tx_bytes), 0) AS tx FROM ${tier.table} WHERE subject = ?`).get(subject) as { rx: number; tx: number };
    rx += s.rx;
    tx += s.tx;
  }
  return [rx, tx];
}

/** Bytes a peer moves in the cycle at `s`: different every time, so a lost or doubled cycle shows. */
const bytesAt = (s: number, peer: number): [number, number] => [1_000 + (s / MIN) * 7 + peer * 13, 500 + (s / MIN) * 3 + peer];

t('a cycle\'s traffic waits in memory until its 5-minute bucket closes, then the bucket is written once, after the cycle', async () => {
  const r = rig();
  r.recorder.record([[1, 1, 100, 10]], at(START + 30));
  r.recorder.record([[1, 1, 50, 5]], at(START + 90));
  r.recorder.record([[1, 1, 1, 1]], at(START + 299));
  assert.equal(r.table.rowCounts(), [0, 0, 0], 'nothing written while the bucket is open');
  assert.equal(r.recorder.heldBuckets().map((b) => b.bytes.get(1)), [[151, 16]]);
  r.recorder.record([], at(START + 300));
  // The cycle that closes a bucket does not write it: readers find it in memory meanwhile.
  assert.equal(r.table.rowCounts(), [0, 0, 0]);
  assert.equal(readSeries(r.table, r.recorder.heldBuckets(), 1, '5m', START, START + 600), [{ t: START, rxBytes: 151, txBytes: 16 }]);
  await r.recorder.settled();
  assert.equal(rows(r, 'traffic_5m'), [
    { t: START, subject: serverSubject(1), rx: 151, tx: 16 },
    { t: START, subject: 1, rx: 151, tx: 16 },
  ]);
  assert.equal(r.recorder.heldBuckets(), []);
  assert.equal(readSeries(r.table, r.recorder.heldBuckets(), 1, '5m', START, START + 600), [{ t: START, rxBytes: 151, txBytes: 16 }]);
  r.store.close();
});

t('idle peers write nothing: a day of cycles without traffic changes no row', () => {
  const r = rig();
  r.recorder.record([], at(START));
  const before = changes(r);
  for (let s = START + MIN; s < START + DAY; s += MIN) r.recorder.record([], at(s));
  assert.is(changes(r) - before, 0);
  assert.equal(r.table.rowCounts(), [0, 0, 0]);
  r.store.close();
});

t('only the peers that moved traffic get rows; the server row sums them', async () => {
  const r = rig();
  // Peers 1 and 2 on server 1, peer 3 on server 2; the usage job hands over movers only.
  r.recorder.record([[1, 1, 10, 1], [3, 2, 30, 3]], at(START + 60));
  r.recorder.record([[1, 1, 5, 5]], at(START + 120));
  r.recorder.record([], at(START + 300));
  await r.recorder.settled();
  assert.equal(rows(r, 'traffic_5m').map((x) => [x.subject, x.rx, x.tx]), [[-2, 30, 3], [-1, 15, 6], [1, 15, 6], [3, 30, 3]]);
  r.store.close();
});

t('a stop writes the open bucket and a closed one not yet written; after a restart the same bucket adds to that row', async () => {
  const store = Store.open(tempDir());
  const first = rig(store);
  first.recorder.record([[7, 1, 40, 50]], at(START - 290));
  first.recorder.record([[7, 1, 100, 200]], at(START + 10));
  first.recorder.close();
  assert.equal(rows(first, 'traffic_5m').filter((x) => x.subject === 7), [
    { t: START - 300, subject: 7, rx: 40, tx: 50 }, { t: START, subject: 7, rx: 100, tx: 200 }]);
  await first.recorder.settled();
  first.recorder.record([[7, 1, 1000, 1000]], at(START + 20));
  assert.equal(first.recorder.heldBuckets(), [], 'a stopped recorder takes nothing more');
  const second = rig(store);
  second.recorder.record([[7, 1, 1, 2]], at(START + 200));
  second.recorder.record([], at(START + 300));
  await second.recorder.settled();
  assert.equal(rows(second, 'traffic_5m').find((x) => x.subject === 7 && x.t === START), { t: START, subject: 7, rx: 101, tx: 202 });
  store.close();
});

t('through four days of 5-minute cycles: rows past 48 hours become hours, every byte kept', async () => {
  const r = rig();
  const bound = maxRowsPerSubject().byTier;
  const recorded = new Map<number, [number, number]>([[1, [0, 0]], [2, [0, 0]]]);
  const byHour = new Map<number, number>();
  const end = START + 4 * DAY;
  for (let s = START; s < end; s += 5 * MIN) {
    const traffic: PeerTraffic[] = [1, 2].map((p) => [p, 1, ...bytesAt(s, p)]);
    for (const [p, , rx, tx] of traffic) {
      const sum = recorded.get(p)!;
      sum[0] += rx;
      sum[1] += tx;
      if (p === 1) byHour.set(bucketStart(s, HOUR), (byHour.get(bucketStart(s, HOUR)) ?? 0) + rx);
    }
    r.recorder.record(traffic, at(s));
    await r.recorder.settled();
    const [fiveMin, hourly] = r.table.rowCounts();
    // Three subjects (two peers and their server), each within the stated bound.
    assert.ok(fiveMin <= 3 * bound['5m'] && hourly <= 3 * bound['1h'], `rows ${fiveMin}/${hourly} within the bound at ${s - START}`);
  }
  const [cut5m] = cutoffs(end - 5 * MIN);
  assert.ok(rows(r, 'traffic_5m').every((x) => x.t >= cut5m), 'no 5-minute row older than its cutoff');
  assert.ok(rows(r, 'traffic_1h').length > 0, 'hours were made');
  for (const x of rows(r, 'traffic_1h').filter((x) => x.subject === 1)) assert.is(x.rx, byHour.get(x.t), `hour ${x.t - START} holds its twelve buckets`);
  const [openBucket] = r.recorder.heldBuckets();
  for (const p of [1, 2]) {
    const open = openBucket.bytes.get(p)!;
    const held = heldBytes(r, p);
    assert.equal([held[0] + open[0], held[1] + open[1]], recorded.get(p), `peer ${p}: sums kept exactly`);
  }
  const server = heldBytes(r, serverSubject(1));
  const open = openBucket.bytes.get(serverSubject(1))!;
  assert.is(server[0] + open[0], recorded.get(1)![0] + recorded.get(2)![0], 'the server row is the sum of its peers');
  r.store.close();
});

t('through fourteen months: hours past 35 days become days, days past 400 days are dropped', async () => {
  const r = rig();
  const bound = maxRowsPerSubject().byTier;
  const byDay = new Map<number, [number, number]>();
  const end = START + 430 * DAY;
  // Hourly cycles: each one closes the bucket before it (the usage interval may be that long).
  for (let s = START; s < end; s += HOUR) {
    const [rx, tx] = bytesAt(s, 1);
    const day = bucketStart(s, DAY);
    const d = byDay.get(day) ?? [0, 0];
    byDay.set(day, [d[0] + rx, d[1] + tx]);
    r.recorder.record([[1, 1, rx, tx]], at(s));
    await r.recorder.settled();
    const counts = r.table.rowCounts();
    assert.ok(counts[1] <= 2 * bound['1h'] && counts[2] <= 2 * bound['1d'], `rows within the bound on day ${(s - START) / DAY}`);
  }
  // The first cycle of a new hour closes the last bucket and rolls up.
  r.recorder.record([], at(end));
  await r.recorder.settled();
  const [cut5m, cut1h, cut1d] = cutoffs(end);
  const daily = rows(r, 'traffic_1d').filter((x) => x.subject === 1);
  assert.ok(daily.length >= 364 && daily.length <= bound['1d'], `${daily.length} days kept`);
  assert.is(daily[0].t, cut1d, 'the oldest day kept is the first inside 400 days');
  assert.is(daily[daily.length - 1].t, cut1h - DAY, 'days reach up to where the hours start');
  for (const x of daily) assert.equal([x.rx, x.tx], byDay.get(x.t), `day ${(x.t - START) / DAY} holds its hours exactly`);
  assert.ok(rows(r, 'traffic_1h').every((x) => x.t >= cut1h && x.t < cut5m), 'hours lie between the two cutoffs');
  let expected: [number, number] = [0, 0];
  for (const [day, [rx, tx]] of byDay) if (day >= cut1d) expected = [expected[0] + rx, expected[1] + tx];
  assert.equal(heldBytes(r, 1), expected, 'everything from the last 400 days is kept, to the byte');
  r.store.close();
});

t('the hourly roll-up goes a bucket a turn of the event loop, and between turns every byte is in exactly one tier', async () => {
  const r = rig();
  const now = START + 10 * DAY;
  // Three hours of 5-minute rows for two peers, all past the 48 hours the finest tier keeps.
  const old = now - 60 * HOUR;
  for (let s = old; s < old + 3 * HOUR; s += 5 * MIN) r.table.add([[s, 1, 10, 1], [s, 2, 20, 2]]);
  const held = () => [heldBytes(r, 1), heldBytes(r, 2)];
  const before = held();
  r.recorder.record([], at(now));
  assert.equal(r.table.rowCounts(), [72, 0, 0], 'the cycle itself moves nothing');
  let settled = false;
  void r.recorder.settled().then(() => { settled = true; });
  const seen = [72];
  while (!settled) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const [fiveMin] = r.table.rowCounts();
    assert.ok(seen[seen.length - 1] - fiveMin <= 2, `at most one bucket (two rows) a turn: ${seen[seen.length - 1]} to ${fiveMin}`);
    assert.equal(held(), before, 'every byte in exactly one tier');
    if (fiveMin !== seen[seen.length - 1]) seen.push(fiveMin);
  }
  assert.is(seen.length, 37, 'thirty-six steps, one a bucket');
  assert.equal(r.table.rowCounts(), [0, 3 * 2, 0]);
  assert.equal(rows(r, 'traffic_1h').filter((x) => x.subject === 1).map((x) => [x.rx, x.tx]), [[120, 12], [120, 12], [120, 12]]);
  r.store.close();
});

t('a series sums the finer tiers into its step and adds the open bucket', () => {
  const r = rig();
  const now = START + 40 * DAY;
  // Rows that roll into each tier: 37 days back (to a day), 3 days back (to an hour), the last hour (stays).
  r.table.add([[START + 3 * DAY + 600, 1, 100, 1]]);
  r.table.add([[now - 3 * DAY, 1, 20, 2]]);
  r.table.add([[now - 3 * DAY + 300, 1, 30, 3]]);
  r.table.add([[now - HOUR, 1, 4, 4], [now - HOUR + 300, 1, 5, 5]]);
  r.table.rollUp(cutoffs(now));
  assert.equal(r.table.rowCounts(), [2, 1, 1]);
  r.recorder.record([[1, 1, 6, 6]], at(now + 10));
  const day = readSeries(r.table, r.recorder.heldBuckets(), 1, '1d', now - 400 * DAY, now + 60);
  assert.equal(day, [
    { t: START + 3 * DAY, rxBytes: 100, txBytes: 1 },
    { t: now - 3 * DAY, rxBytes: 50, txBytes: 5 },
    { t: now - DAY, rxBytes: 9, txBytes: 9 },
    { t: now, rxBytes: 6, txBytes: 6 },
  ]);
  const hour = readSeries(r.table, r.recorder.heldBuckets(), 1, '1h', now - 2 * HOUR, now + 60);
  assert.equal(hour, [{ t: now - HOUR, rxBytes: 9, txBytes: 9 }, { t: now, rxBytes: 6, txBytes: 6 }]);
  const fine = readSeries(r.table, r.recorder.heldBuckets(), 1, '5m', now - 400 * DAY, now + 60);
  assert.equal(fine.map((p) => p.t), [now - HOUR, now - HOUR + 300, now], '5-minute steps never reach into coarser tiers');
  assert.equal(readSeries(r.table, [], 2, '1d', now - 400 * DAY, now), [], 'another subject has nothing');
  r.store.close();
});

t('the stated worst case: 589 + 816 + 366 = 1,771 rows per active peer', () => {
  assert.equal(maxRowsPerSubject(), { byTier: { '5m': 589, '1h': 816, '1d': 366 }, total: 1771 });
});

t.run();
