/**
 * The chat list holds the one-to-one conversations and, beside them, entries the app adds
 * from other features (group chats, issue 31): all of them most recently active first.
 */
import type { ChatSummary } from '@/lib/api-types';

/** An entry of another feature: when it was last active (ms) and what to show. */
export interface ListExtra<T> {
  key: string;
  activeAt: number;
  item: T;
  /** It is the one open beside the list. */
  active?: boolean;
  /** Where it opens (a wide screen opens the most recent entry rather than an empty pane). */
  to?: string;
}

export type ListEntry<T> = { kind: 'chat'; summary: ChatSummary } | { kind: 'extra'; extra: ListExtra<T> };

const activeAt = <T>(entry: ListEntry<T>) =>
  entry.kind === 'chat' ? entry.summary.lastMessage.createdAt : entry.extra.activeAt;

/** The conversations and the extras in one list, the most recently active first; ties keep conversations first. */
export function mergeByActivity<T>(chats: readonly ChatSummary[], extras: readonly ListExtra<T>[]): ListEntry<T>[] {
  const entries: ListEntry<T>[] = [
    ...chats.map((summary) => ({ kind: 'chat' as const, summary })),
    ...extras.map((extra) => ({ kind: 'extra' as const, extra })),
  ];
  // Array.prototype.sort is stable: equal times keep the order above.
  return entries.sort((a, b) => activeAt(b) - activeAt(a));
}
