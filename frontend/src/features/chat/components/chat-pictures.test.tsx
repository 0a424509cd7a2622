import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider, useAtomValue } from 'jotai';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { imageJobsAtom, store, userInfoAtom } from '@/app/store';
import { PendingPictures, PictureDialog } from '@/features/chat/components/chat-pictures';
import type { UserInfo } from '@/lib/api-types';
import { EMPTY_JOBS } from '@/lib/image-jobs';
import { dispatchJobs } from '@/lib/image-jobs-store';
import { serveApi, type FakeReply } from '@/test/fake-api';

function Harness({ open = true, onClose = () => undefined }: { open?: boolean; onClose?: () => void }) {
  const { jobs } = useAtomValue(imageJobsAtom);
  return (
    <>
      <PictureDialog open={open} characterId="gf-001" characterName="Mia" onClose={onClose} />
      <ol>
        <PendingPictures jobs={jobs} heldImageIds={new Set(['held'])} name="Mia" photo="" />
      </ol>
    </>
  );
}

function renderDialog(reply: FakeReply, onClose: () => void = () => undefined) {
  const calls = serveApi({ '/user/v1/chat/requestPicture': reply });
  render(
    <Provider store={store}>
      <MemoryRouter>
        <Harness onClose={onClose} />
      </MemoryRouter>
    </Provider>,
  );
  return calls;
}

beforeEach(() => {
  act(() => {
    store.set(imageJobsAtom, EMPTY_JOBS);
    store.set(userInfoAtom, { userId: 'u1', userVipType: 1, coin: 300 } as UserInfo);
  });
});
afterEach(() => {
  cleanup();
  act(() => store.set(userInfoAtom, null));
});

describe('a picture asked for in chat', () => {
  it('shows the cost and the balance, sends the wish, and follows the job in the conversation', async () => {
    let closed = false;
    const calls = renderDialog({ code: 200, data: { jobId: 'j7', imageIds: ['p1'] } }, () => (closed = true));
    expect(screen.getByTestId('picture-cost')).toHaveTextContent('Costs 2 tokens');
    expect(screen.getByText('Balance: 30')).toBeInTheDocument();
    fireEvent.change(screen.getByTestId('picture-wish'), { target: { value: ' at the beach ' } });
    fireEvent.click(screen.getByTestId('picture-ask'));
    await waitFor(() => expect(closed).toBe(true));
    expect(calls.find((c) => c.path === '/user/v1/chat/requestPicture')?.payload).toEqual({
      characterId: 'gf-001',
      prompt: 'at the beach',
    });
    expect(store.get(imageJobsAtom).jobs).toMatchObject([{ jobId: 'j7', origin: { chat: 'gf-001' } }]);
    expect(screen.getByTestId('picture-pending')).toHaveTextContent('Mia is taking a picture for you');

    act(() =>
      dispatchJobs({
        event: 'imageFailed',
        data: { jobId: 'j7', imageId: 'p1', reason: 'timedOut', code: 50000, msg: 'slow', refunded: 20 },
      }),
    );
    expect(screen.getByTestId('picture-failed')).toHaveTextContent('Took too long · 2 tokens refunded');
  });

  it('offers tokens when the balance is short, and keeps the dialog open', async () => {
    let closed = false;
    renderDialog({ code: 40004, msg: 'not enough tokens' }, () => (closed = true));
    fireEvent.click(screen.getByTestId('picture-ask'));
    expect(await screen.findByTestId('need-pay-offer')).toHaveAttribute('data-paid', 'true');
    expect(closed).toBe(false);
    expect(store.get(imageJobsAtom).jobs).toEqual([]);
  });

  it('says why a wish was refused', async () => {
    renderDialog({ code: 10070, msg: 'content not allowed' });
    fireEvent.click(screen.getByTestId('picture-ask'));
    expect(await screen.findByTestId('picture-error')).toHaveTextContent('community guidelines');
  });
});
