// Drift of bandwidth limits as the reconciler reads it: the real Shaper in a namespace of its
// own (test/helpers/shaping-child.ts), the kernel's classes changed by hand under it.
import path from 'node:path';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';

const t = suiteNeeding('shaping drift against the kernel', ['ip', 'nft', 'tc'], { root: true });

t('a class deleted or changed by hand is drift, named, and put right class by class; a deleted root qdisc has the shaping made again; so do a map element and a flushed chain', () => {
  const ns = new Netns('shdrift');
  try {
    const seen = JSON.parse(ns.exec(process.execPath, [path.join(__dirname, 'helpers/shaping-child.js')]));
    assert.is(seen.afterInstall, false, 'nothing differs right after the install');
    assert.equal(seen.missing, ['tunnel 1:1 20000000']);
    assert.equal(seen.wrongRate, ['10000000 3000000']);
    // A class and its leaf queue are two lines; each of the two drifted classes is put right alone.
    assert.is(seen.repairLines, 4);
    assert.is(seen.afterRepair, false);
    assert.ok(seen.rootGone >= 4, `${seen.rootGone} classes gone with the root qdisc`);
    assert.is(seen.afterRootRepair, false);
    // The element is the one drift: one missing, put back with one line; the classes never moved.
    const { lines, ...counts } = seen.elementGone;
    assert.equal(counts, { classes: 0, rebuild: false, missing: 1, wrongClass: 0, extra: 0 });
    assert.is(lines.length, 1);
    assert.match(lines[0], /^add element netdev wgcp s[0-9a-f]{8}_d6 \{ fd77::3 : 1:[0-9a-f]+ \}$/);
    assert.is(seen.afterElementRepair, false);
    assert.is(seen.elementBack, true);
    assert.is(seen.chainFlushed, true);
    assert.is(seen.afterChainRepair, false);
  } finally {
    ns.destroy();
  }
});

t.run();
