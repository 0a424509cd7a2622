// Generated from the Rust types by `scripts/wire-types` (actors/src/wire_types.rs): do not edit.
// The WebSocket vocabulary of docs/api.md, the API codes of API.md §1.3 and the chat shapes.

export type Speaker = "user" | "character";

export type MessageImage = { imageId: string, url: string, width: number, height: number, };

export type ReplySwipes = { index: number, count: number, };

export type ChatMessage = { messageId: string, speaker: Speaker, content: string, 
/**
 * Milliseconds since the epoch.
 */
createdAt: number, 
/**
 * The picture the message shows (asked for with `chat/requestPicture`); always sent
 * (`null` for text), optional in TypeScript so that text-only literals stay valid.
 */
image?: MessageImage | null, 
/**
 * On the newest reply, when it was written more than once: which of its versions it
 * shows (`chatSwipe` switches); `null` on every other message. Optional in TypeScript,
 * as `image` is.
 */
swipes?: ReplySwipes | null, };

export type MemoryOrigin = "extracted" | "user";

export type Memory = { memoryId: string, content: string, origin: MemoryOrigin, 
/**
 * Milliseconds since the epoch.
 */
createdAt: number, 
/**
 * Pinned by the user: in every prompt of the pair.
 */
pinned: boolean, };

export type RecalledItem = { id: string, content: string, };

export type Recalled = { memories: Array<RecalledItem>, messages: Array<RecalledItem>, };

export type ReplyEnd = "stop" | "length" | "cancelled";

export type PaymentStatus = "created" | "pending" | "paid" | "failed" | "expired" | "refunded";

export type GalleryImage = { imageId: string, jobId: string, characterId: string | null, characterName: string | null, prompt: string, scene: string | null, outfit: string | null, pose: string | null, style: string | null, url: string, width: number, height: number, nsfw: boolean, illustration: boolean, shared: boolean, 
/**
 * Milliseconds since the epoch.
 */
createdAt: number, };

export type FeedImage = { 
/**
 * The feed's own id (the paging cursor `beforeId`).
 */
feedId: string, imageId: string, url: string, width: number, height: number, characterId: string | null, characterName: string | null, prompt: string, 
/**
 * Milliseconds since the epoch.
 */
sharedAt: number, };

export type ImageFailure = "failed" | "refused" | "timedOut" | "cancelled";

export type VoicePart = { index: number, 
/**
 * `/media/voice-…`, an MP3.
 */
url: string, durationMs: number, 
/**
 * The message's last part.
 */
last: boolean, };

export type VoiceView = { voiceId: string, 
/**
 * 0 female, 1 male.
 */
gender: number, label: string, };

export type GroupMessage = { messageId: string, characterId: string | null, content: string, 
/**
 * Milliseconds since the epoch.
 */
createdAt: number, 
/**
 * Where a member's reply stands among its versions, when it has two or more (only the
 * newest reply's may be chosen, `groupSwipe`).
 */
swipes: ReplySwipes | null, };

export type ServerEvent = { "event": "hello", "data": { userId: string, coin: number, } } | { "event": "tokenCount", "data": { coin: number, } } | { "event": "pong", "data": Record<symbol, never> } | { "event": "error", "data": { code: number, msg: string, } } | { "event": "chatMessage", "data": { characterId: string, message: ChatMessage, } } | { "event": "chatDelta", "data": { characterId: string, replyId: string, delta: string, 
/**
 * Where the piece starts in the reply's text, in UTF-16 code units (as JavaScript
 * counts): a page read mid-reply (`replying`) and the pieces after it join exactly.
 */
offset: number, } } | { "event": "chatDone", "data": { characterId: string, replyId: string, message: ChatMessage | null, finishReason: ReplyEnd, 
/**
 * The reply stops mid-sentence at the token limit (`reply_was_cut`): offer Continue.
 */
cut: boolean, recalled: Recalled | null, } } | { "event": "chatError", "data": { characterId: string, replyId: string | null, code: number, msg: string, } } | { "event": "chatMessageDeleted", "data": { characterId: string, messageIds: Array<string>, } } | { "event": "chatDeleted", "data": { characterId: string, } } | { "event": "memorySaving", "data": { characterId: string, } } | { "event": "memorySaved", "data": { characterId: string, added: number, memories: Array<Memory>, } } | { "event": "paymentResult", "data": { orderId: string, productId: string, status: PaymentStatus, } } | { "event": "imageQueued", "data": { jobId: string, imageId: string, characterId: string | null, position: number, } } | { "event": "imageProgress", "data": { jobId: string, imageId: string, progress: number, } } | { "event": "imageDone", "data": { jobId: string, imageId: string, image: GalleryImage, } } | { "event": "imageFailed", "data": { jobId: string, imageId: string, reason: ImageFailure, code: number | null, msg: string, refunded: number, } } | { "event": "voicePart", "data": { characterId: string, messageId: string, part: VoicePart, } } | { "event": "voiceFailed", "data": { characterId: string, messageId: string, code: number, msg: string, refunded: number, } } | { "event": "groupMessage", "data": { groupId: string, message: GroupMessage, } } | { "event": "groupMessageDeleted", "data": { groupId: string, messageIds: Array<string>, } } | { "event": "groupDelta", "data": { groupId: string, characterId: string, replyId: string, delta: string, 
/**
 * Where the piece starts in the reply's text, in UTF-16 code units.
 */
offset: number, } } | { "event": "groupDone", "data": { groupId: string, characterId: string, replyId: string, message: GroupMessage | null, finishReason: ReplyEnd, 
/**
 * The reply stops mid-sentence at the token limit.
 */
cut: boolean, } } | { "event": "groupError", "data": { groupId: string, characterId: string | null, replyId: string | null, code: number, msg: string, } } | { "event": "groupIdle", "data": { groupId: string, replies: number, } };

export type ClientAction = { "action": "ping", "data": Record<symbol, never> } | { "action": "getBalance", "data": Record<symbol, never> } | { "action": "chatSend", "data": { characterId: string, content: string, } } | { "action": "chatStop", "data": { characterId: string, } } | { "action": "chatRegenerate", "data": { characterId: string, } } | { "action": "saveMemories", "data": { characterId: string, } } | { "action": "chatContinue", "data": { characterId: string, } } | { "action": "chatSwipe", "data": { characterId: string, messageId: string, index: number, } } | { "action": "groupSend", "data": { groupId: string, content: string, } } | { "action": "groupTalk", "data": { groupId: string, } } | { "action": "groupPick", "data": { groupId: string, characterId: string, } } | { "action": "groupStop", "data": { groupId: string, } } | { "action": "groupRegenerate", "data": { groupId: string, } } | { "action": "groupContinue", "data": { groupId: string, } } | { "action": "groupSwipe", "data": { groupId: string, messageId: string, index: number, } };

/** Every code an envelope or an `error` event can carry, by name. */
export const API_CODES = {
  success: 200,
  paramError: 10001,
  envelopeError: 10002,
  rateLimited: 10003,
  tokenInvalid: 10004,
  forbidden: 10005,
  notFound: 10006,
  reRegisterWait: 10007,
  botCheckFailed: 10008,
  accountPwdError: 10012,
  cannotPurchasePlan: 10018,
  inputContentIllegal: 10070,
  needPay: 40004,
  serverError: 50000,
} as const;

export type ApiCodeName = keyof typeof API_CODES;

/** The name of every server event and client action. */
export type ServerEventName = ServerEvent['event'];
export type ClientActionName = ClientAction['action'];
