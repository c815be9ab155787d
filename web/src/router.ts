// Hash routes (#/servers/3): the server serves one page at `/`, and the address bar still
// names every view, so a view can be bookmarked, reloaded and gone back to.
import { useEffect, useState } from 'preact/hooks';

export function currentRoute(): string[] {
  const hash = location.hash;
  if (!hash.startsWith('#/')) return [];
  return hash.slice(2).split('/').filter(Boolean).map(decodeURIComponent);
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = () => setRoute((was) => {
      const now = currentRoute();
      return now.join('/') === was.join('/') ? was : now;
    });
    addEventListener('hashchange', changed);
    // The address may have changed between the first render and this subscription (a page
    // still loading when it was followed): read it once more.
    changed();
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export const href = (...parts: (string | number)[]): string => `#/${parts.map((p) => encodeURIComponent(String(p))).join('/')}`;

export function navigate(to: string): void { location.hash = to; }
