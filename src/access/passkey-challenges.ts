// The challenges of passkey ceremonies under way, kept in memory on the daemon: each is 32
// random bytes (made by the WebAuthn library), for one purpose (registering, signing in)
// and one owner, taken at most once and only within its lifetime. An answer carrying a
// challenge wgcpd never gave out, gave out for something else, or took already is refused
// before any signature is checked. A restart forgets ceremonies under way (start again).

/** How long a browser has to answer a challenge (WebAuthn's own prompt times out at 60 s). */
export const CHALLENGE_MS = 2 * 60_000;
/** Ceremonies kept at most: past it the oldest goes (a flood of starts cannot grow memory). */
export const CHALLENGES_MAX = 1000;

export interface Ceremony {
  purpose: 'register' | 'sign-in';
  /** The key or token, or the person, the ceremony is for; null: a passkey that names its owner itself (first factor). */
  owner: string | null;
}

export class PasskeyChallenges {
  private readonly pending = new Map<string, Ceremony & { until: number }>();

  constructor(private readonly nowMs: () => number) {}

  /** Keeps a challenge the WebAuthn library made (32 random bytes, base64url) for this ceremony. */
  keep(challenge: string, ceremony: Ceremony): void {
    const now = this.nowMs();
    for (const [k, v] of this.pending) if (v.until <= now) this.pending.delete(k);
    while (this.pending.size >= CHALLENGES_MAX) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(challenge, { ...ceremony, until: now + CHALLENGE_MS });
  }

  /** Takes a challenge: true only when it was given out for exactly this ceremony and is still live. Spent either way. */
  take(challenge: string, ceremony: Ceremony): boolean {
    const kept = this.pending.get(challenge);
    this.pending.delete(challenge);
    return kept !== undefined && kept.until > this.nowMs() && kept.purpose === ceremony.purpose && kept.owner === ceremony.owner;
  }
}

/** The challenge a browser's answer carries (in its clientDataJSON), or null when it carries none. */
export function challengeOf(response: unknown): string | null {
  const data = (response as { response?: { clientDataJSON?: unknown } } | null)?.response?.clientDataJSON;
  if (typeof data !== 'string' || data.length > 4096) return null;
  try {
    const c = (JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
    return typeof c === 'string' ? c : null;
  } catch {
    return null;
  }
}
