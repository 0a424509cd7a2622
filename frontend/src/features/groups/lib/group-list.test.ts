import { describe, expect, it } from 'vitest';
import { groupActiveAt, losesNewest, memberNames, withGroup, withGroupMessage } from '@/features/groups/lib/group-list';
import type { Group, GroupMessage } from '@/lib/api-types';

const member = (characterId: string, characterName: string) => ({
  characterId,
  characterName,
  characterPhoto: `/media/portrait-${characterId}-1`,
  muted: false,
  talkativeness: 50,
});

function group(groupId: string, createdAt: number, lastAt: number | null): Group {
  return {
    groupId,
    name: groupId,
    scenario: '',
    activation: 'natural',
    allowSelfResponses: false,
    talkCap: 3,
    members: [member('gf-001', 'Mia'), member('gf-002', 'Sofia Marin')],
    createdAt,
    lastMessage:
      lastAt === null
        ? null
        : { messageId: `${lastAt}000`, characterId: null, content: 'hi', createdAt: lastAt, swipes: null },
  };
}

describe('group list', () => {
  it('is active at its newest message, else at its creation', () => {
    expect(groupActiveAt(group('a', 100, 500))).toBe(500);
    expect(groupActiveAt(group('b', 100, null))).toBe(100);
  });

  it('moves a group with a new message to the top, and says when it does not hold it', () => {
    const list = [group('a', 1, 30), group('b', 1, 20), group('c', 1, 10)];
    const reply: GroupMessage = {
      messageId: '99000',
      characterId: 'gf-001',
      content: 'Hey',
      createdAt: 99,
      swipes: null,
    };
    const next = withGroupMessage(list, 'c', reply);
    expect(next?.map((g) => g.groupId)).toEqual(['c', 'a', 'b']);
    expect(next?.[0]?.lastMessage).toBe(reply);
    expect(withGroupMessage(list, 'zzz', reply)).toBeNull();
  });

  it('shows a change to the newest message in place, and ignores a change to an older one', () => {
    const list = [group('a', 1, 30), group('b', 1, 20)];
    const edited: GroupMessage = {
      messageId: '20000',
      characterId: null,
      content: 'hi again',
      createdAt: 20,
      swipes: null,
    };
    const next = withGroupMessage(list, 'b', edited);
    expect(next?.map((g) => g.groupId)).toEqual(['a', 'b']);
    expect(next?.[1]?.lastMessage).toBe(edited);
    const older: GroupMessage = { ...edited, messageId: '15000', content: 'an old edit' };
    expect(withGroupMessage(list, 'b', older)?.[1]?.lastMessage?.content).toBe('hi');
  });

  it('knows when a delete takes away the newest message it shows', () => {
    const list = [group('a', 1, 30), group('b', 1, null)];
    expect(losesNewest(list, 'a', ['30000'])).toBe(true);
    expect(losesNewest(list, 'a', ['29000'])).toBe(false);
    expect(losesNewest(list, 'b', ['30000'])).toBe(false);
  });

  it('puts a changed group in place and a new one first', () => {
    const list = [group('a', 1, 30), group('b', 1, 20)];
    const renamed = { ...group('b', 1, 20), name: 'Movie night' };
    expect(withGroup(list, renamed).map((g) => g.name)).toEqual(['a', 'Movie night']);
    expect(withGroup(list, group('n', 50, null)).map((g) => g.groupId)).toEqual(['n', 'a', 'b']);
  });

  it("lists the members' names in the reader's language", () => {
    expect(memberNames(group('a', 1, null), 'en')).toBe('Mia and Sofia Marin');
    expect(memberNames(group('a', 1, null), 'de')).toBe('Mia und Sofia Marin');
  });
});
