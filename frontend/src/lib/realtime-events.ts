/**
 * Server → client WebSocket events (API.md section 5, docs/api.md "WebSocket"): text frames
 * `{"event": NAME, "data": {...}}`. The types come from the Rust server: `wire-types.ts` is
 * generated from its `ServerEvent` and `ClientAction` enums, and the Rust tests fail when the
 * file is out of date. Here, a runtime schema lets the parser check every incoming frame;
 * the compiler checks that the schema describes exactly the generated type, and
 * `realtime-events.test.ts` checks it against the event table of docs/api.md.
 */
import type {
  MessageImage as ChatImage,
  ChatMessage,
  GalleryImage,
  GroupMessage,
  Memory,
  Recalled,
  RecalledItem,
  VoicePart,
} from '@/lib/api-types';
import type { ClientAction as WireClientAction, ServerEvent as WireServerEvent } from '@/lib/wire-types';

/**
 * What a field holds, written the way the docs/api.md table shows it: `string`, `number`,
 * a shape of docs/api.md (`ChatMessage`, `Memory[]`), `string[]`, `…|null` when it may be
 * null, and `enum:a|b` for a string that is one of a fixed set.
 */
type FieldKind =
  | 'string'
  | 'number'
  | 'boolean'
  | 'number|null'
  | 'string|null'
  | 'string[]'
  | 'ChatMessage'
  | 'ChatMessage|null'
  | 'GroupMessage'
  | 'GroupMessage|null'
  | 'Memory[]'
  | 'Recalled|null'
  | 'GalleryImage'
  | 'VoicePart'
  | `enum:${string}`;

export const SERVER_EVENT_SCHEMA = {
  /** Right after connecting. */
  hello: { userId: 'string', coin: 'number' },
  /** The balance or the account (VIP type) changed: refetch user info. */
  tokenCount: { coin: 'number' },
  /** Answer to the `ping` action. */
  pong: {},
  /** A frame the server could not act on; the socket stays open. */
  error: { code: 'number', msg: 'string' },
  /** A message was stored: the user's (from any tab) or a new conversation's greeting. */
  chatMessage: { characterId: 'string', message: 'ChatMessage' },
  /** The next piece of a reply being written; `replyId` is the id the stored reply will have. */
  chatDelta: { characterId: 'string', replyId: 'string', delta: 'string', offset: 'number' },
  /** The reply is stored (`message` null: stopped before any text, nothing stored); `cut`: it stops mid-sentence at the token limit; `recalled`: what its prompt recalled. */
  chatDone: {
    characterId: 'string',
    replyId: 'string',
    message: 'ChatMessage|null',
    finishReason: 'enum:stop|length|cancelled',
    cut: 'boolean',
    recalled: 'Recalled|null',
  },
  /** A chat action was refused, or the reply failed (its partial text is dropped). */
  chatError: { characterId: 'string', replyId: 'string|null', code: 'number', msg: 'string' },
  /** Messages were removed (the old reply, on regenerate, or a delete in another tab). */
  chatMessageDeleted: { characterId: 'string', messageIds: 'string[]' },
  /** The whole conversation was deleted (in any tab): it leaves the list, and an open chat empties. */
  chatDeleted: { characterId: 'string' },
  /** Memories are being extracted (`isMemoriesSaving`). */
  memorySaving: { characterId: 'string' },
  /** Extraction ended; every memory of the pair, newest first. */
  memorySaved: { characterId: 'string', added: 'number', memories: 'Memory[]' },
  /** An order became paid, failed, expired or refunded (docs/api.md "Payments"). */
  paymentResult: {
    orderId: 'string',
    productId: 'string',
    status: 'enum:created|pending|paid|failed|expired|refunded',
  },
  /** Images (docs/api.md "Images"): one image of a new job is waiting; `position` images are ahead of it. */
  imageQueued: { jobId: 'string', imageId: 'string', characterId: 'string|null', position: 'number' },
  /** How far the backend is with an image (0–1), when it reports it. */
  imageProgress: { jobId: 'string', imageId: 'string', progress: 'number' },
  /** The image is stored and in the gallery. */
  imageDone: { jobId: 'string', imageId: 'string', image: 'GalleryImage' },
  /** The image failed, was refused, timed out or was cancelled; `refunded` coins went back. */
  imageFailed: {
    jobId: 'string',
    imageId: 'string',
    reason: 'enum:failed|refused|timedOut|cancelled',
    code: 'number|null',
    msg: 'string',
    refunded: 'number',
  },
  /** Voice (docs/api.md "Voice"): the next part of a message being spoken, in order. */
  voicePart: { characterId: 'string', messageId: 'string', part: 'VoicePart' },
  /** Speaking a message failed; `refunded` coins went back. */
  voiceFailed: { characterId: 'string', messageId: 'string', code: 'number', msg: 'string', refunded: 'number' },
  /** Group chats (docs/api.md "Group chats"): a message was stored or changed (the user's, an edit, a version chosen, a reply put back): merge by id. */
  groupMessage: { groupId: 'string', message: 'GroupMessage' },
  /** Messages left the group: the user deleted one, or `groupRegenerate` writes the newest reply again. */
  groupMessageDeleted: { groupId: 'string', messageIds: 'string[]' },
  /** The next piece of a member's reply; `characterId` is the member speaking. */
  groupDelta: { groupId: 'string', characterId: 'string', replyId: 'string', delta: 'string', offset: 'number' },
  /** A member's reply is stored (`message` null: stopped before any text). */
  groupDone: {
    groupId: 'string',
    characterId: 'string',
    replyId: 'string',
    message: 'GroupMessage|null',
    finishReason: 'enum:stop|length|cancelled',
    cut: 'boolean',
  },
  /** A group action was refused, or a member's reply failed: the round ends there. */
  groupError: {
    groupId: 'string',
    characterId: 'string|null',
    replyId: 'string|null',
    code: 'number',
    msg: 'string',
  },
  /** The round is over; `replies` members' replies were stored. */
  groupIdle: { groupId: 'string', replies: 'number' },
} as const satisfies Record<string, Record<string, FieldKind>>;

