/**
 * The Content and Users desks' new parts against a stubbed network (fetch is the boundary):
 * a scheduled post shows as Scheduled and a time to publish at is sent as seconds; the
 * Landing tab publishes the edited copy with the reason; a user's session is ended alone.
 */
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OperatorApp } from '@/operator/app';
import { serve } from '@/operator/test-server';
import { inputFromPublishAt } from '@/operator/lib/blog';

const ADMIN = { operatorId: 'op1', email: 'boss@amora.test', role: 'admin' };
const FILE = '---\nkey: news\ntitle: News\ndescription: What is new.\ndate: 2026-11-30\ncover: /c.svg\n---\n\nBody.\n';

function open(path: string) {
  window.history.pushState({}, '', path);
  return render(<OperatorApp />);
}

async function giveReason(reason: string) {
  const input = screen.getByTestId('reason-input');
  fireEvent.change(input, { target: { value: reason } });
  await act(async () => {
    fireEvent.keyDown(input, { key: 'Enter' });
  });
  await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
}

afterEach(() => {
  vi.unstubAllGlobals();
  window.history.pushState({}, '', '/');
});

/** The account every user-page test shows. */
const ACCOUNT = {
  userId: 'u1',
  userNo: '1001',
  email: 'a@b.c',
  userName: 'Ann',
  createdAt: 1,
  suspendedSince: null,
  vipType: 0,
  coin: 0,
};

