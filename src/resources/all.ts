// The descriptions the page reads, in the order their types are written
// (src/resources/page-types.ts).
import { PEER } from './peer';

export const PAGE_RESOURCES = [PEER] as const;