/**
 * The events of a voice call (issue 32, docs/api.md "Voice calls"). The server keeps them in
 * a vocabulary of its own beside `ServerEvent` (its `CallEvent`, handed to the call the socket
 * owns), which `wire-types.ts` does not generate yet; `realtime-events.test.ts` holds this
 * schema to the docs' table.
 */
export const CALL_EVENT_SCHEMA = {
  /** The call is open; its audio goes up as 16 kHz mono μ-law. */
  callStarted: {
    callId: 'string',
    characterId: 'string',
    voiceId: 'string',
    sampleRate: 'number',
    encoding: 'string',
    coinPerAnswer: 'number',
    language: 'string',
  },
  /** The server's detector heard the user start speaking. */
  callHearing: { callId: 'string' },
  /** The user's turn as recognised (`text` empty: nothing recognised, no turn). */
  callHeard: { callId: 'string', text: 'string', durationMs: 'number' },
  /** The next spoken part of the answer, sentence by sentence as it is written. */
  callSpeech: { callId: 'string', replyId: 'string', part: 'VoicePart' },
  /** A call action was refused (`callId` null: no call), or a turn failed and was dropped. */
  callError: { callId: 'string|null', code: 'number', msg: 'string' },
  /** The call is over; `answers` answers were spoken for `coinSpent` coins. */
  callEnded: { callId: 'string', reason: 'enum:user|coin|idle|error', answers: 'number', coinSpent: 'number' },
} as const satisfies Record<string, Record<string, FieldKind>>;

/** The actions of a voice call (docs/api.md "Voice calls"): the server's `CallAction`. */
export type CallAction =
  | { action: 'callStart'; data: { characterId: string } }
  | { action: 'callAudio'; data: { callId: string; seq: number; audio: string } }
  | { action: 'callInterrupt'; data: { callId: string } }
  | { action: 'callEnd'; data: { callId: string } };

const EVERY_EVENT_SCHEMA = { ...SERVER_EVENT_SCHEMA, ...CALL_EVENT_SCHEMA };

type Schema = typeof SERVER_EVENT_SCHEMA;
type EverySchema = typeof EVERY_EVENT_SCHEMA;
export type ServerEventName = keyof EverySchema;

type Split<S extends string> = S extends `${infer Head}|${infer Tail}` ? Head | Split<Tail> : S;
type KindType<K extends FieldKind> = K extends 'string'
  ? string
  : K extends 'number'
    ? number
    : K extends 'boolean'
      ? boolean
      : K extends 'number|null'
        ? number | null
        : K extends 'string|null'
          ? string | null
          : K extends 'string[]'
            ? string[]
            : K extends 'ChatMessage'
              ? ChatMessage
              : K extends 'ChatMessage|null'
                ? ChatMessage | null
                : K extends 'GroupMessage'
                  ? GroupMessage
                  : K extends 'GroupMessage|null'
                    ? GroupMessage | null
                    : K extends 'Memory[]'
                      ? Memory[]
                      : K extends 'Recalled|null'
                        ? Recalled | null
                        : K extends 'GalleryImage'
                          ? GalleryImage
                          : K extends 'VoicePart'
                            ? VoicePart
                            : K extends `enum:${infer Values}`
                              ? Split<Values>
                              : never;
