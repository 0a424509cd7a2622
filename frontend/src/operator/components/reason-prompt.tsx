/**
 * The small prompt every acting button opens: a reason (1–500 characters, the audit keeps
 * it), optional extra fields (coins, plan) and an optional typed confirmation. Enter
 * confirms, Esc cancels. A refused call keeps the prompt open with the server's message.
 */
import { useState, type KeyboardEvent } from 'react';
import { errorText, MAX_REASON, reasonProblem } from '@/operator/lib/api';

export interface PromptField {
  name: string;
  label: string;
  type?: 'text' | 'number';
  initial?: string;
}

export interface PromptRequest {
  title: string;
  /** What the action does, in a sentence. */
  detail?: string;
  fields?: PromptField[];
  /** The operator must type this (a user number) before the action runs. */
  confirmText?: string;
  confirmLabel?: string;
  run: (reason: string, values: Record<string, string>) => Promise<unknown>;
}

export function ReasonPrompt({
  request,
  onDone,
  onCancel,
}: {
  request: PromptRequest;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries((request.fields ?? []).map((f) => [f.name, f.initial ?? ''])),
  );
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const confirm = async () => {
    if (busy) return;
    const problem = reasonProblem(reason);
    if (problem) return setError(problem);
    if (request.confirmText !== undefined && typed.trim() !== request.confirmText)
      return setError(`Type ${request.confirmText} to confirm.`);
    setBusy(true);
    setError(null);
    try {
      await request.run(reason.trim(), values);
      onDone();
    } catch (caught) {
      setError(errorText(caught));
      setBusy(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onCancel();
    } else if (event.key === 'Enter' && !event.shiftKey && !(event.target instanceof HTMLButtonElement)) {
      // Enter on a focused button is that button's own click (Cancel stays Cancel).
      event.preventDefault();
      void confirm();
    }
  };

  return (
    <div className="op-backdrop" onKeyDown={onKeyDown}>
      <div role="dialog" aria-modal="true" aria-label={request.title} className="op-dialog" data-testid="reason-prompt">
        <h2>{request.title}</h2>
        {request.detail && <p className="op-muted">{request.detail}</p>}
        {(request.fields ?? []).map((field) => (
          <label key={field.name} className="op-field">
            <span>{field.label}</span>
            <input
              type={field.type ?? 'text'}
              value={values[field.name] ?? ''}
              data-testid={`prompt-${field.name}`}
              onChange={(e) => setValues((old) => ({ ...old, [field.name]: e.target.value }))}
            />
          </label>
        ))}
        {request.confirmText !== undefined && (
          <label className="op-field">
            <span>Type {request.confirmText} to confirm</span>
            <input value={typed} data-testid="prompt-confirm-text" onChange={(e) => setTyped(e.target.value)} />
          </label>
        )}
        <label className="op-field">
          <span>Reason (kept in the audit)</span>
          <input
            autoFocus
            value={reason}
            maxLength={MAX_REASON}
            data-testid="reason-input"
            onChange={(e) => setReason(e.target.value)}
          />
        </label>
        {error && (
          <p role="alert" className="op-error" data-testid="prompt-error">
            {error}
          </p>
        )}
        <div className="op-row">
          <button type="button" onClick={onCancel} data-testid="prompt-cancel">
            Cancel (Esc)
          </button>
          <button
            type="button"
            className="op-primary"
            disabled={busy}
            onClick={() => void confirm()}
            data-testid="prompt-confirm"
          >
            {request.confirmLabel ?? 'Confirm'} (Enter)
          </button>
        </div>
      </div>
    </div>
  );
}
