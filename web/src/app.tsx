// Signed in or not: GET /api/session decides at load. A session that ends while the page is
// open (a 401 from any call) brings the sign-in up as a dialog over the view, which stays as
// it was, typed edits included, so they can be saved again once signed in. Signing out, or
// revoking the key one signed in with, goes back to the sign-in page.
import { useEffect, useState } from 'preact/hooks';
import { api, get, onSessionEnded } from './api';
import { startLive, stopLive } from './live';
import type { SessionState } from './types';
import { Shell } from './views/shell';
import { SignIn, SignInDialog } from './views/sign-in';

type Session = 'checking' | 'in' | 'ended' | 'out';

/** What the sign-in page says when the page signed out by itself (the key one signed in with was revoked). */
let signedOutBecause = '';
let goOut: () => void = () => {};
export function signedOut(because: string): void { signedOutBecause = because; goOut(); }

export function App() {
  const [session, setSession] = useState<Session>('checking');
  useEffect(() => {
    onSessionEnded(() => { stopLive(); setSession((s) => (s === 'in' ? 'ended' : s)); });
    goOut = () => { stopLive(); setSession('out'); };
    get<SessionState>('/api/session').then((s) => setSession(s.signedIn ? 'in' : 'out'), () => setSession('out'));
  }, []);
  useEffect(() => { if (session === 'in') startLive(); }, [session]);

  if (session === 'checking') return <main id="main"><p class="loading">Loading…</p></main>;
  if (session === 'out') return <SignIn note={signedOutBecause} onSignedIn={() => { signedOutBecause = ''; setSession('in'); }} />;
  const signOut = async () => {
    // The views go first (and their pending reloads with them), then the session.
    stopLive();
    setSession('out');
    await new Promise((resolve) => setTimeout(resolve));
    await api('DELETE', '/api/session').catch(() => {});
  };
  return (
    <>
      <Shell onSignOut={signOut} />
      {session === 'ended' && <SignInDialog onSignedIn={() => setSession('in')} />}
    </>
  );
}
