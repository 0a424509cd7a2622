import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  gettingUserAtom,
  imageJobsAtom,
  showLoginTipAtom,
  store,
  userInfoAtom,
  userInfoFetchedAtom,
} from '@/app/store';
import GenerateImagePage from '@/features/images/components/generate-image-page';
import type { GalleryImage, UserInfo } from '@/lib/api-types';
import { EMPTY_JOBS } from '@/lib/image-jobs';
import { startRealtime } from '@/lib/realtime';
import { FakeSocket } from '@/test/fake-socket';
import { serveApi, type FakeReply } from '@/test/fake-api';

const PAID: UserInfo = {
  userId: 'u1',
  userNo: 'AB12CD',
  userName: 'mira',
  email: 'mira@example.com',
  discordEmail: null,
  appleEmail: null,
  userVipType: 1,
  coin: 500,
  userAvatar: '',
  utmSource: '',
  interestedGender: 0,
  nsfw: false,
};

const OPTIONS = {
  scenes: [
    { key: 'beach', nsfw: false },
    { key: 'bedroom', nsfw: false },
  ],
  outfits: [{ key: 'lingerie', nsfw: true }],
  poses: [{ key: 'selfie', nsfw: false }],
  styles: [{ key: 'anime', nsfw: false }],
  counts: [1, 2, 4],
  costPerImage: 20,
  illustration: true,
};
const CHARACTERS = [
  {
    characterId: 'gf-001',
    characterName: 'Mia',
    characterAge: 24,
    introduction: '',
    characterPhoto: '/media/portrait-gf-001-1',
    characterImageList: [],
    usedType: 0,
    gender: 0,
  },
];
const image = (imageId: string): GalleryImage => ({
  imageId,
  jobId: 'j1',
  characterId: 'gf-001',
  characterName: 'Mia',
  prompt: 'smiling',
  scene: 'beach',
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
});

let socket: FakeSocket;
let stop: () => void;

function renderPage(
  user: UserInfo | null,
  generate: FakeReply = { code: 200, data: { jobId: 'j1', imageIds: ['a', 'b'], coin: 460 } },
) {
  const calls = serveApi({
    '/user/v1/image/getImageOptions': { code: 200, data: OPTIONS },
    '/user/v1/character/getCharacterList': { code: 200, data: CHARACTERS },
    '/user/v1/image/generate': generate,
    '/user/v1/image/cancel': { code: 200, data: true },
  });
  act(() => {
    store.set(imageJobsAtom, EMPTY_JOBS);
    store.set(userInfoAtom, user);
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
    store.set(showLoginTipAtom, false);
  });
  stop = startRealtime({ createSocket: () => (socket = new FakeSocket()), refreshUser: async () => undefined });
  if (user) socket.say('hello', { userId: user.userId, coin: user.coin });
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={['/generateimage']}>
        <Routes>
          <Route path="/generateimage" element={<GenerateImagePage />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  );
  return calls;
}

beforeEach(() => {
  stop = () => undefined;
});
afterEach(() => {
  stop();
  act(() => store.set(userInfoAtom, null));
});

async function fillForm() {
  await screen.findByTestId('generate-form');
  fireEvent.click(await screen.findByRole('radio', { name: 'Mia' }));
  fireEvent.click(screen.getByRole('button', { name: 'Beach' }));
  fireEvent.change(screen.getByTestId('prompt-input'), { target: { value: '  smiling  ' } });
  fireEvent.click(screen.getByRole('radio', { name: '2' }));
}

