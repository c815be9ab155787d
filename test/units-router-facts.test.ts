import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultRouteIfaces4, defaultRouteIfaces6 } from '../src/kernel/wan';
import { servingPorts } from '../src/kernel/listening-ports';

const t = suite('what wgcp reads of the router: its WAN side and the ports it serves');

const ROUTE = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth1\t00000000\t0102A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
br-lan\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
pppoe-wan\t00000000\t00000000\t0001\t0\t0\t10\t00000000\t0\t0\t0
`;

t('the IPv4 WAN is every interface holding a default route, and only those', () => {
  assert.equal(defaultRouteIfaces4(ROUTE), ['eth1', 'pppoe-wan']);
  assert.equal(defaultRouteIfaces4(ROUTE.split('\n')[0]), []);
});

t('the IPv6 WAN is every interface holding ::/0, not the loopback\'s unreachable route', () => {
  const v6 = [
    'fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     br-lan',
    '00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000002 00000000 00000003     eth1',
    '00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo',
  ].join('\n');
  assert.equal(defaultRouteIfaces6(v6), ['eth1']);
});

t('a TCP port is served when a socket listens on it; connected sockets do not count', () => {
  const tcp = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
   1: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0 100 0 0 10 0
   2: 0201A8C0:0016 0A01A8C0:D431 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 100 0 0 10 0
   3: 0201A8C0:C350 0A01A8C0:0050 01 00000000:00000000 00:00000000 00000000     0        0 4 1 0 100 0 0 10 0`;
  assert.equal([...servingPorts(tcp, 'tcp')].sort((a, b) => a - b), [22, 8080]);
});

t('a UDP port is served when a socket is bound and not connected', () => {
  const udp = `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  10: 00000000:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1 2 0 0
  11: 0201A8C0:E1F2 08080808:0035 01 00000000:00000000 00:00000000 00000000     0        0 2 2 0 0`;
  assert.equal([...servingPorts(udp, 'udp')], [53]);
});

t.run();
