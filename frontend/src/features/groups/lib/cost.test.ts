import { describe, expect, it } from 'vitest';
import { mostReplies } from '@/features/groups/lib/cost';
import type { GroupActivation } from '@/lib/api-types';

const seats = (...muted: boolean[]) =>
  muted.map((m, i) => ({
    characterId: `gf-00${i}`,
    characterName: `C${i}`,
    characterPhoto: '',
    muted: m,
    talkativeness: 50,
  }));
const group = (activation: GroupActivation, members = seats(false, false, false), allowSelfResponses = false) => ({
  activation,
  allowSelfResponses,
  talkCap: 2,
  members,
});

describe('mostReplies (domain::group::most_replies)', () => {
  it('a message: every unmuted member, none in a manual group', () => {
    expect(mostReplies(group('natural'), 'send')).toBe(3);
    expect(mostReplies(group('list', seats(false, true, false)), 'send')).toBe(2);
    expect(mostReplies(group('manual'), 'send')).toBe(0);
  });

  it('a pick: one, if anyone may speak', () => {
    expect(mostReplies(group('manual'), 'pick')).toBe(1);
    expect(mostReplies(group('natural', seats(true, true)), 'pick')).toBe(0);
  });

  it('let them talk: the cap, one for a lone speaker who may not answer itself', () => {
    expect(mostReplies(group('natural'), 'talk')).toBe(2);
    expect(mostReplies(group('natural', seats(false, true)), 'talk')).toBe(1);
    expect(mostReplies(group('natural', seats(false, true), true), 'talk')).toBe(2);
    expect(mostReplies(group('natural', seats(true, true)), 'talk')).toBe(0);
  });
});
