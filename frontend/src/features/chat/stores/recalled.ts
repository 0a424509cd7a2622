/**
 * What each reply remembered (docs/api.md "Recall"): `chatDone.recalled` names the memories
 * and earlier messages its prompt recalled, and the reply shows a note that opens them.
 * Kept by the reply's message id for the page's life (the server does not store it with
 * the reply, so a reload forgets it), for every character: a reply may end while its chat
 * is closed.
 */
import { recalledAtom, store } from '@/app/store';
import type { Recalled } from '@/lib/api-types';
import { onServerEvent } from '@/lib/realtime';
import type { ServerEvent } from '@/lib/realtime-events';

/** What replies recalled, by the reply's messageId; replies that recalled nothing have no entry. */
export type RecalledByReply = ReadonlyMap<string, Recalled>;

/** The map after one socket event; the same map when the event recalled nothing. */
export function nextRecalled(held: RecalledByReply, event: ServerEvent): RecalledByReply {
  if (event.event === 'chatDone') {
    const { message, recalled } = event.data;
    if (!message || !recalled || (recalled.memories.length === 0 && recalled.messages.length === 0)) return held;
    return new Map(held).set(message.messageId, recalled);
  }
  if (event.event === 'chatMessageDeleted' && event.data.messageIds.some((id) => held.has(id))) {
    const next = new Map(held);
    for (const id of event.data.messageIds) next.delete(id);
    return next;
  }
  return held;
}

/** A memory edited or deleted from a note: every note showing it shows it as it now is. */
export function memoryChanged(held: RecalledByReply, memoryId: string, content: string | null): RecalledByReply {
  let changed = false;
  const next = new Map<string, Recalled>();
  for (const [replyId, recalled] of held) {
    const memories = recalled.memories.flatMap((item) => {
      if (item.id !== memoryId) return [item];
      changed = true;
      return content === null ? [] : [{ id: item.id, content }];
    });
    next.set(replyId, { ...recalled, memories });
  }
  return changed ? next : held;
}

function apply(event: ServerEvent) {
  const before = store.get(recalledAtom);
  const after = nextRecalled(before, event);
  if (after !== before) store.set(recalledAtom, after);
}

/** Applies an edit or deletion of a memory to the notes. */
export function noteMemoryChanged(memoryId: string, content: string | null): void {
  const before = store.get(recalledAtom);
  const after = memoryChanged(before, memoryId, content);
  if (after !== before) store.set(recalledAtom, after);
}

let following = false;

/** Follows `chatDone` for every character from the first call on. */
export function followRecalled(): void {
  if (following) return;
  following = true;
  onServerEvent(apply);
}
