import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mergeTunnelFields, parsePayload } from '../src/payload';
import { fullTunnelFamilies, hexToBase64, isHandshakeFresh, parseLatestHandshake, upCommands, wgConfText } from '../src/tunnel-plan';
import { samplePayload } from './helpers/device-server';

const t = suite('agent tunnel plan');
const cfg = parsePayload(samplePayload());

t('converts a hex key to the base64 wg wants (same 32 bytes)', () => {
  const hex = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
  assert.is(hexToBase64(hex), 'ABEiM0RVZneImaq7zN3u/wARIjNEVWZ3iJmqu8zd7v8=');
  assert.is(Buffer.from(hexToBase64(hex), 'base64').toString('hex'), hex);
});

t('renders the setconf text with keys, endpoint and PersistentKeepalive 25', () => {
  const text = wgConfText(cfg);
  assert.match(text, `PrivateKey = ${hexToBase64(cfg.private_key)}\n`);
  assert.match(text, `PublicKey = ${hexToBase64(cfg.server_pub)}\n`);
  assert.match(text, `PresharedKey = ${hexToBase64(cfg.preshared_key)}\n`);
  assert.match(text, 'AllowedIPs = 10.66.0.0/24\n');
  assert.match(text, `Endpoint = ${cfg.endpoint}\n`);
  assert.match(text, 'PersistentKeepalive = 25\n');
  assert.not.match(text, 'FwMark');
  assert.not.match(text, cfg.private_key);
});

t('passes the keys in a file, never as arguments', () => {
  const cmds = upCommands('wgcp0', cfg, '/tmp/x/wg.conf');
  assert.equal(cmds[0].args, ['setconf', 'wgcp0', '/tmp/x/wg.conf']);
  for (const c of cmds) assert.not.ok(c.args.join(' ').includes(hexToBase64(cfg.private_key)));
});

t('adds the device address as a host address and routes the allowed subnet', () => {
  const args = upCommands('wgcp0', cfg, 'f').map((c) => `${c.cmd} ${c.args.join(' ')}`);
  assert.equal(args.slice(1), ['ip address add 10.66.0.2/32 dev wgcp0', 'ip link set up dev wgcp0', 'ip -4 route replace 10.66.0.0/24 dev wgcp0']);
});

t('routes a full tunnel through its own table, keeping the endpoint reachable', () => {
  const full = { ...cfg, allowed_ips: '0.0.0.0/0, ::/0' };
  assert.equal(fullTunnelFamilies(full), ['-4', '-6']);
  assert.match(wgConfText(full), 'FwMark = 51820\n');
  const args = upCommands('wgcp0', full, 'f').map((c) => c.args.join(' '));
  assert.ok(args.includes('-4 route replace 0.0.0.0/0 dev wgcp0 table 51820'));
  assert.ok(args.includes('-4 rule add not fwmark 51820 table 51820'));
  assert.ok(args.includes('-6 rule add table main suppress_prefixlength 0'));
});

t('reads the newest handshake of `wg show latest-handshakes`, null when never', () => {
  assert.is(parseLatestHandshake('abc=\t0\n'), null);
  assert.is(parseLatestHandshake(''), null);
  assert.is(parseLatestHandshake('a=\t1700000000\nb=\t1700000100\n')!.toISOString(), new Date(1700000100_000).toISOString());
});

t('counts a handshake as fresh for 180 s', () => {
  const now = 1700000000_000;
  assert.ok(isHandshakeFresh(new Date(now - 179_000), now));
  assert.not.ok(isHandshakeFresh(new Date(now - 180_000), now));
  assert.not.ok(isHandshakeFresh(null, now));
});

t('a dual-stack payload adds the IPv6 address and routes the IPv6 prefix too', () => {
  const dual = parsePayload({ ...samplePayload(), internal_ip6: 'fd12:3456:789a:1::5', allowed_ips6: 'fd12:3456:789a:1::/64', server_wg_ip6: 'fd12:3456:789a:1::1' });
  const cmds = upCommands('wgcp0', dual, '/tmp/x').map((c) => c.args.join(' '));
  assert.ok(cmds.includes('address add fd12:3456:789a:1::5/128 dev wgcp0'));
  assert.ok(cmds.includes('-6 route replace fd12:3456:789a:1::/64 dev wgcp0'));
  assert.match(wgConfText(dual), 'AllowedIPs = 10.66.0.0/24, fd12:3456:789a:1::/64\n');
});

t('an IPv4-only payload (an older server) has no IPv6 address or route', () => {
  assert.is(cfg.internal_ip6, undefined);
  assert.not.ok(upCommands('wgcp0', cfg, '/tmp/x').some((c) => c.args.some((a) => a.includes(':'))));
});

t('a heartbeat that brings or drops the IPv6 fields asks for a rebuild', () => {
  const gained = mergeTunnelFields(cfg, { internal_ip6: 'fd12:3456:789a:1::5', allowed_ips6: '::/0' });
  assert.equal(gained.changed.sort(), ['allowed_ips6', 'internal_ip6']);
  const dropped = mergeTunnelFields(gained.next, {});
  assert.equal(dropped.changed.sort(), ['allowed_ips6', 'internal_ip6']);
  assert.is(dropped.next.internal_ip6, undefined);
  assert.equal(fullTunnelFamilies(gained.next), ['-6']);
});

t.run();
