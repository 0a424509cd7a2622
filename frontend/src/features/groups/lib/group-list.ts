/** The user's groups as the chat list holds them, and how stored messages reorder them. */
import type { Group, GroupMessage } from '@/lib/api-types';

/** When the group was last active: its newest message, else its creation (the server's order). */
export function groupActiveAt(group: Group): number {
  return group.lastMessage?.createdAt ?? group.createdAt;
}

/** The list with `message` as `groupId`'s newest, moved to the top; null when it is not listed. */
export function withGroupMessage(list: readonly Group[], groupId: string, message: GroupMessage): Group[] | null {
  const found = list.find((group) => group.groupId === groupId);
  if (!found) return null;
  return [{ ...found, lastMessage: message }, ...list.filter((group) => group !== found)];
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
