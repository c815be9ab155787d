// OpenAPI schemas more than one description uses: a peer's access schedule
// (docs/schedules.md) and a client's AllowedIPs (a peer's, a server's default).
const hhmm = (end: boolean) => ({ type: 'string', pattern: end ? '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$' : '^([01][0-9]|2[0-3]):[0-5][0-9]$' });

export const SCHEDULE_SCHEMA = {
  type: ['object', 'null'],
  description: 'weekly windows of access in an IANA time zone; outside them the peer is off with reason "schedule". null: always on',
  required: ['timezone', 'windows'],
  additionalProperties: false,
  properties: {
    timezone: { type: 'string', description: 'IANA time zone such as Europe/Berlin (shown in its canonical spelling)' },
    windows: {
      type: 'array', minItems: 1, maxItems: 32,
      items: {
        type: 'object', required: ['days', 'from', 'to'], additionalProperties: false,
        properties: {
          days: { type: 'array', minItems: 1, items: { enum: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] }, description: 'the local days the window starts on' },
          from: { ...hhmm(false), description: 'local time the window opens' },
          to: { ...hhmm(true), description: 'local time it closes; at or before `from` it runs into the next day' },
        },
      },
    },
  },
} as const;

// A client's AllowedIPs: a mode or prefixes (IPv4 and IPv6).
export const CLIENT_ROUTES_SCHEMA = { oneOf: [{ enum: ['full', 'split'] }, { type: 'array', minItems: 1, maxItems: 64, items: { type: 'string' } }, { type: 'null' }] };
