import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useLoad, type LoadOptions } from '@/hooks/use-load';

/** A promise the test settles by hand, so answers can arrive in any order. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A server whose requests wait until the test answers them, one record per request. */
function fakeServer() {
  const requests: { id: string; signal: AbortSignal; answer: ReturnType<typeof deferred<string>> }[] = [];
  const request = (id: string) => (signal: AbortSignal) => {
    const answer = deferred<string>();
    requests.push({ id, signal, answer });
    return answer.promise;
  };
  /** The nth request made (from 0); fails the test when there is none. */
  const nth = (index: number) => {
    const made = requests[index];
    if (!made) throw new Error(`no request ${index}`);
    return made;
  };
  return { requests, request, nth };
}

function renderLoad(server: ReturnType<typeof fakeServer>, id: string, options?: LoadOptions) {
  return renderHook(
    ({ id, options }: { id: string; options?: LoadOptions }) =>
      useLoad((signal) => server.request(id)(signal), [id], options),
    { initialProps: { id, options } },
  );
}

describe('useLoad', () => {
  it('is loading until the answer, then holds it', async () => {
    const server = fakeServer();
    const { result } = renderLoad(server, 'a');
    expect(result.current).toMatchObject({ data: undefined, error: null, loading: true });
    expect(server.requests.map((r) => r.id)).toEqual(['a']);
    await act(async () => server.nth(0).answer.resolve('answer a'));
    expect(result.current).toMatchObject({ data: 'answer a', error: null, loading: false });
  });

  it('holds what the request threw', async () => {
    const server = fakeServer();
    const { result } = renderLoad(server, 'a');
    const failure = new Error('down');
    await act(async () => server.nth(0).answer.reject(failure));
    expect(result.current).toMatchObject({ data: undefined, error: failure, loading: false });
  });

  it('drops the answer of a request overtaken by new dependencies, even when it comes last', async () => {
    const server = fakeServer();
    const { result, rerender } = renderLoad(server, 'a');
    rerender({ id: 'b', options: undefined });
    // The render that sees the new dependencies already shows them loading, not a's state.
    expect(result.current).toMatchObject({ data: undefined, loading: true });
    expect(server.requests.map((r) => r.id)).toEqual(['a', 'b']);
    expect(server.nth(0).signal.aborted).toBe(true);
    expect(server.nth(1).signal.aborted).toBe(false);

    await act(async () => server.nth(1).answer.resolve('answer b'));
    expect(result.current.data).toBe('answer b');
    // The stale answer arrives after the fresh one and must not replace it.
    await act(async () => server.nth(0).answer.resolve('answer a'));
    expect(result.current).toMatchObject({ data: 'answer b', error: null, loading: false });
  });

  it('drops a stale failure too', async () => {
    const server = fakeServer();
    const { result, rerender } = renderLoad(server, 'a');
    rerender({ id: 'b', options: undefined });
    await act(async () => server.nth(0).answer.reject(new Error('late')));
    expect(result.current).toMatchObject({ error: null, loading: true });
  });

  it('aborts the request when the component unmounts', () => {
    const server = fakeServer();
    const { unmount } = renderLoad(server, 'a');
    unmount();
    expect(server.nth(0).signal.aborted).toBe(true);
  });

  it('asks again on reload, clearing the data unless told to keep it', async () => {
    const server = fakeServer();
    const { result } = renderLoad(server, 'a');
    await act(async () => server.nth(0).answer.resolve('first'));
    act(() => result.current.reload());
    expect(server.requests.map((r) => r.id)).toEqual(['a', 'a']);
    expect(result.current).toMatchObject({ data: undefined, loading: true });
    await act(async () => server.nth(1).answer.resolve('second'));
    expect(result.current).toMatchObject({ data: 'second', loading: false });

    const kept = fakeServer();
    const second = renderLoad(kept, 'a', { keepData: true });
    await act(async () => kept.nth(0).answer.resolve('first'));
    act(() => second.result.current.reload());
    expect(second.result.current).toMatchObject({ data: 'first', loading: true });
    await act(async () => kept.nth(1).answer.resolve('second'));
    expect(second.result.current).toMatchObject({ data: 'second', loading: false });
  });

  it('asks nothing while disabled and starts when enabled', async () => {
    const server = fakeServer();
    const { result, rerender } = renderLoad(server, 'a', { enabled: false });
    expect(result.current).toMatchObject({ data: undefined, loading: false });
    expect(server.requests).toHaveLength(0);
    rerender({ id: 'a', options: { enabled: true } });
    expect(result.current.loading).toBe(true);
    await waitFor(() => expect(server.requests).toHaveLength(1));
  });

  it('asks again when the refresh key changes, and not on a render with the same one', async () => {
    const server = fakeServer();
    const { result, rerender } = renderLoad(server, 'a', { refreshKey: 'user 1' });
    await act(async () => server.nth(0).answer.resolve('for user 1'));
    rerender({ id: 'a', options: { refreshKey: 'user 1' } });
    expect(server.requests).toHaveLength(1);
    rerender({ id: 'a', options: { refreshKey: 'user 2', keepData: true } });
    expect(server.requests).toHaveLength(2);
    expect(result.current).toMatchObject({ data: 'for user 1', loading: true });
    await act(async () => server.nth(1).answer.resolve('for user 2'));
    expect(result.current.data).toBe('for user 2');
  });

  it('changes the data in place with setData', async () => {
    const server = fakeServer();
    const { result } = renderLoad(server, 'a');
    await act(async () => server.nth(0).answer.resolve('answer'));
    act(() => result.current.setData((data) => `${data}!`));
    expect(result.current.data).toBe('answer!');
    expect(server.requests).toHaveLength(1);
  });
});
