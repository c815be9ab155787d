// The OpenAPI schema of a peer's access schedule (docs/schedules.md), spread into the Peer
// schema of the API's document (openapi-doc.ts).
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
