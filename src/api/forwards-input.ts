// A port forward body as the API takes it: protocol tcp|udp and ports 1-65535. Which router
// ports are free is the operation's rule (ops/forward-rules.ts).
import type { ForwardInput } from '../ops/forwards';
import { oneOf, readInt, required, type Body } from './fields';

export function parseForwardInput(body: Body): ForwardInput {
  const protocol = required(oneOf(body, 'protocol', ['tcp', 'udp'] as const), 'protocol');
  const listenPort = required(readInt(body, 'listenPort', 1, 65535), 'listenPort');
  // Left out, the device port is the router port.
  const targetPort = readInt(body, 'targetPort', 1, 65535) ?? listenPort;
  return { protocol, listenPort, targetPort };
}
