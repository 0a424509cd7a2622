import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { gettingUserAtom, notificationsAtom, store, userInfoAtom, userInfoFetchedAtom, vipDataAtom } from '@/app/store';
import CheckoutPage, { isNavigableUrl } from '@/features/payments/components/checkout-page';
import { pageNavigation } from '@/lib/page-navigation';
import { serveApi, VIP_DATA, type FakeReply } from '@/test/fake-api';
import payments from '../../../../public/locales/en/payments.json';
import { aUser } from '@/test/fixtures';

const USER = aUser();

const ORDER = { orderId: 'ord_1', approveUrl: 'http://127.0.0.1:8080/lust/pay/sandbox/chk_1', qrPayload: null };

function renderCheckout(path: string, extra: Record<string, FakeReply> = {}, vipData: unknown = VIP_DATA) {
  const calls = serveApi({ '/user/v1/getVipData': { code: 200, data: vipData }, ...extra });
  act(() => {
    store.set(vipDataAtom, null);
    store.set(userInfoAtom, USER);
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
    store.set(notificationsAtom, []);
  });
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/pay/:productId" element={<CheckoutPage />} />
          <Route path="/zpay/:productId" element={<CheckoutPage zpay />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  );
  return calls;
}

let assign: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  assign = vi.spyOn(pageNavigation, 'assign').mockImplementation(() => undefined);
});
afterEach(() => {
  store.set(userInfoAtom, null);
});

describe('/pay/{productId}', () => {
  it('sums up the plan, offers the configured routes with the sandbox marked as a test, and links the terms', async () => {
    renderCheckout('/pay/year_1');
    await screen.findByTestId('checkout-summary');
    expect(screen.getByTestId('checkout-product')).toHaveTextContent('Plan: 12 months');
    expect(screen.getByTestId('checkout-total')).toHaveTextContent('$71.99');
    expect(screen.getByText('$239.88').tagName).toBe('S');
    const radios = screen.getAllByRole('radio');
    expect(radios.map((r) => (r as HTMLInputElement).value)).toEqual(['sandbox', 'paypal', 'nowpayments']);
    expect(radios[0]).toBeChecked();
    expect(screen.getByTestId('test-payment-badge')).toHaveTextContent(payments.testBadge);
    expect(screen.getByTestId('checkout-test-note')).toHaveTextContent(payments.checkout.testNote);
    expect(screen.getByRole('link', { name: 'Terms of Service' })).toHaveAttribute('href', '/terms-of-service');
    expect(screen.getByRole('link', { name: 'Refund Policy' })).toHaveAttribute('href', '/refund-policy');
    expect(screen.getByTestId('pay-button')).toHaveTextContent(payments.checkout.payTest);
    fireEvent.click(radios[1]!);
    expect(screen.getByTestId('pay-button')).toHaveTextContent('Pay $71.99');
    expect(screen.queryByTestId('checkout-test-note')).toBeNull();
  });

  it('opens the order on the chosen route’s endpoint with the product only, then goes to approveUrl', async () => {
    const calls = renderCheckout('/pay/coin_3', { '/user/v1/pay/paypalCreateOrder': { code: 200, data: ORDER } });
    await screen.findByTestId('checkout-summary');
    expect(screen.getByTestId('checkout-product')).toHaveTextContent('580 tokens');
    fireEvent.click(screen.getAllByRole('radio')[1]!);
    fireEvent.click(screen.getByTestId('pay-button'));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(ORDER.approveUrl));
    expect(calls.filter((c) => c.path.startsWith('/user/v1/pay/'))).toEqual([
      { path: '/user/v1/pay/paypalCreateOrder', payload: { productId: 'coin_3' } },
    ]);
    expect(screen.getByTestId('pay-button')).toBeDisabled();
  });

  it.each([
    [10006, 'routeOff', payments.checkout.routeOff],
    [50000, 'providerDown', payments.checkout.providerDown],
    [10001, 'badRequest', payments.checkout.badRequest],
  ])('keeps the user on the page with a clear message for %i', async (code, kind, text) => {
    renderCheckout('/pay/month_1', { '/user/v1/pay/sandboxCreateOrder': { code, msg: 'internal words' } });
    await screen.findByTestId('checkout-summary');
    fireEvent.click(screen.getByTestId('pay-button'));
    const problem = await screen.findByTestId('checkout-problem');
    expect(problem).toHaveAttribute('data-kind', kind);
    expect(problem).toHaveTextContent(text);
    expect(assign).not.toHaveBeenCalled();
    // No generic error notification on top of the page's own words.
    expect(store.get(notificationsAtom)).toEqual([]);
    expect(screen.getByTestId('pay-button')).toBeEnabled();
  });

  it('warns with the server’s words when a plan is already in force (10018)', async () => {
    const msg = 'Your 1 month plan is active until 2026-12-24.';
    renderCheckout('/pay/month_1', { '/user/v1/pay/sandboxCreateOrder': { code: 10018, msg } });
    await screen.findByTestId('checkout-summary');
    fireEvent.click(screen.getByTestId('pay-button'));
    const problem = await screen.findByTestId('checkout-problem');
    expect(problem).toHaveTextContent(msg);
    expect(store.get(notificationsAtom).map((n) => [n.kind, n.message])).toEqual([['warning', msg]]);
    expect(assign).not.toHaveBeenCalled();
  });

  it('never follows an approveUrl that is not a web address', async () => {
    renderCheckout('/pay/month_1', {
      '/user/v1/pay/sandboxCreateOrder': { code: 200, data: { ...ORDER, approveUrl: 'javascript:alert(1)' } },
    });
    await screen.findByTestId('checkout-summary');
    fireEvent.click(screen.getByTestId('pay-button'));
    await screen.findByTestId('checkout-problem');
    expect(assign).not.toHaveBeenCalled();
    expect(isNavigableUrl('/lust/pay/sandbox/chk_1')).toBe(true);
    expect(isNavigableUrl('https://www.paypal.com/checkoutnow?token=1')).toBe(true);
    expect(isNavigableUrl('//evil.example/x')).toBe(false);
    expect(isNavigableUrl('data:text/html,hi')).toBe(false);
  });

  it('says so for a product that does not exist', async () => {
    renderCheckout('/pay/coin_9');
    expect(await screen.findByTestId('checkout-unknown-product')).toHaveTextContent(payments.checkout.unknownProduct);
  });
});

