/**
 * The group chats' HTTP calls (docs/api.md "Group chats (issue 31)"): groups, members,
 * history, the user's edits and deletes, and imports. Sending, "let them talk", picks,
 * stops, regenerate, continue and versions go over the WebSocket (`sendAction`), where the
 * members' replies stream.
 */
import { apiPost } from '@/lib/api-client';
import {
  ApiCode,
  type AddMemberRequest,
  type ChatSummary,
  type CreateGroupRequest,
  type EditGroupMessageRequest,
  type Group,
  type GroupMessage,
  type GroupMessageListRequest,
  type GroupMessageRequest,
  type GroupMessagePage,
  type GenderValue,
  type GroupRequest,
  type ImportChatRequest,
  type MemberRequest,
  type UpdateGroupRequest,
  type UpdateMemberRequest,
} from '@/lib/api-types';
import { getCharacterList } from '@/lib/character-list';

/** Characters offered from the catalogue when picking members. */
const CATALOGUE_PAGE_SIZE = 30;
/** History page size; the server's default. */
export const GROUP_PAGE_SIZE = 30;
/** A group holds 2–6 characters. */
export const MIN_MEMBERS = 2;
export const MAX_MEMBERS = 6;
/** `name` 1–60 characters, `scenario` at most 2,000, `talkCap` 1–10 (default 3). */
export const NAME_MAX_CHARS = 60;
export const SCENARIO_MAX_CHARS = 2000;
export const TALK_CAP_MIN = 1;
export const TALK_CAP_MAX = 10;
export const TALK_CAP_DEFAULT = 3;

/** A message of the user's: 1–2,000 characters. */
export const MESSAGE_MAX_CHARS = 2000;
/** What `group/importChat` reads of an export (docs/api.md): 8 MiB. */
export const IMPORT_MAX_BYTES = 8 * 1024 * 1024;

/** Refusals a form explains beside its fields instead of the generic notification. */
const EXPLAINED = [ApiCode.paramError, ApiCode.inputContentIllegal, ApiCode.notFound, ApiCode.rateLimited];

const PATH = '/user/v1/group';

export function createGroup(request: CreateGroupRequest) {
  return apiPost<Group>(`${PATH}/createGroup`, request, { handledCodes: EXPLAINED });
}

/** The most recently active first (newest message, else creation). */
export function getGroupList() {
  return apiPost<Group[]>(`${PATH}/getGroupList`, {});
}

export function getGroup(groupId: string) {
  return apiPost<Group>(`${PATH}/getGroup`, { groupId } satisfies GroupRequest, { handledCodes: [ApiCode.notFound] });
}

/** What is given changes; the rest stays. */
export function updateGroup(request: UpdateGroupRequest) {
  return apiPost<Group>(`${PATH}/updateGroup`, request, { handledCodes: EXPLAINED });
}

/** Seated last. */
export function addMember(groupId: string, characterId: string) {
  return apiPost<Group>(`${PATH}/addMember`, { groupId, characterId } satisfies AddMemberRequest, {
    handledCodes: EXPLAINED,
  });
}

export function removeMember(groupId: string, characterId: string) {
  return apiPost<Group>(`${PATH}/removeMember`, { groupId, characterId } satisfies MemberRequest, {
    handledCodes: EXPLAINED,
  });
}

/** A muted member never speaks until unmuted; talkativeness 0–100 weighs the natural order. */
export function updateMember(request: UpdateMemberRequest) {
  return apiPost<Group>(`${PATH}/updateMember`, request, { handledCodes: EXPLAINED });
}

export function deleteGroup(groupId: string) {
  return apiPost<boolean>(`${PATH}/deleteGroup`, { groupId } satisfies GroupRequest);
}

/** Newest first; `beforeId` = the oldest id held, for the page before it. */
export function getGroupMessageList(groupId: string, beforeId?: string) {
  return apiPost<GroupMessagePage>(
    `${PATH}/getMessageList`,
    { groupId, pageSize: GROUP_PAGE_SIZE, ...(beforeId ? { beforeId } : {}) } satisfies GroupMessageListRequest,
    { handledCodes: [ApiCode.notFound] },
  );
}

/** The characters the user already chats with (chat/getChatList), for picking members. */
export function getChattedCharacters() {
  return apiPost<ChatSummary[]>('/user/v1/chat/getChatList', {});
}

/** A page of the catalogue, as the home grid reads it. */
export function getCatalogue(gender: GenderValue) {
  return getCharacterList({ pageNo: 1, pageSize: CATALOGUE_PAGE_SIZE, gender });
}

/** Only the user's own messages; checked as a new message (1–2,000 characters, 10070). */
export function editGroupMessage(groupId: string, messageId: string, content: string) {
  return apiPost<GroupMessage>(
    `${PATH}/editMessage`,
    { groupId, messageId, content } satisfies EditGroupMessageRequest,
    { handledCodes: [ApiCode.paramError, ApiCode.inputContentIllegal, ApiCode.notFound] },
  );
}

/** Only the user's own messages. */
export function deleteGroupMessage(groupId: string, messageId: string) {
  return apiPost<boolean>(`${PATH}/deleteMessage`, { groupId, messageId } satisfies GroupMessageRequest);
}

/**
 * A new group whose history is a SillyTavern group chat export (`chat`, its JSONL text);
 * 10001 `chat: …` names the line or the speaker no member answers to.
 */
export function importGroupChat(request: ImportChatRequest) {
  return apiPost<Group>(`${PATH}/importChat`, request, { handledCodes: EXPLAINED });
}
