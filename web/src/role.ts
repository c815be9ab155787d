// Who is signed in: the role, name and two-factor state of the session's key or token
// (GET /api/session). Views hide what the role cannot do; the API refuses it anyway.
export type Role = 'viewer' | 'operator' | 'admin';

export interface Who { role: Role; name: string; kind: string; credentialID: number | null; twoFactor: boolean | null }

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };
let who: Who = { role: 'viewer', name: '', kind: '', credentialID: null, twoFactor: null };

export function setWho(next: Who): void { who = next; }
export const currentWho = (): Who => who;
/** True when the signed-in role may do what `need` is required for. */
export const can = (need: Role): boolean => RANK[who.role] >= RANK[need];
