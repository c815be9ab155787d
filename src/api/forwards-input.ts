// A port forward body as the API takes it: each field by its rule in the description
// (resources/forward.ts), every bad field at once. Which router ports are free is the
// operation's rule (ops/forward-rules.ts).
import type { ForwardInput } from '../ops/forwards';
import { parseInput } from '../resources/describe';
import { FORWARD } from '../resources/forward';
import type { Body } from './fields';

export function parseForwardInput(body: Body, now = new Date()): ForwardInput {
  const { protocol, listenPort, targetPort } = parseInput(FORWARD, body, { now });
  // Left out, the device port is the router port.
  return { protocol: protocol!, listenPort: listenPort!, targetPort: targetPort ?? listenPort! };
}
