// How a follower's line of changes stands to its primary's (src/ha/lines.ts, pure): a line is
// its epoch and the random node of the promotion that began it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { judgeFollower, laterLine } from '../src/ha/lines';

const t = suite('standby pair: lines of changes');

const first = { epoch: 1, startSeq: 1, node: '' };
// A primary promoted at epoch 2 (node "b0") from sequence 41, now at 60.
const own = { epoch: 2, seq: 60, pruned: 0, epochs: [first, { epoch: 2, startSeq: 41, node: 'b0' }] };

t('of two lines with the same epoch, the one whose promotion drew the higher node is later', () => {
  assert.ok(laterLine({ epoch: 2, node: 'b0' }, { epoch: 2, node: 'a9' }));
  assert.not.ok(laterLine({ epoch: 2, node: 'a9' }, { epoch: 2, node: 'b0' }));
  assert.ok(laterLine({ epoch: 3, node: '00' }, { epoch: 2, node: 'ff' }), 'the epoch first');
});

t('a follower on the same line follows it', () => {
  assert.equal(judgeFollower(own, { epoch: 2, node: 'b0', start: 41, seq: 55 }), { kind: 'follow' });
  assert.equal(judgeFollower(own, { epoch: 1, node: '', start: 1, seq: 30 }), { kind: 'follow' });
});

t('a follower promoted to the same epoch by another promotion holds changes this line never had, from its epoch\'s start', () => {
  // Behind the primary's sequence, ahead of it, or promoted earlier: never judged by sequence alone.
  assert.equal(judgeFollower(own, { epoch: 2, node: 'a9', start: 41, seq: 45 }), { kind: 'diverged', since: 41 });
  assert.equal(judgeFollower(own, { epoch: 2, node: 'a9', start: 41, seq: 70 }), { kind: 'diverged', since: 41 });
  assert.equal(judgeFollower(own, { epoch: 2, node: 'a9', start: 31, seq: 35 }), { kind: 'diverged', since: 31 });
});

t('a follower promoted to the same epoch that made no change of its own follows', () => {
  assert.equal(judgeFollower(own, { epoch: 2, node: 'a9', start: 41, seq: 40 }), { kind: 'follow' });
});

t('a follower whose line is later is told so (it should be primary)', () => {
  assert.equal(judgeFollower(own, { epoch: 2, node: 'c1', start: 41, seq: 45 }), { kind: 'newer' });
  assert.equal(judgeFollower(own, { epoch: 3, node: '', start: 61, seq: 61 }), { kind: 'newer' });
});

t('a former primary back from a lower epoch holds changes from this line\'s next epoch on', () => {
  assert.equal(judgeFollower(own, { epoch: 1, node: '', start: 1, seq: 44 }), { kind: 'diverged', since: 41 });
});

t('a follower from an epoch this line never had holds changes from its own epoch\'s start', () => {
  const line = { epoch: 4, seq: 80, pruned: 0, epochs: [first, { epoch: 2, startSeq: 11, node: 'b0' }, { epoch: 4, startSeq: 71, node: 'c2' }] };
  assert.equal(judgeFollower(line, { epoch: 3, node: 'a1', start: 61, seq: 65 }), { kind: 'diverged', since: 61 });
});

t('a follower behind what the journal still holds takes a snapshot', () => {
  assert.equal(judgeFollower({ ...own, pruned: 50 }, { epoch: 2, node: 'b0', start: 41, seq: 45 }), { kind: 'snapshot' });
});

t.run();
