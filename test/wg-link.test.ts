import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkIfname, mtuOf } from '../src/wg/link';

const t = suite('wg interface names and MTU');

t('accepts the daemon\'s names and ordinary interface names', () => {
  for (const name of ['wgcp1', 'wgcp-lab', 'wg_0', 'office.vpn', 'a23456789012345']) assert.is(checkIfname(name), name);
});

t('refuses names a tool could read as an option or a path, and names Linux refuses', () => {
  for (const name of ['-f', '--help', '.', '..', '.hidden', 'a b', 'x/y', 'a234567890123456', '']) {
    assert.throws(() => checkIfname(name), /cannot be used/, name);
  }
});

t('a server without an MTU gets 1420, the WireGuard default', () => {
  assert.is(mtuOf({ mtu: null }), 1420);
  assert.is(mtuOf({ mtu: 1380 }), 1380);
});

t.run();
