// Schema migrations, applied in order and keyed on PRAGMA user_version: entry N moves the
// schema from version N to N+1. Never edit a shipped entry; append a new one (to the last
// file of src/store/schema/, or a new file joined here after it).
import { BASE_MIGRATIONS } from './schema/base';
import { ROUTER_MIGRATIONS } from './schema/router';
import { ACCESS_MIGRATIONS } from './schema/access';
import { FLEET_MIGRATIONS } from './schema/fleet';
import { PEOPLE_MIGRATIONS } from './schema/people';
import { NETWORKS_MIGRATIONS } from './schema/networks';
import { PASSKEY_MIGRATIONS } from './schema/passkeys';
import { HA_MIGRATIONS } from './schema/ha';
import { SITE_MIGRATIONS } from './schema/site';
import { HA_LINE_MIGRATIONS } from './schema/ha-lines';

export const MIGRATIONS: readonly string[] = [...BASE_MIGRATIONS, ...ROUTER_MIGRATIONS, ...ACCESS_MIGRATIONS, ...FLEET_MIGRATIONS, ...PEOPLE_MIGRATIONS, ...NETWORKS_MIGRATIONS, ...PASSKEY_MIGRATIONS, ...HA_MIGRATIONS, ...SITE_MIGRATIONS, ...HA_LINE_MIGRATIONS];