describe('/zpay/{productId}', () => {
  const zpayData = {
    ...VIP_DATA,
    paymentRoutes: [...VIP_DATA.paymentRoutes, { route: 'zpay', endpoint: 'zPayCreateOrder', test: false }],
  };

  it('offers zPay only and shows the QR code of qrPayload with the way to the result', async () => {
    const calls = renderCheckout(
      '/zpay/month_1',
      {
        '/user/v1/pay/zPayCreateOrder': {
          code: 200,
          data: {
            orderId: 'ord_9',
            approveUrl: 'https://zpay.example/pay?o=9',
            qrPayload: 'weixin://wxpay/bizpayurl?pr=abc',
          },
        },
      },
      zpayData,
    );
    await screen.findByTestId('checkout-summary');
    expect(screen.getAllByRole('radio').map((r) => (r as HTMLInputElement).value)).toEqual(['zpay']);
    fireEvent.click(screen.getByTestId('pay-button'));
    const qr = await screen.findByTestId('payment-qr', {}, { timeout: 3000 });
    expect(qr).toHaveAttribute('aria-label', payments.checkout.qrLabel);
    expect(Number(qr.getAttribute('data-modules'))).toBeGreaterThanOrEqual(29);
    expect(screen.getByTestId('zpay-done')).toHaveAttribute('href', '/paymentResults/ord_9');
    expect(assign).not.toHaveBeenCalled();
    expect(calls.find((c) => c.path === '/user/v1/pay/zPayCreateOrder')?.payload).toEqual({ productId: 'month_1' });
  });

  it('says when zPay is not configured and links the other methods', async () => {
    renderCheckout('/zpay/month_1');
    expect(await screen.findByTestId('checkout-no-routes')).toHaveTextContent(payments.checkout.zpayOff);
    expect(screen.getByTestId('other-methods')).toHaveAttribute('href', '/pay/month_1');
    expect(screen.getByTestId('pay-button')).toBeDisabled();
  });
});
