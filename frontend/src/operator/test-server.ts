/**
 * The console's network in unit tests: `fetch` (the boundary) answered from a table of
 * `METHOD path` routes under `/lust/operator/api/`; an unknown route answers 404. Answers
 * the calls made, in order, for the tests to read.
 */
import { vi } from 'vitest';

export type Route = (body: Record<string, unknown> | null, query: URLSearchParams) => { status: number; body: unknown };

export function serve(routes: Record<string, Route>) {
  const calls: { path: string; query: string; body: Record<string, unknown> | null }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const [path = '', query = ''] = url.replace('/lust/operator/api/', '').split('?');
      const body = init.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : null;
      calls.push({ path, query, body });
      const route = routes[`${init.method} ${path}`];
      const reply = route
        ? route(body, new URLSearchParams(query))
        : { status: 404, body: { error: `no route ${path}` } };
      return new Response(JSON.stringify(reply.body), { status: reply.status });
    }),
  );
  return calls;
}
