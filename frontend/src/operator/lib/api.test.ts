import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorText, onSignedOut, opGet, opPost, OperatorApiError, reasonProblem } from '@/operator/lib/api';

function answer(status: number, body: unknown, raw = false) {
  const fetchMock = vi.fn(async () => new Response(raw ? String(body) : JSON.stringify(body), { status }));
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

afterEach(() => {
  vi.unstubAllGlobals();
  onSignedOut(null);
});

describe('operator API client', () => {
  it('GETs with the query and the same-origin cookie, no operator header', async () => {
    const fetchMock = answer(200, { users: [] });
    expect(await opGet('users', { q: 'a@b.c', empty: '', none: undefined })).toEqual({ users: [] });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/lust/operator/api/users?q=a%40b.c');
    expect(init.method).toBe('GET');
    expect(init.credentials).toBe('same-origin');
    expect(init.headers).toBeUndefined();
  });

  it('POSTs JSON with X-Amora-Operator: 1', async () => {
    const fetchMock = answer(200, { outcome: 'ok' });
    await opPost('suspend', { user: '1001', reason: 'spam' });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/lust/operator/api/suspend');
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({ 'Content-Type': 'application/json', 'X-Amora-Operator': '1' });
    expect(JSON.parse(init.body as string)).toEqual({ user: '1001', reason: 'spam' });
  });

  it("turns an error status into the server's message", async () => {
    answer(403, { error: 'orders needs the admin role; you are a moderator' });
    const error = await opPost('orders', { user: '1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperatorApiError);
    expect((error as OperatorApiError).status).toBe(403);
    expect(errorText(error)).toBe('orders needs the admin role; you are a moderator');
  });

  it('falls back to a sentence per status when the body is not the error JSON', async () => {
    answer(429, '<html>slow down</html>', true);
    await expect(opGet('audit')).rejects.toMatchObject({
      status: 429,
      message: expect.stringMatching(/Too many attempts/),
    });
    answer(503, { other: 1 });
    await expect(opGet('audit')).rejects.toMatchObject({ status: 503, message: expect.stringMatching(/try again/) });
  });

  it('calls the signed-out handler on 401 only', async () => {
    const signedOut = vi.fn();
    onSignedOut(signedOut);
    answer(404, { error: 'no user' });
    await expect(opGet('user', { user: 'x' })).rejects.toMatchObject({ status: 404 });
    expect(signedOut).not.toHaveBeenCalled();
    answer(401, { error: 'sign in as an operator' });
    await expect(opGet('me')).rejects.toMatchObject({ status: 401, message: 'sign in as an operator' });
    expect(signedOut).toHaveBeenCalledTimes(1);
  });

  it('a transport failure is status 0 with a connection message', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    await expect(opGet('me')).rejects.toMatchObject({ status: 0, message: expect.stringMatching(/cannot be reached/) });
  });

  it('checks reasons like the server: 1 to 500 characters', () => {
    expect(reasonProblem('   ')).toBe('A reason is required.');
    expect(reasonProblem('spam')).toBeNull();
    expect(reasonProblem('x'.repeat(500))).toBeNull();
    expect(reasonProblem('x'.repeat(501))).toMatch(/500/);
  });
});
