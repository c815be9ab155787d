// The WebAuthn library, alone in a chunk of its own: fetched (import()) at the first passkey
// ceremony, so the first load never carries it. It imports nothing of the page, so no
// part of the page is split out of the first script with it.
export { browserSupportsWebAuthn, startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
