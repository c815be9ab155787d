// The descriptions the page reads, in the order their types are written
// (src/resources/page-types.ts).
import { DEVICE } from './device';
import { FORWARD } from './forward';
import { PEER } from './peer';
import { SERVER } from './server';
import { WEBHOOK } from './webhook';
import { CREDENTIAL } from './credential';
import { SHARE } from './share';
import { REGTOKEN } from './regtoken';

export const PAGE_RESOURCES = [SERVER, PEER, DEVICE, FORWARD, WEBHOOK, CREDENTIAL, SHARE, REGTOKEN] as const;
