// A server body as the API takes it: each field by its rule in the description
// (resources/server.ts), every bad field named at once. The rules that need the other
// servers are the operation's (ops/server-rules.ts).
import type { ServerInput } from '../ops/servers';
import { parseInput } from '../resources/describe';
import { SERVER } from '../resources/server';
import type { Body } from './fields';

export function parseServerInput(body: Body, now = new Date()): ServerInput {
  return parseInput(SERVER, body, { now }) as ServerInput;
}
