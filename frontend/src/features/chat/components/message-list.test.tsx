import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { store, userInfoAtom } from '@/app/store';
import { MessageList, type MessageListProps } from '@/features/chat/components/message-list';
import { swipeDirection, SWIPE_MIN_PX } from '@/features/chat/components/swipe-bar';
import { EMPTY_THREAD, type ThreadState } from '@/features/chat/stores/chat-thread';
import type { ChatMessage, UserInfo } from '@/lib/api-types';

afterEach(() => act(() => store.set(userInfoAtom, null)));

const id = (n: number) => `17638100000000${String(n).padStart(5, '0')}`;
const said = (
  n: number,
  speaker: ChatMessage['speaker'],
  content: string,
  swipes?: ChatMessage['swipes'],
): ChatMessage => ({
  messageId: id(n),
  speaker,
  content,
  createdAt: 1_763_810_000_000 + n,
  ...(swipes ? { swipes } : {}),
});

function thread(messages: ChatMessage[], pending: ThreadState['pending'] = null): ThreadState {
  return { ...EMPTY_THREAD, messages, loaded: true, pending };
}

function renderList(state: ThreadState, props: Partial<MessageListProps> = {}) {
  const calls = {
    regenerate: vi.fn(),
    continue: vi.fn(),
    swipe: vi.fn(),
    edit: vi.fn(async () => ({ ok: true as const })),
  };
  act(() => store.set(userInfoAtom, { userId: 'u1', userName: 'Sam' } as UserInfo));
  const view = render(
    <Provider store={store}>
      <MessageList
        state={state}
        loadingOlder={false}
        characterName="Marisol"
        characterPhoto=""
        onLoadOlder={() => undefined}
        onRegenerate={calls.regenerate}
        onContinue={calls.continue}
        onSwipe={calls.swipe}
        onEdit={calls.edit}
        onDelete={async () => true}
        onReport={() => undefined}
        {...props}
      />
    </Provider>,
  );
  return { calls, view };
}

const conversation = (swipes?: ChatMessage['swipes']) => [
  said(1, 'character', 'Hello Sam.'),
  said(2, 'user', 'Tell me about the light.'),
  said(3, 'character', 'It was lit in 1871.', swipes),
];

describe('the newest reply’s versions', () => {
  it('show n/m with arrows that choose a version, and right past the last writes a new one', () => {
    const { calls } = renderList(thread(conversation({ index: 1, count: 3 })));
    expect(screen.getByTestId('swipe-count')).toHaveTextContent('2/3');
    expect(screen.getByTestId('swipe-count')).toHaveAttribute('aria-label', 'Version 2 of 3');
    fireEvent.click(screen.getByTestId('swipe-previous'));
    fireEvent.click(screen.getByTestId('swipe-next'));
    expect(calls.swipe.mock.calls).toEqual([
      [id(3), 0],
      [id(3), 2],
    ]);
    expect(calls.regenerate).not.toHaveBeenCalled();
  });

  it('at the last version: left goes back, right asks for a new version', () => {
    const { calls } = renderList(thread(conversation({ index: 2, count: 3 })));
    expect(screen.getByTestId('swipe-next')).toHaveAttribute('aria-label', 'Write another version');
    fireEvent.click(screen.getByTestId('swipe-next'));
    expect(calls.regenerate).toHaveBeenCalledTimes(1);
    expect(calls.swipe).not.toHaveBeenCalled();
  });

  it('are not shown for a reply written once, nor while a reply is written', () => {
    renderList(thread(conversation()));
    expect(screen.queryByTestId('swipe-bar')).toBeNull();
    renderList(thread(conversation({ index: 0, count: 2 }), { replyId: null, text: '' }));
    expect(screen.queryByTestId('swipe-bar')).toBeNull();
  });

  it('follow a sideways touch swipe on the reply, not a mouse drag or a scroll', () => {
    const { calls } = renderList(thread(conversation({ index: 1, count: 3 })));
    const bubble = screen.getAllByTestId('message-bubble').at(-1)!;
    const swipe = (pointerType: string, dx: number, dy: number) => {
      fireEvent.pointerDown(bubble, { pointerId: 7, pointerType, clientX: 200, clientY: 300 });
      fireEvent.pointerMove(bubble, { pointerId: 7, pointerType, clientX: 200 + dx / 2, clientY: 300 + dy / 2 });
      fireEvent.pointerUp(bubble, { pointerId: 7, pointerType, clientX: 200 + dx, clientY: 300 + dy });
    };
    swipe('touch', -120, 10);
    swipe('touch', 120, -5);
    swipe('mouse', -120, 0);
    swipe('touch', -120, 200);
    expect(calls.swipe.mock.calls).toEqual([
      [id(3), 2],
      [id(3), 0],
    ]);
  });

  it('read a swipe by its length and direction', () => {
    expect(swipeDirection(-SWIPE_MIN_PX, 0)).toBe('next');
    expect(swipeDirection(SWIPE_MIN_PX + 10, 20)).toBe('previous');
    expect(swipeDirection(-(SWIPE_MIN_PX - 1), 0)).toBeNull();
    expect(swipeDirection(-100, 60)).toBeNull();
  });
});

