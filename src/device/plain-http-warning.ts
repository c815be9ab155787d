// The device API carries device_ids (credentials) and the devices' private keys. Served as
// plain HTTP on an address other hosts reach, anyone on the path can read both: said
// loudly at start, for WGCP_DEVICE_LISTEN without TLS and for WGCP_LISTEN (which serves
// the device API too, and is always plain HTTP).
import type net from 'node:net';
import type { Logger } from '../log';
import { isLoopback, parseIp } from '../net/ip-address';

export type ListenerName = 'WGCP_LISTEN' | 'WGCP_DEVICE_LISTEN';

const ADVICE: Record<ListenerName, string> = {
  WGCP_DEVICE_LISTEN: 'set WGCP_TLS_CERT and WGCP_TLS_KEY (wgcp tls init makes a pair), or listen on loopback behind a TLS proxy',
  WGCP_LISTEN: 'keep WGCP_LISTEN on loopback and give devices WGCP_DEVICE_LISTEN with TLS',
};

/** Logs the warning once the server listens, if it is plain HTTP on a non-loopback address. */
export function warnIfPlainHttp(log: Logger, server: net.Server, listener: ListenerName, tls: boolean): void {
  const check = () => {
    const bound = server.address();
    if (tls || bound === null || typeof bound !== 'object') return;
    const ip = parseIp(bound.address);
    if (ip && isLoopback(ip)) return;
    log.warn(`the device API is served over plain HTTP on a non-loopback address: device_ids and device keys cross the network readable by anyone on the path; ${ADVICE[listener]}`,
      { listener, address: bound.address, port: bound.port });
  };
  if (server.listening) check();
  else server.once('listening', check);
}
