// The three roles a key, token or page session has, from least to most: a viewer reads, an
// operator also hands out peers and devices, an admin does everything.
import { ROLES, type Role } from '../resources/describe';

export { ROLES, type Role };

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** True when `have` may do what `need` is required for. */
export const roleAllows = (have: Role, need: Role): boolean => RANK[have] >= RANK[need];

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);
