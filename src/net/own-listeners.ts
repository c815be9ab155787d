// The live facts the address guard needs: the listeners this wgcpd process serves (each as
// it is bound now, so port 0 in a configuration becomes the real port) and the host's own
// addresses. Process-wide rather than per App: mail is sent from places that hold no App,
// and a process is one daemon (a test process refusing its other daemons' ports is harmless).
import type net from 'node:net';
import os from 'node:os';
import type { GuardFacts } from './address-guard';

const listeners = new Set<net.Server>();

/** Called for each wgcpd listener; it is forgotten once it closes. */
export function registerOwnListener(server: net.Server): void {
  listeners.add(server);
  server.once('close', () => listeners.delete(server));
}

export function guardFacts(): GuardFacts {
  const bound = [...listeners].map((s) => s.address()).filter((a): a is net.AddressInfo => a !== null && typeof a === 'object');
  const localAddresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
  return { listeners: bound.map((a) => ({ address: a.address, port: a.port })), localAddresses };
}
