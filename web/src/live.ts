// Follows GET /api/events (a WebSocket; the session cookie authorises it) and tells the
// views what changed. Usage messages (every peer's traffic and last handshake, after each
// collection) are kept here, so any view can show who is online. Reconnects with backoff
// while signed in.
import { useEffect, useState } from 'preact/hooks';
import { endSession, get } from './api';
import type { PeerUsage } from './types';

export interface LiveEvent { event: string; serverID: number; timestamp: string; data: Record<string, any> }
type Listener = (e: LiveEvent) => void;

/** Online means a handshake in the last 3 minutes (DESIGN.md). */
export const ONLINE_WINDOW_S = 180;

export const usage = new Map<number, PeerUsage>();
const listeners = new Set<Listener>();
const stateListeners = new Set<(s: LiveState) => void>();
export type LiveState = 'connecting' | 'live' | 'offline';
let state: LiveState = 'offline';
let socket: WebSocket | null = null;
let retryMs = 1000;
let retryTimer: number | undefined;
let wanted = false;

function setState(s: LiveState): void {
  state = s;
  for (const l of stateListeners) l(s);
}

function dispatch(e: LiveEvent): void {
  if (e.event === 'usage') {
    usage.clear();
    for (const p of (e.data.peers ?? []) as PeerUsage[]) usage.set(p.id, p);
  }
  for (const l of listeners) l(e);
}

function connect(): void {
  clearTimeout(retryTimer);
  setState('connecting');
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/events`);
  socket = ws;
  ws.onopen = () => { retryMs = 1000; setState('live'); };
  ws.onmessage = (m) => {
    try {
      dispatch(JSON.parse(String(m.data)) as LiveEvent);
    } catch { /* a message the page does not know: ignored */ }
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    setState('offline');
    if (!wanted) return;
    // A stream that closes may mean the session ended: then the sign-in, not a retry.
    get<{ signedIn: boolean }>('/api/session').then((s) => { if (!s.signedIn && wanted) endSession(); }, () => {});
    retryTimer = setTimeout(() => { if (wanted) connect(); }, retryMs) as unknown as number;
    retryMs = Math.min(retryMs * 2, 30_000);
  };
}

export function startLive(): void {
  wanted = true;
  if (!socket) connect();
}

export function stopLive(): void {
  wanted = false;
  clearTimeout(retryTimer);
  const ws = socket;
  socket = null;
  ws?.close(1000);
  usage.clear();
  setState('offline');
}

/** Calls `fn` for every event while the component is shown. */
export function useLive(fn: Listener, deps: unknown[]): void {
  useEffect(() => {
    listeners.add(fn);
    return () => { listeners.delete(fn); };
  }, deps);
}

export function useLiveState(): LiveState {
  const [s, set] = useState(state);
  useEffect(() => {
    stateListeners.add(set);
    return () => { stateListeners.delete(set); };
  }, []);
  return s;
}

export function isOnline(latestHandshake: number | undefined, nowMs = Date.now()): boolean {
  return latestHandshake !== undefined && latestHandshake > 0 && nowMs / 1000 - latestHandshake <= ONLINE_WINDOW_S;
}
