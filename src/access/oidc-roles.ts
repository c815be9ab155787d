// The role mapping of single sign-on (WGCP_OIDC_ROLES): which claim of the ID token gives
// which role. Rules are `role=claim:value`, separated by `;`; a person gets the highest role
// any rule gives, and none when no rule matches (then the sign-in is refused, never a
// viewer by default). `email_domain:` matches the domain of a verified email; any other
// claim matches when it equals the value or, as a list (`groups`, `roles`), holds it.
import { ROLES, isRole, roleAllows, type Role } from '../store/roles';

export interface RoleRule { role: Role; claim: string; value: string }

export class RoleMappingError extends Error {}

const CLAIM = /^[A-Za-z0-9_.:/-]{1,100}$/;

/** Parses `admin=groups:wgcp-admins;viewer=email_domain:example.com` into rules. */
export function parseRoleMapping(text: string): RoleRule[] {
  const rules: RoleRule[] = [];
  for (const raw of text.split(';').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z]+)\s*=\s*([^:]+):(.+)$/.exec(raw);
    if (!m) throw new RoleMappingError(`a rule must read role=claim:value (for example admin=groups:wgcp-admins), got "${raw}"`);
    const [, role, claim, value] = m;
    if (!isRole(role)) throw new RoleMappingError(`a rule's role must be one of ${ROLES.join(', ')}, got "${role}" in "${raw}"`);
    if (!CLAIM.test(claim.trim())) throw new RoleMappingError(`a rule's claim must be a claim name such as groups, roles or email_domain, got "${claim}" in "${raw}"`);
    rules.push({ role, claim: claim.trim(), value: value.trim() });
  }
  if (rules.length === 0) throw new RoleMappingError('at least one rule is needed: nobody could sign in');
  return rules;
}

function ruleMatches(rule: RoleRule, claims: Record<string, unknown>): boolean {
  if (rule.claim === 'email_domain') {
    // An unverified email proves nothing: anyone can type one at some providers.
    const email = claims.email;
    if (typeof email !== 'string' || claims.email_verified === false) return false;
    return email.slice(email.lastIndexOf('@') + 1).toLowerCase() === rule.value.toLowerCase();
  }
  const v = claims[rule.claim];
  if (Array.isArray(v)) return v.some((item) => String(item) === rule.value);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v) === rule.value;
  return false;
}

/** The highest role the rules give these claims, or null: no rule matches. */
export function roleOfClaims(rules: readonly RoleRule[], claims: Record<string, unknown>): Role | null {
  let best: Role | null = null;
  for (const rule of rules) {
    if (ruleMatches(rule, claims) && (best === null || !roleAllows(best, rule.role))) best = rule.role;
  }
  return best;
}
