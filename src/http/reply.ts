// What a handler returns; the server turns it into bytes in one place.
export interface Reply {
  status: number;
  json?: unknown;
  raw?: Buffer | string;
  type?: string;
  headers?: Record<string, string>;
}

export const ok = (json: unknown): Reply => ({ status: 200, json });
export const created = (json: unknown): Reply => ({ status: 201, json });
export const noContent = (): Reply => ({ status: 204 });
