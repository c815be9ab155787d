// Failed page sign-ins, counted per source address and per credential, in fixed windows.
// An address with `failures` failures in its window is refused (429) until the window ends,
// and so is a credential with `failures` wrong two-factor codes from anywhere: guessing one
// key's codes from many addresses does not pass either.
//
// A success forgives only its own credential's failures: it takes them off its address's
// count and clears the credential's count. It leaves the address's count of other
// failures (unknown keys, other keys' wrong codes) as it is, so that signing in with one's
// own viewer key between guesses at another key's codes buys no more guesses.
// Memory is bounded: expired windows are dropped, and past `maxAddresses` the oldest go first.
export interface SignInLimit { failures: number; windowMs: number; maxAddresses?: number }

/** What a failure is counted against besides its address: a key or token's id, or none (an unknown key). */
export type SignInCredential = number | null;

interface AddressWindow { count: number; endsAt: number; byCredential: Map<number, number> }
interface CredentialWindow { count: number; endsAt: number }

const DEFAULT_MAX_ADDRESSES = 10_000;

export class SignInLimiter {
  private readonly addresses = new Map<string, AddressWindow>();
  private readonly credentials = new Map<number, CredentialWindow>();

  constructor(private readonly limit: SignInLimit, private readonly clock: () => number) {}

  /** Seconds until the address may try again, or 0 when it may try now. */
  addressBlockedFor(address: string): number {
    return this.wait(this.liveAddress(address));
  }

  /** Seconds until a code for this credential may be tried again, or 0 when it may be now. */
  credentialBlockedFor(credential: SignInCredential): number {
    return credential === null ? 0 : this.wait(this.liveCredential(credential));
  }

  recordFailure(address: string, credential: SignInCredential): void {
    const now = this.clock();
    let a = this.liveAddress(address);
    if (!a) {
      this.prune();
      a = { count: 0, endsAt: now + this.limit.windowMs, byCredential: new Map() };
      this.addresses.set(address, a);
    }
    a.count++;
    if (credential === null) return;
    a.byCredential.set(credential, (a.byCredential.get(credential) ?? 0) + 1);
    const c = this.liveCredential(credential);
    if (c) c.count++;
    else this.credentials.set(credential, { count: 1, endsAt: now + this.limit.windowMs });
  }

  /** A good key (and code, where one is needed): that credential's failures are forgiven, no others. */
  recordSuccess(address: string, credential: SignInCredential): void {
    if (credential === null) return;
    this.credentials.delete(credential);
    const a = this.liveAddress(address);
    const own = a?.byCredential.get(credential);
    if (!a || own === undefined) return;
    a.count -= own;
    a.byCredential.delete(credential);
  }

  private wait(w: { count: number; endsAt: number } | undefined): number {
    if (!w || w.count < this.limit.failures) return 0;
    return Math.max(1, Math.ceil((w.endsAt - this.clock()) / 1000));
  }

  private liveAddress(address: string): AddressWindow | undefined {
    const w = this.addresses.get(address);
    if (w && w.endsAt <= this.clock()) { this.addresses.delete(address); return undefined; }
    return w;
  }

  private liveCredential(id: number): CredentialWindow | undefined {
    const w = this.credentials.get(id);
    if (w && w.endsAt <= this.clock()) { this.credentials.delete(id); return undefined; }
    return w;
  }

  private prune(): void {
    const max = this.limit.maxAddresses ?? DEFAULT_MAX_ADDRESSES;
    if (this.addresses.size < max) return;
    const now = this.clock();
    for (const [a, w] of this.addresses) if (w.endsAt <= now) this.addresses.delete(a);
    // Map keeps insertion order: the first entries are the oldest windows.
    for (const a of this.addresses.keys()) {
      if (this.addresses.size < max) break;
      this.addresses.delete(a);
    }
  }
}
