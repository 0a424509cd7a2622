import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { gettingUserAtom, showLoginTipAtom, store, userInfoAtom, userInfoFetchedAtom } from '@/app/store';
import GalleryPage from '@/features/images/components/gallery-page';
import type { GalleryImage, UserInfo } from '@/lib/api-types';
import { serveApi, type FakeReply } from '@/test/fake-api';

const USER = { userId: 'u1', userNo: 'AB12CD', userName: 'mira', userVipType: 1, coin: 400 } as UserInfo;

const image = (imageId: string, extra: Partial<GalleryImage> = {}): GalleryImage => ({
  imageId,
  jobId: 'j1',
  characterId: 'gf-001',
  characterName: 'Mia',
  prompt: `picture ${imageId}`,
  scene: null,
  outfit: null,
  pose: null,
  style: null,
  url: `/media/img-${imageId}`,
  width: 600,
  height: 800,
  nsfw: false,
  illustration: true,
  shared: false,
  createdAt: 1,
  ...extra,
});
const feedImage = (imageId: string, feedId: string) => ({
  feedId,
  imageId,
  url: `/media/img-${imageId}`,
  width: 600,
  height: 800,
  characterId: null,
  characterName: null,
  prompt: 'a lighthouse',
  sharedAt: 1,
});

/** An IntersectionObserver that reports every observed element as visible at once. */
class VisibleObserver {
  constructor(private readonly callback: IntersectionObserverCallback) {}
  observe(element: Element) {
    queueMicrotask(() =>
      this.callback(
        [{ isIntersecting: true, target: element } as IntersectionObserverEntry],
        this as unknown as IntersectionObserver,
      ),
    );
  }
  disconnect() {}
  unobserve() {}
}

function renderAt(path: string, user: UserInfo | null, routes: Record<string, FakeReply | FakeReply[]>) {
  const calls = serveApi(routes);
  act(() => {
    store.set(userInfoAtom, user);
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
    store.set(showLoginTipAtom, false);
  });
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/gallery" element={<GalleryPage />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  );
  return calls;
}

// Each page is a round trip through the encrypted envelope; on a loaded machine that takes a while.
const SLOW = { timeout: 5_000 };

beforeEach(() => {
  vi.stubGlobal('IntersectionObserver', VisibleObserver);
});
afterEach(() => {
  // Unmounted first: signing out under a mounted gallery would make it read the feed, and
  // that request would meet the next test's server.
  cleanup();
  act(() => store.set(userInfoAtom, null));
  vi.unstubAllGlobals();
});

