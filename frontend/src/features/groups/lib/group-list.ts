/** The user's groups as the chat list holds them, and how stored messages reorder them. */
import type { Group, GroupMessage } from '@/lib/api-types';
import { compareEntryIds } from '@/lib/entry-ids';

/** When the group was last active: its newest message, else its creation (the server's order). */
export function groupActiveAt(group: Group): number {
  return group.lastMessage?.createdAt ?? group.createdAt;
}

/**
 * The list after `message` of `groupId` was stored or changed; null when the group is not
 * listed. A new message becomes the group's newest and moves it to the top; a change to its
 * newest (an edit, a version chosen) is shown in place; a change to an older one is no news.
 */
export function withGroupMessage(list: readonly Group[], groupId: string, message: GroupMessage): Group[] | null {
  const found = list.find((group) => group.groupId === groupId);
  if (!found) return null;
  const newest = found.lastMessage;
  const order = newest ? compareEntryIds(message.messageId, newest.messageId) : 1;
  if (order < 0) return [...list];
  if (order === 0) return list.map((group) => (group === found ? { ...found, lastMessage: message } : group));
  return [{ ...found, lastMessage: message }, ...list.filter((group) => group !== found)];
}

/** Whether deleting `messageIds` of `groupId` takes away the newest message the list shows for it. */
export function losesNewest(list: readonly Group[], groupId: string, messageIds: readonly string[]): boolean {
  const newest = list.find((group) => group.groupId === groupId)?.lastMessage;
  return newest !== null && newest !== undefined && messageIds.includes(newest.messageId);
}

/** The list with `group` as the server now has it: in place when listed, else first. */
export function withGroup(list: readonly Group[], group: Group): Group[] {
  return list.some((g) => g.groupId === group.groupId)
    ? list.map((g) => (g.groupId === group.groupId ? group : g))
    : [group, ...list];
}

/** The members' names as a sentence's list: "Mia, Sofia and Lena" in the reader's language. */
export function memberNames(group: Pick<Group, 'members'>, language: string): string {
  const names = group.members.map((member) => member.characterName).filter((name) => name !== '');
  try {
    return new Intl.ListFormat(language, { style: 'long', type: 'conjunction' }).format(names);
  } catch {
    return names.join(', ');
  }
}
