import { render, screen } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { store, userInfoAtom } from '@/app/store';
import { PlayButton } from '@/features/chat/components/play-button';
import en from '../../../../public/locales/en/translation.json';
import { aUser } from '@/test/fixtures';

function renderFailed(code: number) {
  return render(
    <Provider store={store}>
      <MemoryRouter>
        <PlayButton
          state="failed"
          spokenBefore={false}
          cost={2}
          failure={{ code, msg: 'not enough tokens to play this message' }}
          onToggle={() => undefined}
          onDismiss={() => undefined}
        />
      </MemoryRouter>
    </Provider>,
  );
}

afterEach(() => store.set(userInfoAtom, null));

describe('PlayButton', () => {
  // Issue 30: a free user with 23 free messages left pressed Listen and was told they had
  // used today's free messages. Listening costs tokens; the messages are not the reason.
  it('tells a free user without tokens that Listen needs tokens, not that their free messages are used', () => {
    store.set(userInfoAtom, aUser({ userVipType: 0, coin: 0 }));
    renderFailed(40004);
    const offer = screen.getByTestId('need-pay-offer');
    expect(offer).not.toHaveTextContent(en.needPay.freeText);
    expect(offer).not.toHaveTextContent(/used today's free messages/i);
    expect(offer).toHaveTextContent(en.needPay.paidTitle);
    expect(offer).toHaveTextContent(en.needPay.freeTokensText);
    expect(screen.getByTestId('need-pay-action')).toHaveAttribute('href', '/buytokens');
    expect(screen.getByTestId('need-pay-plans')).toHaveAttribute('href', '/pricing');
  });

  it('offers a paid user more tokens', () => {
    store.set(userInfoAtom, aUser({ userVipType: 1, coin: 0 }));
    renderFailed(40004);
    expect(screen.getByTestId('need-pay-offer')).toHaveTextContent(en.needPay.paidText);
    expect(screen.getByTestId('need-pay-action')).toHaveAttribute('href', '/buytokens');
    expect(screen.queryByTestId('need-pay-plans')).toBeNull();
  });

  it('says a busy synthesiser is busy', () => {
    store.set(userInfoAtom, aUser());
    renderFailed(10003);
    expect(screen.getByTestId('voice-error')).toBeInTheDocument();
    expect(screen.queryByTestId('need-pay-offer')).toBeNull();
  });
});