describe('/gallery', () => {
  it('pages the user’s images newest first as the end comes into view, and filters by character', async () => {
    const calls = renderAt('/gallery', USER, {
      '/user/v1/image/getGalleryCharacters': {
        code: 200,
        data: [{ characterId: 'gf-001', characterName: 'Mia', characterPhoto: '/media/p', count: 3 }],
      },
      '/user/v1/image/getGallery': [
        { code: 200, data: { images: [image('9'), image('8')], hasMore: true } },
        { code: 200, data: { images: [image('7')], hasMore: false } },
        { code: 200, data: { images: [image('9')], hasMore: false } },
      ],
    });
    const grid = await screen.findByTestId('gallery-grid');
    await waitFor(() => expect(within(grid).getAllByTestId('gallery-image')).toHaveLength(3), SLOW);
    const pages = calls.filter((c) => c.path === '/user/v1/image/getGallery').map((c) => c.payload);
    expect(pages).toEqual([{ pageSize: 24 }, { pageSize: 24, beforeId: '8' }]);
    expect(screen.getByText(/That's everything/)).toBeInTheDocument();
    expect(
      within(grid)
        .getAllByRole('img')
        .map((img) => img.getAttribute('src')),
    ).toEqual(['/media/img-9?w=750', '/media/img-8?w=750', '/media/img-7?w=750']);

    fireEvent.click(screen.getByTestId('gallery-filter-character'));
    await waitFor(
      () => expect(within(screen.getByTestId('gallery-grid')).getAllByTestId('gallery-image')).toHaveLength(1),
      SLOW,
    );
    expect(calls.filter((c) => c.path === '/user/v1/image/getGallery').at(-1)?.payload).toEqual({
      pageSize: 24,
      characterId: 'gf-001',
    });
  });

  it('shares an image from the full view, and deletes one after confirming', async () => {
    const calls = renderAt('/gallery', USER, {
      '/user/v1/image/getGalleryCharacters': { code: 200, data: [] },
      '/user/v1/image/getGallery': { code: 200, data: { images: [image('9'), image('8')], hasMore: false } },
      '/user/v1/image/shareImage': { code: 200, data: image('9', { shared: true }) },
      '/user/v1/image/deleteImage': { code: 200, data: true },
    });
    const grid = await screen.findByTestId('gallery-grid');
    fireEvent.click(within(grid).getAllByRole('button', { name: 'Open the image' })[0]!);
    const lightbox = await screen.findByTestId('image-lightbox');
    expect(within(lightbox).getByTestId('lightbox-image')).toHaveAttribute('src', '/media/img-9?w=750');
    expect(within(lightbox).getByTestId('image-download')).toHaveAttribute('href', '/media/img-9');
    fireEvent.click(within(lightbox).getByTestId('image-share'));
    await waitFor(
      () => expect(within(lightbox).getByTestId('image-share')).toHaveAttribute('data-shared', 'true'),
      SLOW,
    );
    expect(calls.find((c) => c.path === '/user/v1/image/shareImage')?.payload).toEqual({ imageId: '9', shared: true });
    expect(within(grid).getAllByTestId('shared-badge')).toHaveLength(1);

    fireEvent.click(within(lightbox).getByTestId('image-delete'));
    const confirm = await screen.findByTestId('delete-image-dialog');
    expect(calls.some((c) => c.path === '/user/v1/image/deleteImage')).toBe(false);
    fireEvent.click(within(confirm).getByTestId('confirm-button'));
    await waitFor(() => expect(within(grid).getAllByTestId('gallery-image')).toHaveLength(1), SLOW);
    expect(calls.find((c) => c.path === '/user/v1/image/deleteImage')?.payload).toEqual({ imageId: '9' });
    expect(screen.queryByTestId('image-lightbox')).toBeNull();
  });

  it('shows a signed-out visitor the public feed, paged by the feed’s own ids, and asks them to sign in for their images', async () => {
    const calls = renderAt('/gallery', null, {
      '/user/v1/image/getFeed': [
        { code: 200, data: { images: [feedImage('5', 'f2')], hasMore: true } },
        { code: 200, data: { images: [feedImage('4', 'f1')], hasMore: false } },
      ],
    });
    expect(screen.getByTestId('gallery-page')).toHaveAttribute('data-tab', 'feed');
    await screen.findByTestId('feed-grid');
    await waitFor(() => expect(calls.filter((c) => c.path === '/user/v1/image/getFeed')).toHaveLength(2), SLOW);
    await waitFor(
      () => expect(within(screen.getByTestId('feed-grid')).getAllByTestId('gallery-image')).toHaveLength(2),
      SLOW,
    );
    expect(calls.filter((c) => c.path === '/user/v1/image/getFeed').map((c) => c.payload)).toEqual([
      { pageSize: 24 },
      { pageSize: 24, beforeId: 'f2' },
    ]);
    fireEvent.click(screen.getByTestId('gallery-tab-mine'));
    expect(await screen.findByTestId('gallery-signed-out')).toBeInTheDocument();
    expect(calls.some((c) => c.path === '/user/v1/image/getGallery')).toBe(false);
  });
  it('reports a feed image from the full view by its feed id; a visitor is asked to sign in first', async () => {
    const calls = renderAt('/gallery?tab=feed', USER, {
      '/user/v1/image/getFeed': { code: 200, data: { images: [feedImage('5', 'f2')], hasMore: false } },
      '/user/v1/report/reportContent': { code: 200, data: { reportId: 'r1' } },
    });
    const grid = await screen.findByTestId('feed-grid');
    fireEvent.click(within(grid).getByRole('button', { name: 'Open the image' }));
    fireEvent.click(within(await screen.findByTestId('image-lightbox')).getByTestId('feed-image-report'));
    const dialog = await screen.findByTestId('report-dialog');
    fireEvent.click(within(dialog).getByTestId('report-reason-minor'));
    fireEvent.click(within(dialog).getByTestId('report-submit'));
    await waitFor(() => expect(screen.queryByTestId('report-dialog')).toBeNull(), SLOW);
    expect(calls.find((c) => c.path === '/user/v1/report/reportContent')?.payload).toEqual({
      feedId: 'f2',
      reason: 'minor',
      note: '',
    });

    cleanup();
    renderAt('/gallery?tab=feed', null, {
      '/user/v1/image/getFeed': { code: 200, data: { images: [feedImage('5', 'f2')], hasMore: false } },
    });
    fireEvent.click(within(await screen.findByTestId('feed-grid')).getByRole('button', { name: 'Open the image' }));
    fireEvent.click(within(await screen.findByTestId('image-lightbox')).getByTestId('feed-image-report'));
    expect(store.get(showLoginTipAtom)).toBe(true);
    expect(screen.queryByTestId('report-dialog')).toBeNull();
  });
});
