// What a handler returns; the server turns it into bytes in one place.
export interface Reply {
  status: number;
  json?: unknown;
  raw?: Buffer | string;
  type?: string;
  headers?: Record<string, string>;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export const ok = (json: unknown): Reply => ({ status: 200, json });
/** 200 with a body that is JSON text already (made once, sent many times). */
export const okJsonText = (text: string): Reply => ({ status: 200, raw: text, type: JSON_TYPE });
export const created = (json: unknown): Reply => ({ status: 201, json });
export const noContent = (): Reply => ({ status: 204 });
