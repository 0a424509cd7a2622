/** Small shared pieces of the console's pages. */
import { errorText } from '@/operator/lib/api';

export function LoadError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="op-error" data-testid="load-error">
      {errorText(error)}
    </p>
  );
}

/** Seconds or milliseconds since the epoch, as a short UTC time. */
export function When({ at, ms = false }: { at: number | null | undefined; ms?: boolean }) {
  if (at === null || at === undefined) return <span className="op-muted">—</span>;
  const date = new Date(ms ? at : at * 1000);
  return <time dateTime={date.toISOString()}>{date.toISOString().slice(0, 16).replace('T', ' ')}</time>;
}
