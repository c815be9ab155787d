// The bus after a commit: every listener hears every item in order, and one that throws is
// logged and never keeps the others (or the change runner) from hearing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventBus, type ChangeNotice, type WgcpEvent } from '../src/events/bus';
import { createLogger } from '../src/log';

const t = suite('the event bus after a commit');

function bus() {
  const lines: Record<string, unknown>[] = [];
  return { lines, bus: new EventBus(createLogger('info', (l) => { lines.push(JSON.parse(l)); })) };
}
const boom = () => { throw new Error('boom'); };

t('a listener that throws is logged with the item, and the next listener still hears every notice', () => {
  const { lines, bus: b } = bus();
  const heard: number[] = [];
  b.onChange(boom);
  b.onChange((n) => heard.push(n.id));
  const notices: ChangeNotice[] = [{ kind: 'server', id: 1 }, { kind: 'server', id: 2 }];
  b.announceChanges(notices);
  assert.equal(heard, [1, 2]);
  assert.equal(lines.map((l) => [l.msg, l.kind, l.error]), [['change listener failed', 'server', 'boom'], ['change listener failed', 'server', 'boom']]);
});

t('events and ended access reach their own listeners the same way', () => {
  const { lines, bus: b } = bus();
  const events: string[] = [];
  const ended: number[][] = [];
  b.subscribe(boom);
  b.subscribe((e) => events.push(e.event));
  b.onAccessEnded(boom);
  b.onAccessEnded((ids) => ended.push([...ids]));
  const e: WgcpEvent = { action: 8, event: 'serverChanged', serverID: 1, timestamp: '2026-11-28T00:00:00.000Z', data: {} };
  b.announce([e]);
  b.announceAccessEnded([]);
  b.announceAccessEnded([4, 5]);
  assert.equal(events, ['serverChanged']);
  assert.equal(ended, [[4, 5]], 'nothing announced for no ended access');
  assert.equal(lines.map((l) => [l.msg, l.event]), [['event listener failed', 'serverChanged'], ['access-ended listener failed', undefined]]);
});

t('an unsubscribed listener hears nothing more', () => {
  const { bus: b } = bus();
  const heard: number[] = [];
  const stop = b.onChange((n) => heard.push(n.id));
  b.announceChanges([{ kind: 'server', id: 1 }]);
  stop();
  b.announceChanges([{ kind: 'server', id: 2 }]);
  assert.equal(heard, [1]);
});

t.run();
