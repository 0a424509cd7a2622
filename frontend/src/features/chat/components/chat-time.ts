/** When a message was written, as the conversation list shows it: the time today, else the date. */
export function formatListTime(createdAt: number, language: string, now: number = Date.now()): string {
  const date = new Date(createdAt);
  const today = new Date(now);
  const sameDay = date.toDateString() === today.toDateString();
  if (sameDay) return new Intl.DateTimeFormat(language, { hour: '2-digit', minute: '2-digit' }).format(date);
  const sameYear = date.getFullYear() === today.getFullYear();
  return new Intl.DateTimeFormat(
    language,
    sameYear ? { month: 'short', day: 'numeric' } : { dateStyle: 'short' },
  ).format(date);
}

/** The full date and time, for a message's tooltip. */
export function formatFullTime(createdAt: number, language: string): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(createdAt));
}
