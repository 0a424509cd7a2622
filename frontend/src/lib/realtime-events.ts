/**
 * Server → client WebSocket events (API.md section 5, docs/api.md "WebSocket"): text frames
 * `{"event": NAME, "data": {...}}`. One schema describes each event's fields; the
 * TypeScript union is derived from it, the parser checks incoming frames against it, and
 * `realtime-events.test.ts` checks it against the events the Rust server builds
 * (`Frame::new` in actors/ and server/), so the two cannot drift apart unnoticed.
 *
 * Events another screen owns (chat, memories) are added here when that screen reads them;
 * until then the parser drops them like any unknown event.
 */

type FieldKind = 'string' | 'number';

export const SERVER_EVENT_SCHEMA = {
  /** Right after connecting. */
  hello: { userId: 'string', coin: 'number' },
  /** The balance or the account (VIP type) changed: refetch user info. */
  tokenCount: { coin: 'number' },
  /** Answer to the `ping` action. */
  pong: {},
  /** A frame the server could not act on; the socket stays open. */
  error: { code: 'number', msg: 'string' },
} as const satisfies Record<string, Record<string, FieldKind>>;

type Schema = typeof SERVER_EVENT_SCHEMA;
export type ServerEventName = keyof Schema;

type KindType<K extends FieldKind> = K extends 'string' ? string : number;
type DataOf<Fields> = { -readonly [F in keyof Fields]: Fields[F] extends FieldKind ? KindType<Fields[F]> : never };

/** Every server event, keyed by `event`. */
export type ServerEvent = { [E in ServerEventName]: { event: E; data: DataOf<Schema[E]> } }[ServerEventName];

/** The event named `E`. */
export type ServerEventOf<E extends ServerEventName> = Extract<ServerEvent, { event: E }>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEventName(name: unknown): name is ServerEventName {
  return typeof name === 'string' && Object.hasOwn(SERVER_EVENT_SCHEMA, name);
}

/**
 * Parses one text frame. Anything that is not JSON, not `{event, data}`, an unknown event,
 * or an event whose fields are missing or of the wrong type gives null: a client must
 * survive whatever arrives on the wire.
 */
export function parseServerEvent(text: unknown): ServerEvent | null {
  if (typeof text !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || !isEventName(value.event) || !isRecord(value.data)) return null;
  const fields: Record<string, FieldKind> = SERVER_EVENT_SCHEMA[value.event];
  const data: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(fields)) {
    const fieldValue = value.data[field];
    if (typeof fieldValue !== kind || (kind === 'number' && !Number.isFinite(fieldValue))) return null;
    data[field] = fieldValue;
  }
  return { event: value.event, data } as ServerEvent;
}
