// Server names the page has seen, so that a view reached directly (a peer's, after a
// reload) names its server: a name not seen yet is asked for (the server without its peers).
import { useEffect, useState } from 'preact/hooks';
import { get } from './api';
import type { Server } from './types';

export const serverNames = new Map<number, string>();

export const serverLabel = (id: number): string => serverNames.get(id) ?? `server ${id}`;

/** The server's name: at once when seen before, else once GET /api/servers/{id}?peers=none answers. */
export function useServerName(id: number): string {
  const [name, setName] = useState(() => serverLabel(id));
  useEffect(() => {
    if (serverNames.has(id)) { setName(serverLabel(id)); return undefined; }
    let current = true;
    get<Server>(`/api/servers/${id}?peers=none`).then((s) => {
      serverNames.set(s.id, s.name);
      if (current) setName(s.name);
    }, () => {});
    return () => { current = false; };
  }, [id]);
  return name;
}