describe('continue', () => {
  it('is offered on the newest reply and shows its continuation in place', () => {
    const { calls, view } = renderList(thread(conversation()));
    fireEvent.click(screen.getByTestId('continue-reply'));
    expect(calls.continue).toHaveBeenCalledTimes(1);
    view.unmount();
    renderList(thread(conversation(), { replyId: id(3), text: 'and never went out.' }));
    expect(screen.queryByTestId('pending-reply')).toBeNull();
    expect(screen.getAllByTestId('message-bubble').at(-1)).toHaveTextContent('It was lit in 1871. and never went out.');
    expect(screen.queryByTestId('continue-reply')).toBeNull();
  });

  it('is not offered when the conversation ends with the user’s message or a picture', () => {
    renderList(thread(conversation().slice(0, 2)));
    expect(screen.queryByTestId('continue-reply')).toBeNull();
  });
});

describe('an edit of the message the newest reply answers', () => {
  it('offers to write the reply again; accepting regenerates, dismissing keeps it', async () => {
    const { calls } = renderList(thread(conversation()));
    const edit = async (content: string) => {
      const mine = screen.getAllByTestId('chat-message').find((row) => row.dataset.speaker === 'user')!;
      fireEvent.click(mine.querySelector('button[aria-label="Edit message"]')!);
      fireEvent.change(screen.getByRole('textbox', { name: 'Edit message' }), { target: { value: content } });
      fireEvent.click(screen.getByRole('button', { name: 'Save' }));
      await waitFor(() => expect(screen.getByTestId('regenerate-offer')).toBeInTheDocument());
    };
    await edit('Tell me about the lamp.');
    expect(calls.edit).toHaveBeenCalledWith(id(2), 'Tell me about the lamp.');
    expect(screen.queryByTestId('regenerate')).toBeNull();
    fireEvent.click(screen.getByTestId('regenerate-offer-dismiss'));
    expect(screen.queryByTestId('regenerate-offer')).toBeNull();
    expect(calls.regenerate).not.toHaveBeenCalled();
    await edit('Tell me about the keeper.');
    fireEvent.click(screen.getByTestId('regenerate-offer-accept'));
    expect(calls.regenerate).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId('regenerate-offer')).toBeNull();
    // Two edits on a busy machine take a while.
  }, 30_000);

  it('of an older message offers nothing', async () => {
    const messages = [...conversation(), said(4, 'user', 'And then?'), said(5, 'character', 'Then the storm came.')];
    const { calls } = renderList(thread(messages));
    const older = screen.getAllByTestId('chat-message').find((row) => row.dataset.messageId === id(2))!;
    fireEvent.click(older.querySelector('button[aria-label="Edit message"]')!);
    fireEvent.change(screen.getByRole('textbox', { name: 'Edit message' }), { target: { value: 'Changed' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.edit).toHaveBeenCalled());
    expect(screen.queryByTestId('regenerate-offer')).toBeNull();
  });
});
