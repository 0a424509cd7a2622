/**
 * Top-of-page notifications, each shown for 3 seconds and titled Success, Info, Warning or
 * Error (spec section 8). Callable from anywhere, including the API client.
 */
import { type NotificationKind, notificationsAtom, store } from '@/app/store';
import { NOTIFICATION_DURATION_MS } from '@/lib/site';

let nextId = 1;

export function dismissNotification(id: number): void {
  store.set(notificationsAtom, (list) => list.filter((n) => n.id !== id));
}

function push(kind: NotificationKind, message: string): number {
  const id = nextId++;
  store.set(notificationsAtom, (list) => [...list, { id, kind, message }]);
  setTimeout(() => dismissNotification(id), NOTIFICATION_DURATION_MS);
  return id;
}

export const notify = {
  success: (message: string) => push('success', message),
  info: (message: string) => push('info', message),
  warning: (message: string) => push('warning', message),
  error: (message: string) => push('error', message),
};
