/**
 * The chat screen's HTTP calls (docs/api.md "Chat"): conversations, history pages, the
 * user's own messages and the memories panel. Sending, stopping, regenerating and saving
 * memories go over the WebSocket (`sendAction`), where the answers stream.
 */
import { apiPost } from '@/lib/api-client';
import {
  ApiCode,
  type AddMemoryRequest,
  type Character,
  type CharacterInfoRequest,
  type CharacterRef,
  type ChatMessage,
  type ChatSummary,
  type ChooseGreetingRequest,
  type DeleteMemoryRequest,
  type DeleteMessageRequest,
  type EditMessageRequest,
  type Memory,
  type MessageListRequest,
  type MessagePage,
  type PinMemoryRequest,
  type UpdateMemoryRequest,
} from '@/lib/api-types';

/** History page size; the server's default. */
export const MESSAGE_PAGE_SIZE = 30;
/** A message is 1–2,000 characters (trimmed), as the server enforces. */
export const MESSAGE_MAX_CHARS = 2000;
/** A memory is 1–200 characters. */
export const MEMORY_MAX_CHARS = 200;

/** Failures a form or the screen explains in place instead of the generic notification. */
const EXPLAINED = [ApiCode.paramError, ApiCode.inputContentIllegal, ApiCode.notFound, ApiCode.rateLimited];

/** POST /user/v1/character/getCharacterInfo: the header's portrait and name; 10006 when unknown or hidden. */
export function getCharacterInfo(characterId: string) {
  return apiPost<Character>('/user/v1/character/getCharacterInfo', { characterId } satisfies CharacterInfoRequest, {
    handledCodes: [ApiCode.notFound],
  });
}

/** POST chat/getChatList: the user's conversations, most recently active first. */
export function getChatList() {
  return apiPost<ChatSummary[]>('/user/v1/chat/getChatList', {});
}

/** POST chat/getMessageList: newest first; `beforeId` = the oldest id held, for the page before it. */
export function getMessageList(characterId: string, beforeId?: string) {
  return apiPost<MessagePage>(
    '/user/v1/chat/getMessageList',
    { characterId, pageSize: MESSAGE_PAGE_SIZE, ...(beforeId ? { beforeId } : {}) } satisfies MessageListRequest,
    { handledCodes: [ApiCode.notFound] },
  );
}

/** POST chat/deleteChat: the conversation and the character's memories of the user. */
export function deleteChat(characterId: string) {
  return apiPost<boolean>('/user/v1/chat/deleteChat', { characterId } satisfies CharacterRef);
}

/** POST chat/editMessage: only the user's own messages; checked like a new message (10070). */
export function editMessage(characterId: string, messageId: string, content: string) {
  return apiPost<ChatMessage>(
    '/user/v1/chat/editMessage',
    { characterId, messageId, content } satisfies EditMessageRequest,
    { handledCodes: EXPLAINED },
  );
}

/** POST chat/deleteMessage: only the user's own messages. */
export function deleteMessage(characterId: string, messageId: string) {
  return apiPost<boolean>('/user/v1/chat/deleteMessage', { characterId, messageId } satisfies DeleteMessageRequest);
}

/** POST memory/getMemoryList: newest first. */
export function getMemoryList(characterId: string) {
  return apiPost<Memory[]>('/user/v1/memory/getMemoryList', { characterId } satisfies CharacterRef, {
    handledCodes: [ApiCode.notFound],
  });
}

/** POST memory/addMemory: 1–200 characters, at most 100 per character. */
export function addMemory(characterId: string, content: string) {
  return apiPost<Memory>('/user/v1/memory/addMemory', { characterId, content } satisfies AddMemoryRequest, {
    handledCodes: EXPLAINED,
  });
}

/** POST memory/updateMemory: the memory becomes the user's own. */
export function updateMemory(characterId: string, memoryId: string, content: string) {
  return apiPost<boolean>(
    '/user/v1/memory/updateMemory',
    { characterId, memoryId, content } satisfies UpdateMemoryRequest,
    { handledCodes: EXPLAINED },
  );
}

/** POST memory/pinMemory: a pinned memory is in every prompt; at most 10 per character (10001 past it). */
export function pinMemory(characterId: string, memoryId: string, pinned: boolean) {
  return apiPost<Memory>('/user/v1/memory/pinMemory', { characterId, memoryId, pinned } satisfies PinMemoryRequest, {
    handledCodes: EXPLAINED,
  });
}

/** POST memory/deleteMemory. */
export function deleteMemory(characterId: string, memoryId: string) {
  return apiPost<boolean>('/user/v1/memory/deleteMemory', { characterId, memoryId } satisfies DeleteMemoryRequest);
}

/**
 * POST chat/chooseGreeting: while the conversation holds only the greeting, it becomes
 * `alternateGreetings[index - 1]` (0: the main greeting); 10001 once the conversation went on.
 */
export function chooseGreeting(characterId: string, index: number) {
  return apiPost<ChatMessage>('/user/v1/chat/chooseGreeting', { characterId, index } satisfies ChooseGreetingRequest, {
    handledCodes: [ApiCode.paramError, ApiCode.notFound],
  });
}
