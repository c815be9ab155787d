// Under each client option of a peer form, a line "Server default: …": what the peer gets
// while its own field is empty (emptying it goes back to that). The server is asked for
// without its peers; until it answers the hints stand alone.
import type { ComponentChildren } from 'preact';
import { get } from '../api';
import { useLoad } from '../load';
import type { Server } from '../types';
import { serverDefaultWords } from './server-defaults';

type Words = ReturnType<typeof serverDefaultWords>;

export function useServerDefaults(serverId: number | string, allowInternet: boolean): Words | undefined {
  const server = useLoad(() => get<Server>(`/api/servers/${serverId}?peers=none`), [serverId]);
  return server.data && serverDefaultWords(server.data, allowInternet);
}

/** The field's hint, with the server's default on its own line when known. */
export function withDefault(hint: string, words: Words | undefined, field: keyof Words): ComponentChildren {
  return words ? <>{hint}<span class="server-default">{words[field]}</span></> : hint;
}
