// The descriptions the page reads, in the order their types are written
// (src/resources/page-types.ts).
import { DEVICE } from './device';
import { PEER } from './peer';
import { SERVER } from './server';

export const PAGE_RESOURCES = [SERVER, PEER, DEVICE] as const;
