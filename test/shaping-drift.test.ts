// Drift of bandwidth limits as the reconciler reads it: the real Shaper in a namespace of its
// own (test/helpers/shaping-child.ts), the kernel's classes changed by hand under it.
import path from 'node:path';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';

const t = suiteNeeding('shaping drift against the kernel', ['ip', 'nft', 'tc'], { root: true });

t('a class deleted or changed by hand is drift, named; making the shaping again leaves none', () => {
  const ns = new Netns('shdrift');
  try {
    const seen = JSON.parse(ns.exec(process.execPath, [path.join(__dirname, 'helpers/shaping-child.js')]));
    assert.is(seen.afterInstall, false, 'nothing differs right after the install');
    assert.equal(seen.missing, ['tunnel 1:1 20000000']);
    assert.equal(seen.wrongRate, ['10000000 3000000']);
    assert.is(seen.afterRepair, false);
  } finally {
    ns.destroy();
  }
});

t.run();