describe('content and users desks', () => {
  it('shows a scheduled post with its time, sends a time to publish at, and unpublishes only what is on', async () => {
    const posts = [
      {
        key: 'news',
        title: 'News',
        date: '2026-11-30',
        description: 'd',
        publishAt: 1_800_000_000,
        state: 'scheduled',
      },
      { key: 'old', title: 'Old', date: '2024-01-01', description: 'd', publishAt: null, state: 'unpublished' },
    ];
    const calls = serve({
      'GET me': () => ({ status: 200, body: ADMIN }),
      'GET blog/posts': () => ({ status: 200, body: { posts } }),
      'GET blog/post': () => ({
        status: 200,
        body: { key: 'news', file: FILE, publishAt: 1_800_000_000, state: 'scheduled' },
      }),
      'POST blog/publish': () => ({ status: 200, body: { key: 'news', outcome: 'scheduled' } }),
    });
    open('/operator/content?tab=blog');
    const rows = await screen.findAllByTestId('blog-post-row');
    expect(within(rows[0]!).getByTestId('blog-state')).toHaveTextContent('Scheduled 2027-01-15 08:00');
    expect(within(rows[1]!).getByTestId('blog-state')).toHaveTextContent('Unpublished');
    expect(within(rows[0]!).queryByTestId('blog-unpublish')).toBeInTheDocument();
    expect(within(rows[1]!).queryByTestId('blog-unpublish')).not.toBeInTheDocument();

    fireEvent.click(within(rows[0]!).getByTestId('blog-edit'));
    const at = await screen.findByTestId('blog-publish-at');
    // The scheduled post keeps its time in the editor (local time).
    expect(at).toHaveValue(inputFromPublishAt(1_800_000_000));
    fireEvent.change(at, { target: { value: '2030-01-02T03:04' } });
    expect(screen.getByTestId('blog-publish')).toHaveTextContent('Schedule');
    fireEvent.click(screen.getByTestId('blog-publish'));
    await giveReason('monthly news');
    expect(calls.find((c) => c.path === 'blog/publish')?.body).toEqual({
      file: expect.stringContaining('key: news') as unknown,
      publishAt: Math.floor(new Date(2030, 0, 2, 3, 4).getTime() / 1000),
      reason: 'monthly news',
    });
  });

  it('publishes a landing page’s copy per language, starting from the shipped one', async () => {
    const shipped = { heading: 'Shipped', intro: 'Intro', points: ['one'], faq: [{ q: 'Q?', a: 'A.' }] };
    const calls = serve({
      'GET me': () => ({ status: 200, body: ADMIN }),
      'GET landing': () => ({
        status: 200,
        body: { topic: 'aiGay', lang: 'de', shipped, current: null, versions: [] },
      }),
      'POST landing/publish': () => ({ status: 200, body: { outcome: 'published' } }),
    });
    open('/operator/content?tab=landing');
    fireEvent.change(await screen.findByTestId('landing-topic'), { target: { value: 'aiGay' } });
    fireEvent.change(screen.getByTestId('landing-lang'), { target: { value: 'de' } });
    await waitFor(() =>
      expect(calls.some((c) => c.path === 'landing' && c.query === 'topic=aiGay&lang=de')).toBe(true),
    );
    const heading = await screen.findByTestId('landing-heading');
    expect(heading).toHaveValue('Shipped');
    expect(screen.getByTestId('landing-source')).toHaveTextContent('shipped with the app');

    fireEvent.change(heading, { target: { value: '' } });
    expect(screen.getByTestId('landing-problems')).toHaveTextContent('heading: required');
    expect(screen.getByTestId('landing-publish')).toBeDisabled();
    fireEvent.change(heading, { target: { value: 'Neu' } });
    fireEvent.change(screen.getByTestId('landing-points'), { target: { value: 'eins\n\nzwei' } });
    fireEvent.click(screen.getByTestId('landing-publish'));
    await giveReason('new season');
    expect(calls.find((c) => c.path === 'landing/publish')?.body).toEqual({
      topic: 'aiGay',
      lang: 'de',
      copy: { heading: 'Neu', intro: 'Intro', points: ['eins', 'zwei'], faq: [{ q: 'Q?', a: 'A.' }] },
      reason: 'new season',
    });
  });

  it('lists a user’s sessions and ends one alone', async () => {
    const sessions = [
      { sessionId: 'aaaaaaaaaaaaaaaa', createdAt: 1_764_000_000, expiresAt: 1_766_592_000 },
      { sessionId: 'bbbbbbbbbbbbbbbb', createdAt: 1_764_100_000, expiresAt: 1_766_692_000 },
    ];
    const calls = serve({
      'GET me': () => ({ status: 200, body: ADMIN }),
      'GET user': () => ({
        status: 200,
        body: { account: ACCOUNT, ledger: [], orders: [], reportsMade: [], sessions },
      }),
      'POST user/endSession': () => ({ status: 200, body: { outcome: 'sessionEnded' } }),
    });
    open('/operator/users/1001');
    const rows = await screen.findAllByTestId('session-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('aaaaaaaaaaaaaaaa');
    fireEvent.click(within(rows[1]!).getByTestId('session-end'));
    await giveReason('lost phone');
    expect(calls.find((c) => c.path === 'user/endSession')?.body).toEqual({
      user: '1001',
      session: 'bbbbbbbbbbbbbbbb',
      reason: 'lost phone',
    });
    expect(calls.some((c) => c.path === 'user/endSessions')).toBe(false);
  });

  it("a user's page lists the reports on their characters with the decision, and their reported images", async () => {
    const received = [
      {
        reportId: '31',
        characterId: 'c9',
        characterName: 'Juniper',
        reporterId: 'u7',
        reason: 'spam',
        note: 'copies another card',
        createdAt: 1_764_000_000,
        decision: { decision: 'dismissed', operatorId: 'op1', at: 1_764_000_100 },
      },
      {
        reportId: '32',
        characterId: 'c9',
        characterName: 'Juniper',
        reporterId: 'u8',
        reason: 'hate',
        note: '',
        createdAt: 1_764_000_200,
        decision: null,
      },
    ];
    const images = [
      {
        feedId: '77',
        imageId: '76',
        url: '/media/img-76',
        characterName: null,
        reports: 3,
        hidden: true,
        hiddenAt: 1_764_000_300,
        sharedAt: 1_763_999_000_000,
      },
    ];
    serve({
      'GET me': () => ({ status: 200, body: ADMIN }),
      'GET user': () => ({
        status: 200,
        body: {
          account: ACCOUNT,
          ledger: [],
          orders: [],
          reportsMade: [],
          reportsReceived: received,
          imagesReported: images,
          sessions: [],
        },
      }),
    });
    open('/operator/users/1001');
    const rows = await screen.findAllByTestId('received-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Juniper');
    expect(rows[0]).toHaveTextContent('spam — copies another card');
    expect(rows[0]).toHaveTextContent('dismissed');
    expect(rows[1]).toHaveTextContent('open');
    expect(within(rows[1]!).getByRole('link', { name: 'u8' })).toHaveAttribute('href', '/operator/users/u8');
    const image = screen.getByTestId('reported-image');
    expect(image).toHaveTextContent('3 reporters, hidden from the feed');
    expect(within(image).getByRole('img')).toHaveAttribute('src', '/media/img-76');
  });
});