describe('/generateimage', () => {
  it('shows the cost of the chosen count ÷ 10, the balance, the NSFW mark and the illustration note', async () => {
    renderPage(PAID);
    await fillForm();
    expect(screen.getByTestId('generate-cost')).toHaveTextContent('4 tokens');
    expect(screen.getByTestId('generate-balance')).toHaveTextContent('50 tokens');
    expect(screen.getByRole('button', { name: /Lingerie/ })).toHaveTextContent('18+');
    expect(screen.getByTestId('prompt-count')).toHaveTextContent('11 / 500');
    expect(screen.getByTestId('illustration-note')).toBeInTheDocument();
  });

  it('sends the request, then fills one tile per image as the events come, and shows a failure as refunded', async () => {
    const calls = renderPage(PAID);
    await fillForm();
    // Events may come before the answer: they are kept for it.
    socket.say('imageQueued', { jobId: 'j1', imageId: 'a', characterId: 'gf-001', position: 0 });
    fireEvent.click(screen.getByTestId('generate-button'));
    const job = await screen.findByTestId('image-job');
    expect(calls.find((c) => c.path === '/user/v1/image/generate')?.payload).toEqual({
      characterId: 'gf-001',
      scene: 'beach',
      prompt: 'smiling',
      count: 2,
    });
    const tiles = () =>
      within(job)
        .getAllByTestId('job-tile')
        .map((tile) => tile.dataset.status);
    expect(tiles()).toEqual(['queued', 'queued']);
    socket.say('imageProgress', { jobId: 'j1', imageId: 'a', progress: 0.4 });
    expect(within(job).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '40');
    socket.say('imageDone', { jobId: 'j1', imageId: 'a', image: image('a') });
    expect(tiles()).toEqual(['done', 'queued']);
    expect(within(job).getByRole('img')).toHaveAttribute('src', '/media/img-a?w=750');
    expect(within(job).getByText('Illustration')).toBeInTheDocument();
    socket.say('imageFailed', {
      jobId: 'j1',
      imageId: 'b',
      reason: 'failed',
      code: 50000,
      msg: 'backend down',
      refunded: 20,
    });
    expect(tiles()).toEqual(['done', 'failed']);
    expect(within(job).getAllByText('2 tokens refunded').length).toBeGreaterThan(0);
    expect(job.dataset.ended).toBe('true');
  });

  it('cancels a running job', async () => {
    const calls = renderPage(PAID);
    await fillForm();
    fireEvent.click(screen.getByTestId('generate-button'));
    await screen.findByTestId('image-job');
    fireEvent.click(screen.getByTestId('job-cancel'));
    await waitFor(() => expect(calls.some((c) => c.path === '/user/v1/image/cancel')).toBe(true));
    expect(calls.find((c) => c.path === '/user/v1/image/cancel')?.payload).toEqual({ jobId: 'j1' });
    expect(screen.getByTestId('job-cancel')).toBeDisabled();
    socket.say('imageFailed', { jobId: 'j1', imageId: 'a', reason: 'cancelled', code: null, msg: '', refunded: 20 });
    socket.say('imageFailed', { jobId: 'j1', imageId: 'b', reason: 'cancelled', code: null, msg: '', refunded: 20 });
    expect(screen.getAllByText('Cancelled')).toHaveLength(2);
    expect(screen.queryByTestId('job-cancel')).toBeNull();
  });

  it('offers tokens instead of an error when the balance is short', async () => {
    renderPage({ ...PAID, coin: 10 }, { code: 40004, msg: 'not enough tokens' });
    await fillForm();
    fireEvent.click(screen.getByTestId('generate-button'));
    expect(await screen.findByTestId('need-pay-offer')).toHaveAttribute('data-paid', 'true');
    expect(screen.queryByTestId('image-job')).toBeNull();
  });

  it('explains a refused prompt in place', async () => {
    renderPage(PAID, { code: 10070, msg: 'content not allowed' });
    await fillForm();
    fireEvent.click(screen.getByTestId('generate-button'));
    expect(await screen.findByTestId('generate-error')).toHaveTextContent('community guidelines');
  });

  it('lets a signed-out visitor look, and asks them to sign in on Generate', async () => {
    const calls = renderPage(null);
    await screen.findByTestId('generate-form');
    expect(screen.queryByTestId('generate-balance')).toBeNull();
    fireEvent.click(screen.getByTestId('generate-button'));
    expect(store.get(showLoginTipAtom)).toBe(true);
    expect(calls.some((c) => c.path === '/user/v1/image/generate')).toBe(false);
  });
});
