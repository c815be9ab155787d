// Name resolution that only hands out addresses the guard allows. The connection is made
// to exactly the addresses checked here (a `lookup` on the request, or the address given
// to the mailer), so a name cannot resolve to one address for the check and another for
// the connection.
import dns from 'node:dns';
import net from 'node:net';
import { canonicalHost, deliveryRefusalText, refusalOf, type GuardFacts } from './address-guard';

export type Resolve = (host: string) => Promise<dns.LookupAddress[]>;

export const systemResolve: Resolve = (host) => dns.promises.lookup(host, { all: true });

/** A connection the guard refused; its message is the delivery text ("refused: …"). */
export class AddressRefused extends Error {}

/** Every address of `host`, in the resolver's order; throws AddressRefused if any one is refused. */
export async function resolveAllowed(host: string, port: number, facts: GuardFacts, resolve: Resolve = systemResolve): Promise<dns.LookupAddress[]> {
  const name = canonicalHost(host);
  const family = net.isIP(name);
  // A name with one refused address is refused whole: which address gets used is not ours to pick.
  const addresses = family !== 0 ? [{ address: name, family }] : await resolve(name);
  for (const a of addresses) {
    const refusal = refusalOf(a.address, port, facts);
    if (refusal) throw new AddressRefused(deliveryRefusalText(refusal));
  }
  return addresses;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http.request / net.connect to `port`, checking against the facts of the moment. */
export function guardedLookup(port: number, facts: () => GuardFacts, resolve: Resolve = systemResolve) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolveAllowed(hostname, port, facts(), resolve).then((all) => {
      const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
      if (wanted.length === 0) {
        callback(Object.assign(new Error(`${hostname} has no IPv${String(options.family)} address`), { code: 'ENOTFOUND' }), '', 0);
      } else if (options.all) callback(null, wanted);
      else callback(null, wanted[0].address, wanted[0].family);
    }, (err: NodeJS.ErrnoException) => callback(err, '', 0));
  };
}
