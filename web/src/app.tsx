// Signed in or not: GET /api/session decides at load (and says with which role). A session
// that ends while the page is open (a 401 from any call) brings the sign-in up as a dialog
// over the view, which stays as it was, typed edits included, so they can be saved again
// once signed in. Signing out, or revoking the key one signed in with, goes back to the
// sign-in page.
import { useEffect, useState } from 'preact/hooks';
import { api, get, onSessionEnded, onSignedOut } from './api';
import { startLive, stopLive } from './live';
import { setWho, type Who } from './role';
import { Shell } from './views/shell';
import { SignIn, SignInDialog } from './views/sign-in';

type Session = 'checking' | 'in' | 'ended' | 'out';

async function checkSession(): Promise<Session> {
  const s = await get<{ signedIn: boolean } & Who>('/api/session');
  if (s.signedIn) setWho(s);
  return s.signedIn ? 'in' : 'out';
}

export function App() {
  const [session, setSession] = useState<Session>('checking');
  // What the sign-in page says when the page signed out by itself (the key one signed in with was revoked).
  const [because, setBecause] = useState('');
  useEffect(() => {
    onSessionEnded(() => { stopLive(); setSession((s) => (s === 'in' ? 'ended' : s)); });
    onSignedOut((text) => { stopLive(); setBecause(text); setSession('out'); });
    checkSession().then(setSession, () => setSession('out'));
  }, []);
  useEffect(() => { if (session === 'in') startLive(); }, [session]);

  if (session === 'checking') return <main id="main"><p class="loading">Loading…</p></main>;
  if (session === 'out') return <SignIn note={because} onSignedIn={() => { setBecause(''); checkSession().then(setSession, () => setSession('out')); }} />;
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
      {session === 'ended' && <SignInDialog onSignedIn={() => checkSession().then(setSession, () => setSession('out'))} />}
    </>
  );
}
