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

/** A labelled select of plain options (a document, a page, a language). */
export function Choice({
  label,
  value,
  options,
  onChange,
  testId,
  optionLabel = (option) => option,
}: {
  label: string;
  value: string;
  options: readonly string[];
  onChange: (value: string) => void;
  testId: string;
  optionLabel?: (option: string) => string;
}) {
  return (
    <label className="op-field">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        {options.map((option) => (
          <option key={option} value={option}>
            {optionLabel(option)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** What stops a form from being published, one line each; nothing when all is well. */
export function Problems({ problems, testId }: { problems: string[]; testId: string }) {
  if (problems.length === 0) return null;
  return (
    <ul className="op-error" data-testid={testId}>
      {problems.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  );
}
