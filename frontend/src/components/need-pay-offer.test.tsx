import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { needPayOfferAtom, store, userInfoAtom } from '@/app/store';
import { NeedPayDialog } from '@/components/need-pay-offer';
import { apiPost } from '@/lib/api-client';
import type { UserInfo } from '@/lib/api-types';
import { serveApi } from '@/test/fake-api';
import en from '../../public/locales/en/translation.json';
import { aUser } from '@/test/fixtures';

const USER = aUser();

function renderDialog(user: UserInfo | null) {
  act(() => {
    store.set(userInfoAtom, user);
    store.set(needPayOfferAtom, false);
  });
  render(
    <Provider store={store}>
      <MemoryRouter>
        <NeedPayDialog />
      </MemoryRouter>
    </Provider>,
  );
}

afterEach(() => {
  store.set(userInfoAtom, null);
  store.set(needPayOfferAtom, false);
});

describe('the needPay offer', () => {
  // Only calls that spend tokens answer needPay over HTTP: a free user is told they lack
  // tokens (not that today's free messages are used, issue 30) and offered a pack or a plan.
  it('opens when any request answers needPay and offers a free user tokens or the plans', async () => {
    renderDialog(USER);
    expect(screen.queryByTestId('need-pay-dialog')).toBeNull();
    serveApi({ '/user/v1/image/generate': { code: 40004, msg: 'not enough tokens' } });
    await act(() => apiPost('/user/v1/image/generate', {}));
    const dialog = screen.getByTestId('need-pay-dialog');
    expect(dialog).toHaveTextContent(en.needPay.paidTitle);
    expect(dialog).toHaveTextContent(en.needPay.freeTokensText);
    expect(dialog).not.toHaveTextContent(en.needPay.freeText);
    expect(screen.getByTestId('need-pay-action')).toHaveAttribute('href', '/buytokens');
    expect(screen.getByTestId('need-pay-plans')).toHaveAttribute('href', '/pricing');
    fireEvent.click(screen.getByRole('button', { name: en.needPay.later }));
    expect(screen.queryByTestId('need-pay-dialog')).toBeNull();
  });

  it('offers a paid user more tokens', () => {
    renderDialog({ ...USER, userVipType: 2, coin: 5 });
    act(() => store.set(needPayOfferAtom, true));
    expect(screen.getByTestId('need-pay-dialog')).toHaveTextContent(en.needPay.paidTitle);
    expect(screen.getByTestId('need-pay-action')).toHaveAttribute('href', '/buytokens');
    expect(screen.getByTestId('need-pay-action')).toHaveTextContent(en.needPay.buyTokens);
  });

  it('offers a signed-out visitor the plans', () => {
    renderDialog(null);
    act(() => store.set(needPayOfferAtom, true));
    expect(screen.getByTestId('need-pay-action')).toHaveAttribute('href', '/pricing');
  });
});
