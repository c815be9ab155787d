// Signed in or not: GET /api/session decides at load (and says with which role). A session
// that ends while the page is open (a 401 from any call) brings the sign-in up as a dialog
// over the view, which stays as it was, typed edits included, so they can be saved again
// once signed in. Signing out, or revoking the key one signed in with, goes back to the
// sign-in page.
import { useEffect, useState } from 'preact/hooks';
import { api, get, onSessionEnded, onSignedOut } from './api';
import { startLive, stopLive } from './live';
import { t } from './i18n';
import { setWho, type Who } from './role';
import { Shell } from './views/shell';
import { SignIn, SignInDialog } from './views/sign-in';

type Session = 'checking' | 'in' | 'ended' | 'out';

/** Which ways in the sign-in offers (GET /api/session says, signed out). */
export interface WaysIn { singleSignOn: boolean; keySignIn: boolean }
let waysIn: WaysIn = { singleSignOn: false, keySignIn: true };

async function checkSession(): Promise<Session> {
  const s = await get<{ signedIn: boolean } & Who & Partial<WaysIn>>('/api/session');
  if (s.signedIn) setWho(s);
  waysIn = { singleSignOn: s.singleSignOn === true, keySignIn: s.keySignIn !== false };
  return s.signedIn ? 'in' : 'out';
}

/** Asks again which ways in there are, then shows the sign-in. */
const signInAgain = (show: (s: Session) => void) => checkSession().then(() => show('out'), () => show('out'));

export function App() {
  const [session, setSession] = useState<Session>('checking');
  // What the sign-in page says when the page signed out by itself (the key one signed in with was revoked).
  const [because, setBecause] = useState('');
  useEffect(() => {
    onSessionEnded(() => { stopLive(); setSession((s) => (s === 'in' ? 'ended' : s)); });
    onSignedOut((text) => { stopLive(); setBecause(text); void signInAgain(setSession); });
    checkSession().then(setSession, () => setSession('out'));
  }, []);
  useEffect(() => { if (session === 'in') startLive(); }, [session]);

  if (session === 'checking') return <main id="main"><p class="loading">{t('load.loading')}</p></main>;
  if (session === 'out') return <SignIn ways={waysIn} note={because} onSignedIn={() => { setBecause(''); checkSession().then(setSession, () => setSession('out')); }} />;
  const signOut = async () => {
    // The views go first (and their pending reloads with them), then the session.
    stopLive();
    setSession('checking');
    await new Promise((resolve) => setTimeout(resolve));
    const ended = await api<{ endSessionUrl?: string } | undefined>('DELETE', '/api/session').catch(() => undefined);
    // Signed in by single sign-on: signed out at the provider too, which comes back here.
    if (ended?.endSessionUrl) location.assign(ended.endSessionUrl);
    else await signInAgain(setSession);
  };
  return (
    <>
      <Shell onSignOut={signOut} />
      {session === 'ended' && <SignInDialog ways={waysIn} onSignedIn={() => checkSession().then(setSession, () => setSession('out'))} />}
    </>
  );
}