type DataOf<Fields> = { -readonly [F in keyof Fields]: Fields[F] extends FieldKind ? KindType<Fields[F]> : never };

type SchemaEvent = { [E in keyof Schema]: { event: E; data: DataOf<Schema[E]> } }[keyof Schema];
type EveryEvent = { [E in ServerEventName]: { event: E; data: DataOf<EverySchema[E]> } }[ServerEventName];
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

type ServerEvents = WireServerEvent;

/** Fails to compile when the schema and the Rust server's events differ by an event or a field. */
export const SCHEMA_MATCHES_THE_SERVER: SameShape<SchemaEvent, ServerEvents> &
  SameShape<keyof Schema, ServerEvents['event']> = true;

/** Every server event, keyed by `event`: the Rust server's `ServerEvent` and its call events. */
export type ServerEvent = EveryEvent;

/** The event named `E`. */
export type ServerEventOf<E extends ServerEventName> = Extract<ServerEvent, { event: E }>;

/** Client → server actions (docs/api.md "Client → server"), keyed by `action`: the Rust server's `ClientAction` and `CallAction`. */
export type ClientAction = WireClientAction | CallAction;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEventName(name: unknown): name is ServerEventName {
  return typeof name === 'string' && Object.hasOwn(EVERY_EVENT_SCHEMA, name);
}

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** The picture of a message (`ChatMessage.image`), or undefined when it is not one. */
function readChatImage(value: unknown): ChatImage | undefined {
  if (!isRecord(value)) return undefined;
  const { imageId, url, width, height } = value;
  if (typeof imageId !== 'string' || typeof url !== 'string' || !isFiniteNumber(width) || !isFiniteNumber(height))
    return undefined;
  return { imageId, url, width, height };
}

/** `swipes` of a message: absent or null stays absent; anything else not `{index, count}` is invalid. */
function readSwipes(value: unknown): { index: number; count: number } | null | undefined {
  if (value === undefined || value === null) return null;
  if (!isRecord(value) || !isFiniteNumber(value.index) || !isFiniteNumber(value.count)) return undefined;
  return { index: value.index, count: value.count };
}

/** A ChatMessage as docs/api.md shapes it; extra fields are dropped. */
function readChatMessage(value: unknown): ChatMessage | undefined {
  if (!isRecord(value)) return undefined;
  const { messageId, speaker, content, createdAt } = value;
  if (typeof messageId !== 'string' || typeof content !== 'string' || !isFiniteNumber(createdAt)) return undefined;
  if (speaker !== 'user' && speaker !== 'character') return undefined;
  const message: ChatMessage = { messageId, speaker, content, createdAt };
  // A picture the character sent (issue 16); text messages have none (null or absent).
  if (value.image !== undefined && value.image !== null) {
    const image = readChatImage(value.image);
    if (!image) return undefined;
    message.image = image;
  }
  // The newest reply's place among its versions (issue 18); null or absent elsewhere.
  if (value.swipes !== undefined && value.swipes !== null) {
    const swipes = value.swipes;
    if (!isRecord(swipes) || !isFiniteNumber(swipes.index) || !isFiniteNumber(swipes.count)) return undefined;
    message.swipes = { index: swipes.index, count: swipes.count };
  }
  return message;
}

const isStringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** A GroupMessage as docs/api.md shapes it (`characterId` null: the user's); extra fields are dropped. */
function readGroupMessage(value: unknown): GroupMessage | undefined {
  if (!isRecord(value)) return undefined;
  const { messageId, characterId, content, createdAt } = value;
  if (typeof messageId !== 'string' || typeof content !== 'string' || !isFiniteNumber(createdAt)) return undefined;
  if (!isStringOrNull(characterId)) return undefined;
  // The newest reply's place among its versions; null (or absent) elsewhere.
  const swipes = readSwipes(value.swipes);
  if (swipes === undefined) return undefined;
  return { messageId, characterId, content, createdAt, swipes };
}

/** A GalleryImage as docs/api.md shapes it; extra fields are dropped. */
export function readGalleryImage(value: unknown): GalleryImage | undefined {
  if (!isRecord(value)) return undefined;
  const {
    imageId,
    jobId,
    characterId,
    characterName,
    prompt,
    scene,
    outfit,
    pose,
    style,
    url,
    width,
    height,
    nsfw,
    illustration,
    shared,
    createdAt,
  } = value;
  if (typeof imageId !== 'string' || typeof jobId !== 'string' || typeof url !== 'string') return undefined;
  if (!isStringOrNull(characterId) || !isStringOrNull(characterName) || typeof prompt !== 'string') return undefined;
  if (![scene, outfit, pose, style].every(isStringOrNull)) return undefined;
  if (!isFiniteNumber(width) || !isFiniteNumber(height) || !isFiniteNumber(createdAt)) return undefined;
  if (typeof nsfw !== 'boolean' || typeof illustration !== 'boolean' || typeof shared !== 'boolean') return undefined;
  return {
    imageId,
    jobId,
    characterId,
    characterName,
    prompt,
    scene: scene as string | null,
    outfit: outfit as string | null,
    pose: pose as string | null,
    style: style as string | null,
    url,
    width,
    height,
    nsfw,
    illustration,
    shared,
    createdAt,
  };
}

function readVoicePart(value: unknown): VoicePart | undefined {
  if (!isRecord(value)) return undefined;
  const { index, url, durationMs, last } = value;
  if (!isFiniteNumber(index) || typeof url !== 'string' || !isFiniteNumber(durationMs) || typeof last !== 'boolean')
    return undefined;
  return { index, url, durationMs, last };
}

function readMemory(value: unknown): Memory | undefined {
  if (!isRecord(value)) return undefined;
  const { memoryId, content, origin, createdAt, pinned } = value;
  if (typeof memoryId !== 'string' || typeof content !== 'string' || !isFiniteNumber(createdAt)) return undefined;
  if (origin !== 'extracted' && origin !== 'user') return undefined;
  if (typeof pinned !== 'boolean') return undefined;
  return { memoryId, content, origin, createdAt, pinned };
}

function readRecalledItem(value: unknown): RecalledItem | undefined {
  if (!isRecord(value)) return undefined;
  const { id, content } = value;
  return typeof id === 'string' && typeof content === 'string' ? { id, content } : undefined;
}

/** What a reply recalled (`chatDone.recalled`); extra fields are dropped. */
function readRecalled(value: unknown): Recalled | undefined {
  if (!isRecord(value)) return undefined;
  const memories = readArray(value.memories, readRecalledItem);
  const messages = readArray(value.messages, readRecalledItem);
  return memories && messages ? { memories, messages } : undefined;
}

/** Every element read by `read`, or undefined when the value is no array or one element fails. */
function readArray<T>(value: unknown, read: (item: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: T[] = [];
  for (const item of value) {
    const parsed = read(item);
    if (parsed === undefined) return undefined;
    out.push(parsed);
  }
  return out;
}

const NOT_VALID = Symbol('not valid');

/** The field's value as the kind says, or NOT_VALID. */
function readField(kind: FieldKind, value: unknown): unknown {
  if (kind.startsWith('enum:'))
    return typeof value === 'string' && kind.slice(5).split('|').includes(value) ? value : NOT_VALID;
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? value : NOT_VALID;
    case 'number':
      return isFiniteNumber(value) ? value : NOT_VALID;
    case 'boolean':
      return typeof value === 'boolean' ? value : NOT_VALID;
    case 'number|null':
      return value === null || isFiniteNumber(value) ? value : NOT_VALID;
    case 'string|null':
      return value === null || typeof value === 'string' ? value : NOT_VALID;
    case 'string[]':
      return readArray(value, (item) => (typeof item === 'string' ? item : undefined)) ?? NOT_VALID;
    case 'ChatMessage':
      return readChatMessage(value) ?? NOT_VALID;
    case 'ChatMessage|null':
      return value === null ? null : (readChatMessage(value) ?? NOT_VALID);
    case 'GroupMessage':
      return readGroupMessage(value) ?? NOT_VALID;
    case 'GroupMessage|null':
      return value === null ? null : (readGroupMessage(value) ?? NOT_VALID);
    case 'Memory[]':
      return readArray(value, readMemory) ?? NOT_VALID;
    case 'Recalled|null':
      return value === null ? null : (readRecalled(value) ?? NOT_VALID);
    case 'GalleryImage':
      return readGalleryImage(value) ?? NOT_VALID;
    case 'VoicePart':
      return readVoicePart(value) ?? NOT_VALID;
  }
  return NOT_VALID;
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
  const fields: Record<string, FieldKind> = EVERY_EVENT_SCHEMA[value.event];
  const data: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(fields)) {
    // A nullable field must still be present: `null`, not missing.
    if (!Object.hasOwn(value.data, field)) return null;
    const read = readField(kind, value.data[field]);
    if (read === NOT_VALID) return null;
    data[field] = read;
  }
  return { event: value.event, data } as ServerEvent;
}
