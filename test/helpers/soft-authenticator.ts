// A software WebAuthn authenticator for API-level tests: it answers wgcpd's options as a
// browser and a platform authenticator would (attestation "none", ES256 on P-256, a
// signature counter), written from the WebAuthn and CTAP2 texts with node:crypto and a
// small CBOR encoder of its own, so that wgcpd's checks (@simplewebauthn/server) are tested
// against an independent maker of answers. Each answer can be bent (origin, challenge,
// counter, type) to see that a check refuses it.
import crypto from 'node:crypto';

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) { const b = Buffer.alloc(3); b[0] = (major << 5) | 25; b.writeUInt16BE(n, 1); return b; }
  const b = Buffer.alloc(5); b[0] = (major << 5) | 26; b.writeUInt32BE(n, 1); return b;
}

export function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') { const b = Buffer.from(v, 'utf8'); return Buffer.concat([head(3, b.length), b]); }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

const b64u = (b: Uint8Array): string => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string): Buffer => crypto.createHash('sha256').update(b).digest();

/** What a test may bend in an answer. */
export interface Bend { origin?: string; challenge?: string; type?: string; counter?: number; rpID?: string; userVerified?: boolean }

interface Options { challenge: string; rp?: { id?: string }; rpId?: string; user?: { id: string } }

export class SoftAuthenticator {
  readonly id = crypto.randomBytes(16);
  private readonly keys = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  counter = 0;
  private userHandle = '';

  constructor(private readonly origin: string) {}

  get credentialId(): string { return b64u(this.id); }

  private authData(rpID: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpID), Buffer.from([flags]), c, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, bend: Bend): Buffer {
    return Buffer.from(JSON.stringify({ type: bend.type ?? type, challenge: bend.challenge ?? challenge, origin: bend.origin ?? this.origin, crossOrigin: false }));
  }

  /** The answer to registration options (navigator.credentials.create()). */
  create(options: Options, bend: Bend = {}): Record<string, unknown> {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const cose = cbor(new Map<Cbor, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(this.id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLen, this.id, cose]);
    const uv = bend.userVerified === false ? 0 : 0x04;
    const authData = this.authData(bend.rpID ?? options.rp?.id ?? '', 0x01 | uv | 0x40, this.counter, attested);
    const attestationObject = cbor(new Map<Cbor, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    this.userHandle = options.user?.id ?? '';
    return {
      id: this.credentialId, rawId: this.credentialId, type: 'public-key', clientExtensionResults: {},
      response: { clientDataJSON: b64u(this.clientData('webauthn.create', options.challenge, bend)), attestationObject: b64u(attestationObject), transports: ['internal'] },
    };
  }

  /** The answer to authentication options (navigator.credentials.get()); the counter moves on by one unless bent. */
  get(options: Options, bend: Bend = {}): Record<string, unknown> {
    this.counter = bend.counter ?? this.counter + 1;
    const uv = bend.userVerified === false ? 0 : 0x04;
    const authData = this.authData(bend.rpID ?? options.rpId ?? '', 0x01 | uv, this.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, bend);
    const signature = crypto.sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return {
      id: this.credentialId, rawId: this.credentialId, type: 'public-key', clientExtensionResults: {},
      response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: this.userHandle },
    };
  }
}
