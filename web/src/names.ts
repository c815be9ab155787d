// Server names the page has seen, so that a view reached directly (a peer's) can name its
// server without loading it whole (GET /api/servers/{id} carries every peer).
export const serverNames = new Map<number, string>();

export const serverLabel = (id: number): string => serverNames.get(id) ?? `server ${id}`;
