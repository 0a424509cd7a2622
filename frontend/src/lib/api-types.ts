/** Wire shapes of API.md sections 1.3 and 4, shared by every feature. */
import { API_CODES, type ChatMessage } from '@/lib/wire-types';

export interface ApiEnvelope<T> {
  code: number;
  msg: string;
  success: boolean;
  data: T;
}

/** The codes of API.md 1.3, as the Rust server defines them (generated into wire-types.ts). */
export const ApiCode = API_CODES;

export type ApiCodeValue = (typeof ApiCode)[keyof typeof ApiCode];

export interface UserInfo {
  userId: string;
  userNo: string;
  userName: string;
  email: string | null;
  discordEmail: string | null;
  appleEmail: string | null;
  /** 0 free, above 0 paid. */
  userVipType: number;
  /** Token balance in integer units; shown divided by 10. */
  coin: number;
  userAvatar: string | null;
  utmSource: string | null;
  interestedGender?: number;
  nsfw?: boolean | number;
}

export interface CharacterCard {
  characterId: string;
  characterName: string;
  characterAge: number;
  introduction: string;
  characterPhoto: string;
  characterImageList: string[];
  /** 1 marks a locked character (lock icon on the card). */
  usedType: number;
  gender: number;
}

export interface SocialLinks {
  discord?: string;
  twitter?: string;
  youtube?: string;
  tiktok?: string;
  reddit?: string;
}

export interface WebConfig {
  defaultEnergy: { genVoiceCoin: number; genPictureCoin: number };
  social: SocialLinks;
  andoridDownloadUrl?: string;
  /** Which sign-in methods this deployment offers; null until the config has loaded. */
  signIn: SignInConfig | null;
}

/**
 * The sign-in part of WebConfig (docs/api.md): providers without a client id are off, and
 * without a Turnstile secret the server runs a development-only bot check (any token passes).
 */
export interface SignInConfig {
  googleEnabled: boolean;
  discordEnabled: boolean;
  botCheckMode: 'turnstile' | 'development';
  turnstileSiteKey?: string;
}

export interface ErrorReport {
  errorType: string;
  message: string;
  userAgent: string;
  url: string;
  userId: string;
  timestamp: number;
  stack: string;
}

export const Gender = { girls: 0, guys: 1 } as const;
export type GenderValue = (typeof Gender)[keyof typeof Gender];

export function isGender(value: unknown): value is GenderValue {
  return value === 0 || value === 1;
}

/** A character with what its pages show beyond the card (docs/api.md "Shapes, as served"). */
export interface Character extends CharacterCard {
  personality: string;
  scenario: string;
  greeting: string;
  tags: string[];
  /**
   * What a character card adds (docs/api.md "Created characters", issue 17): other first
   * messages the user may pick while the conversation holds only the greeting, and the
   * card's prompt parts. Empty when the card sets none; absent from older servers.
   */
  alternateGreetings?: string[];
  systemPrompt?: string;
  postHistoryInstructions?: string;
  exampleDialogue?: string;
  hasLorebook?: boolean;
  /** The creator's userId, sent only to the creator. */
  creatorId?: string;
}

/**
 * One message of a conversation (docs/api.md "Chat"), generated from the Rust server. Ids are
 * time-ordered decimal strings beyond JavaScript's safe integers: compare them with
 * `compareEntryIds`, never as numbers. A memory is a fact about the user a character keeps.
 */
export type { ChatMessage, Memory } from '@/lib/wire-types';

/**
 * What a reply's prompt recalled from beyond the recent messages (`chatDone.recalled`,
 * docs/api.md "Recall"): memories by `memoryId` and the user's earlier messages by
 * `messageId`, each with its text as the prompt held it.
 */
export type { Recalled, RecalledItem } from '@/lib/wire-types';

/**
 * The picture a character sent in chat (`ChatMessage.image`, docs/api.md "Images"), and one
 * of the user's generated images, as the Rust server generates them.
 */
export type { GalleryImage, MessageImage as ChatImage } from '@/lib/wire-types';

/** One spoken part of a message (docs/api.md "Voice"), in order from index 0. */
export interface VoicePart {
  index: number;
  url: string;
  durationMs: number;
  last: boolean;
}

/** One conversation of the chat list, most recently active first. */
export interface ChatSummary {
  characterId: string;
  characterName: string;
  characterPhoto: string;
  lastMessage: ChatMessage;
}

/** A reply still being written when a page was read: its id and the text so far. */
export interface ReplyingNow {
  replyId: string;
  content: string;
}

/** One page of history, newest first; `creditsLeft` is null for paid users (unlimited). */
export interface MessagePage {
  messages: ChatMessage[];
  hasMore: boolean;
  creditsLeft: number | null;
  /** The newest page only: the reply being written right now (docs/api.md "Chat polish"). */
  replying?: ReplyingNow | null;
}

/** Orders time-ordered ids (decimal strings of any length) without losing precision. */
export function compareEntryIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
