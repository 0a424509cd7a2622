/** One prompt at a time for a page's acting buttons: `ask(request)` opens it, `prompt` renders it. */
import { useCallback, useState } from 'react';
import { ReasonPrompt, type PromptRequest } from '@/operator/components/reason-prompt';

export function useAction(onSuccess?: (title: string) => void) {
  const [request, setRequest] = useState<PromptRequest | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const ask = useCallback((next: PromptRequest) => {
    setDone(null);
    setRequest(next);
  }, []);
  const prompt = request ? (
    <ReasonPrompt
      key={request.title}
      request={request}
      onCancel={() => setRequest(null)}
      onDone={() => {
        setDone(`${request.title}: done`);
        setRequest(null);
        onSuccess?.(request.title);
      }}
    />
  ) : null;
  const notice = done ? (
    <p role="status" className="op-ok" data-testid="action-done">
      {done}
    </p>
  ) : null;
  return { ask, prompt, notice, open: request !== null };
}
