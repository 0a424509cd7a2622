/**
 * The queues' keyboard: j/k move the selection, d dismiss, h hide, a approve, r reject,
 * ? shows the keys. Keys typed into a field, or with a modifier, are not shortcuts.
 */
export type Shortcut = 'next' | 'previous' | 'dismiss' | 'hide' | 'approve' | 'reject' | 'restore' | 'remove' | 'help';

export const SHORTCUTS: { key: string; action: Shortcut; label: string }[] = [
  { key: 'j', action: 'next', label: 'Next item' },
  { key: 'k', action: 'previous', label: 'Previous item' },
  { key: 'd', action: 'dismiss', label: 'Dismiss the report' },
  { key: 'h', action: 'hide', label: 'Hide the character (report actioned)' },
  { key: 'a', action: 'approve', label: 'Approve the character' },
  { key: 'r', action: 'reject', label: 'Reject the character' },
  { key: 's', action: 'restore', label: 'Restore the image' },
  { key: 'x', action: 'remove', label: 'Remove the image' },
  { key: '?', action: 'help', label: 'Show these keys' },
];

interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  target?: EventTarget | null;
}

function isTyping(target: EventTarget | null | undefined): boolean {
  if (!target || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.closest('[role="dialog"]') !== null;
}

/** The shortcut a key press means, or null. */
export function shortcutOf(event: KeyLike): Shortcut | null {
  if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return null;
  return SHORTCUTS.find((s) => s.key === event.key)?.action ?? null;
}

/** The selection after a move among `count` items, kept in range. */
export function moveSelection(index: number, count: number, action: 'next' | 'previous'): number {
  if (count <= 0) return 0;
  const next = action === 'next' ? index + 1 : index - 1;
  return Math.min(count - 1, Math.max(0, next));
}
