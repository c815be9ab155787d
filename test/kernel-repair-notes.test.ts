// Each server's last kernel repair, as the repair's commit keeps it in the database: which
// server a finding counts for, and the row that outlives a restart and goes with its server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Store } from '../src/store/store';
import { repairNotes } from '../src/ops/kernel-repair';
import type { Finding } from '../src/kernel/reconcile-target';

const t = suite('kernel repairs: each server\'s last one, kept');
const finding = (over: Partial<Finding>): Finding => ({ kind: 'peer', serverId: 1, interface: 'wgcp1', counts: {}, items: 1, summary: '', repair: async () => {}, ...over });

t('a server\'s note counts its own findings by kind; the table\'s finding counts for every server up', () => {
  const notes = repairNotes([finding({ items: 2 }), finding({ kind: 'link' }), finding({ kind: 'nft', serverId: null, interface: null, items: 3 })], [1, 2], 'T');
  assert.equal([...notes], [[1, { at: 'T', repairs: 6, kinds: { peer: 2, link: 1, nft: 3 } }], [2, { at: 'T', repairs: 3, kinds: { nft: 3 } }]]);
  assert.is(repairNotes([], [1], 'T').size, 0);
});

t('a note is kept in the database, the newest replaces the older, and it goes with its server', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-repairs-'));
  try {
    let store = Store.open(dir);
    store.db.exec(`INSERT INTO servers (id, name, endpoint, mode, interface, address, listen_port, dns, private_key, public_key, created_at, updated_at)
      VALUES (1, 's', 'h:1', 'forward', 'wgcp1', '10.1.0.1/24', 51820, '10.1.0.1', 'k', 'k', 'x', 'x')`);
    store.kernelRepairs.note(1, { at: 'T1', repairs: 1, kinds: { peer: 1 } });
    store.kernelRepairs.note(1, { at: 'T2', repairs: 4, kinds: { nft: 4 } });
    store.kernelRepairs.note(7, { at: 'T2', repairs: 1, kinds: { link: 1 } });
    store.close();
    store = Store.open(dir);
    assert.equal(store.kernelRepairs.get(1), { at: 'T2', repairs: 4, kinds: { nft: 4 } });
    assert.is(store.kernelRepairs.get(7), undefined, 'a server that is not there has no row');
    store.db.exec('DELETE FROM servers WHERE id = 1');
    assert.is(store.kernelRepairs.get(1), undefined);
    assert.is(store.db.prepare('SELECT COUNT(*) FROM kernel_repairs').pluck().get(), 0);
    store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
