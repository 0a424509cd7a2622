/**
 * The data the server rendered the first page from (issue 34): `#ssr-data`, an inline JSON
 * document (data, never run) beside the body the server wrote for crawlers and browsers
 * without JavaScript. A page showing the same thing starts from it instead of asking the
 * API again, so the app takes over without a loading state and without a second request.
 *
 * It belongs to the path it was rendered for and to the visit that loaded the page: once
 * the app navigates elsewhere it is dropped, and a later visit asks the API as usual. The
 * server leaves the catalogue's lists out for a request with a session (a member may see
 * more than the signed-out page holds).
 */

export interface ServerData {
  /** `catalogue`, `topic`, `character`, `blogList` or `post`. */
  kind: string;
  /** The path (language prefix included) the page was rendered for. */
  path: string;
  data: unknown;
}

let held: ServerData | null | undefined;

function read(): ServerData | null {
  if (held === undefined) {
    held = null;
    const element = typeof document === 'undefined' ? null : document.getElementById('ssr-data');
    if (element?.textContent) {
      try {
        held = JSON.parse(element.textContent) as ServerData;
      } catch {
        held = null;
      }
    }
  }
  return held;
}

/** The server's data of `kind` for the page now shown, if the server rendered this page. */
export function serverData<T>(kind: string): T | undefined {
  const found = read();
  if (!found || found.kind !== kind || found.path !== window.location.pathname) return undefined;
  return found.data as T;
}

/** Forgets the server's data: the app moved on to another page. */
export function dropServerData(): void {
  held = null;
}

/** For tests: read `#ssr-data` again. */
export function resetServerData(): void {
  held = undefined;
}

/** How long the server's page may stay in front at most, should the app never say it is ready. */
export const REVEAL_AT_LATEST_MS = 5000;

/**
 * Keeps the server-rendered page on screen while the app renders its first screen out of
 * sight: React replaces its root's content at its first render, which would show the
 * splash and the lazy screen's fallback in between. The server's content moves to a
 * sibling (`#ssr-view`) and the root stays hidden until `revealApp`. Nothing happens on a
 * page the server rendered no content for.
 */
export function holdServerView(root: HTMLElement): void {
  const page = root.querySelector('#ssr-page');
  if (!page || document.getElementById('ssr-view')) return;
  const view = document.createElement('div');
  view.id = 'ssr-view';
  view.append(...Array.from(root.childNodes));
  root.before(view);
  root.hidden = true;
  setTimeout(revealApp, REVEAL_AT_LATEST_MS);
}

/**
 * The app's screen is ready: it replaces the server's page in one step (called by the
 * screens that start from the server's data once they show it, and on the first navigation).
 */
export function revealApp(): void {
  const view = document.getElementById('ssr-view');
  if (!view) return;
  view.remove();
  const root = document.getElementById('root');
  if (root) root.hidden = false;
}
