/**
 * The most replies an action can bring, as the server counts them before charging
 * (docs/api.md "Group chats": `domain::group::most_replies`). Each reply costs what a
 * one-to-one reply costs: one free message for a free user, nothing for a paid one; the
 * user's own message costs nothing.
 */
import type { Group } from '@/lib/api-types';

export type GroupIntent = 'send' | 'pick' | 'talk';

export function mostReplies(
  group: Pick<Group, 'activation' | 'allowSelfResponses' | 'talkCap' | 'members'>,
  intent: GroupIntent,
): number {
  const unmuted = group.members.filter((member) => !member.muted).length;
  switch (intent) {
    case 'send':
      return group.activation === 'manual' ? 0 : unmuted;
    case 'pick':
      return unmuted > 0 ? 1 : 0;
    case 'talk':
      if (unmuted === 0) return 0;
      // A lone speaker who may not answer itself speaks once at most.
      if (unmuted === 1 && !group.allowSelfResponses) return 1;
      return group.talkCap;
  }
}
