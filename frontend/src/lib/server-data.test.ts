import { afterEach, describe, expect, it } from 'vitest';
import { dropServerData, holdServerView, resetServerData, revealApp, serverData } from '@/lib/server-data';

function serve(data: object) {
  const script = document.createElement('script');
  script.type = 'application/json';
  script.id = 'ssr-data';
  script.textContent = JSON.stringify(data);
  document.body.append(script);
  resetServerData();
}

afterEach(() => {
  document.getElementById('ssr-data')?.remove();
  window.history.replaceState(null, '', '/');
  resetServerData();
});

describe('serverData', () => {
  it('answers the data of its kind for the path it was rendered for', () => {
    window.history.replaceState(null, '', '/de/blog');
    serve({ kind: 'blogList', path: '/de/blog', data: { list: [], total: 0 } });
    expect(serverData('blogList')).toEqual({ list: [], total: 0 });
    expect(serverData('catalogue')).toBeUndefined();
    window.history.replaceState(null, '', '/blog');
    expect(serverData('blogList')).toBeUndefined();
  });

  it('is gone once the app moved on, and absent without the element', () => {
    window.history.replaceState(null, '', '/blog');
    serve({ kind: 'blogList', path: '/blog', data: { list: [], total: 0 } });
    dropServerData();
    expect(serverData('blogList')).toBeUndefined();
    document.getElementById('ssr-data')?.remove();
    resetServerData();
    expect(serverData('blogList')).toBeUndefined();
  });
});

describe('holdServerView', () => {
  it('keeps the server page in front of the hidden root until the app is revealed', () => {
    const root = document.createElement('div');
    root.id = 'root';
    root.innerHTML = '<main id="ssr-page"><h1>Explore</h1></main>';
    document.body.append(root);
    holdServerView(root);
    expect(root.hidden).toBe(true);
    expect(root.childNodes).toHaveLength(0);
    expect(document.getElementById('ssr-view')?.textContent).toBe('Explore');
    expect(root.previousElementSibling?.id).toBe('ssr-view');
    revealApp();
    expect(document.getElementById('ssr-view')).toBeNull();
    expect(root.hidden).toBe(false);
    root.remove();
  });

  it('leaves a page without server content alone', () => {
    const root = document.createElement('div');
    root.id = 'root';
    document.body.append(root);
    holdServerView(root);
    expect(root.hidden).toBe(false);
    expect(document.getElementById('ssr-view')).toBeNull();
    root.remove();
  });
});
