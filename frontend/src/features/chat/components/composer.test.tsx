import { fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { notificationsAtom, realtimeConnectedAtom, store, userInfoAtom } from '@/app/store';
import { MESSAGE_MAX_CHARS } from '@/features/chat/api/chat-api';
import { Composer } from '@/features/chat/components/composer';
import { FailureBanner } from '@/features/chat/components/failure-banner';
import en from '../../../../public/locales/en/translation.json';
import { aUser } from '@/test/fixtures';

const USER = aUser();

function renderInApp(ui: React.ReactNode) {
  return render(
    <Provider store={store}>
      <MemoryRouter>{ui}</MemoryRouter>
    </Provider>,
  );
}

beforeEach(() => {
  store.set(realtimeConnectedAtom, true);
  store.set(notificationsAtom, []);
});

describe('Composer', () => {
  const props = { characterName: 'Mia', replying: false, creditsLeft: 12, onStop: () => true };

  it('sends the trimmed text on Enter and clears the input; Shift+Enter does not send', () => {
    const onSend = vi.fn(() => true);
    renderInApp(<Composer {...props} onSend={onSend} />);
    const input = screen.getByTestId('chat-input') as HTMLTextAreaElement;
    expect(input).toHaveAttribute('placeholder', 'Message Mia…');
    fireEvent.change(input, { target: { value: '  Hi Mia!\nHow are you?  ' } });
    fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onSend).toHaveBeenCalledWith('Hi Mia!\nHow are you?');
    expect(input.value).toBe('');
  });

  it('keeps the text and says so when nothing could be sent', () => {
    renderInApp(<Composer {...props} onSend={() => false} />);
    const input = screen.getByTestId('chat-input') as HTMLTextAreaElement;
    fireEvent.change(input, { target: { value: 'Hello' } });
    fireEvent.click(screen.getByTestId('chat-send'));
    expect(input.value).toBe('Hello');
    expect(store.get(notificationsAtom).map((n) => n.message)).toEqual([en.chat.offline]);
  });

  it('holds at most 2,000 characters and shows the count near the limit', () => {
    renderInApp(<Composer {...props} onSend={() => true} />);
    const input = screen.getByTestId('chat-input');
    expect(input).toHaveAttribute('maxLength', String(MESSAGE_MAX_CHARS));
    fireEvent.change(input, { target: { value: 'x'.repeat(1900) } });
    expect(screen.getByText(`1900 / ${MESSAGE_MAX_CHARS}`)).toBeInTheDocument();
  });

  it('offers stop instead of send while a reply streams', () => {
    const onStop = vi.fn(() => true);
    renderInApp(<Composer {...props} replying onStop={onStop} onSend={() => true} />);
    expect(screen.queryByTestId('chat-send')).toBeNull();
    fireEvent.click(screen.getByTestId('chat-stop'));
    expect(onStop).toHaveBeenCalledOnce();
  });

  it('shows the free messages left, the upgrade at none, and nothing for paid users', () => {
    const { rerender } = renderInApp(<Composer {...props} onSend={() => true} />);
    expect(screen.getByTestId('credits-left')).toHaveTextContent('Free messages left today: 12');
    rerender(
      <Provider store={store}>
        <MemoryRouter>
          <Composer {...props} creditsLeft={0} onSend={() => true} />
        </MemoryRouter>
      </Provider>,
    );
    expect(screen.getByRole('link', { name: en.chat.upgrade })).toHaveAttribute('href', '/pricing');
    rerender(
      <Provider store={store}>
        <MemoryRouter>
          <Composer {...props} creditsLeft={null} onSend={() => true} />
        </MemoryRouter>
      </Provider>,
    );
    expect(screen.queryByTestId('credits-left')).toBeNull();
  });
});

describe('FailureBanner', () => {
  it('offers the plans for needPay to a free user instead of an error', () => {
    store.set(userInfoAtom, { ...USER, userVipType: 0 });
    const onDismiss = vi.fn();
    renderInApp(<FailureBanner failure={{ code: 40004, msg: 'No free messages left today.' }} onDismiss={onDismiss} />);
    expect(screen.getByRole('alert')).toHaveTextContent(en.needPay.freeTitle);
    expect(screen.getByTestId('need-pay-action')).toHaveAttribute('href', '/pricing');
    expect(screen.getByTestId('need-pay-action')).toHaveTextContent(en.needPay.upgrade);
    fireEvent.click(screen.getByRole('button', { name: en.needPay.later }));
    expect(onDismiss).toHaveBeenCalledOnce();
  });

  it('offers tokens for needPay to a paid user', () => {
    store.set(userInfoAtom, { ...USER, userVipType: 2 });
    renderInApp(<FailureBanner failure={{ code: 40004, msg: 'Not enough tokens.' }} onDismiss={() => undefined} />);
    expect(screen.getByRole('alert')).toHaveTextContent(en.needPay.paidTitle);
    expect(screen.getByTestId('need-pay-action')).toHaveAttribute('href', '/buytokens');
    store.set(userInfoAtom, null);
  });

  it('explains a refusal by the community guidelines', () => {
    const onDismiss = vi.fn();
    renderInApp(<FailureBanner failure={{ code: 10070, msg: 'content not allowed' }} onDismiss={onDismiss} />);
    expect(screen.getByRole('alert')).toHaveTextContent(en.chat.refused);
    expect(screen.queryByTestId('need-pay-action')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: en.chat.dismiss }));
    expect(onDismiss).toHaveBeenCalledOnce();
  });

  it('shows the server’s message for a code it does not explain', () => {
    renderInApp(
      <FailureBanner failure={{ code: 50000, msg: 'The model did not answer.' }} onDismiss={() => undefined} />,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('The model did not answer.');
    expect(screen.queryByTestId('need-pay-action')).toBeNull();
  });
});
