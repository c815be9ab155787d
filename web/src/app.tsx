// Signed in or not: GET /api/session decides at load (and says with which role); a 401
// from any call later brings the sign-in back. Signed in, the shell shows the view the
// address names and follows the event stream.
import { useEffect, useState } from 'preact/hooks';
import { api, get, onSessionEnded } from './api';
import { startLive, stopLive } from './live';
import { setWho, type Who } from './role';
import { Shell } from './views/shell';
import { SignIn } from './views/sign-in';

type Session = 'checking' | 'in' | 'out';

async function checkSession(): Promise<Session> {
  const s = await get<{ signedIn: boolean } & Who>('/api/session');
  if (s.signedIn) setWho(s);
  return s.signedIn ? 'in' : 'out';
}

export function App() {
  const [session, setSession] = useState<Session>('checking');
  useEffect(() => {
    onSessionEnded(() => { stopLive(); setSession('out'); });
    checkSession().then(setSession, () => setSession('out'));
  }, []);
  useEffect(() => { if (session === 'in') startLive(); }, [session]);

  if (session === 'checking') return <main id="main"><p class="loading">Loading…</p></main>;
  if (session === 'out') return <SignIn onSignedIn={() => checkSession().then(setSession, () => setSession('out'))} />;
  const signOut = async () => {
    // The views go first (and their pending reloads with them), then the session.
    stopLive();
    setSession('out');
    await new Promise((resolve) => setTimeout(resolve));
    await api('DELETE', '/api/session').catch(() => {});
  };
  return <Shell onSignOut={signOut} />;
}
