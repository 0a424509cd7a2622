import { describe, expect, it } from 'vitest';
import { groupActiveAt, memberNames, withGroup, withGroupMessage } from '@/features/groups/lib/group-list';
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
