/**
 * The console as a whole, against a stubbed network (fetch is the boundary): the guard
 * sends a signed-out operator to sign-in, the nav follows the role, and the queue keys open
 * the reason prompt, whose Enter sends the decision with the reason and Esc cancels.
 */
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OperatorApp } from '@/operator/app';
import { serve } from '@/operator/test-server';

const ADMIN = { operatorId: 'op1', email: 'boss@amora.test', role: 'admin' };
const MODERATOR = { operatorId: 'op2', email: 'mod@amora.test', role: 'moderator' };
const REPORT = {
  reportId: '11',
  createdAt: 1_700_000_000_000,
  reporterId: 'u1',
  characterId: 'c1',
  characterName: 'Sofia',
  characterHidden: false,
  messageId: '5',
  messageText: 'A reported reply',
  reason: 'harassment',
  note: 'rude',
  decision: null,
};

function open(path: string) {
  window.history.pushState({}, '', path);
  return render(<OperatorApp />);
}

afterEach(() => {
  vi.unstubAllGlobals();
  window.history.pushState({}, '', '/');
});

describe('operator console', () => {
  it('a signed-out operator lands on sign-in, and signs in with the code', async () => {
    let signedIn = false;
    const calls = serve({
      'GET me': () =>
        signedIn ? { status: 200, body: ADMIN } : { status: 401, body: { error: 'sign in as an operator' } },
      'POST signIn': () => {
        signedIn = true;
        return { status: 200, body: ADMIN };
      },
      'GET reports': () => ({ status: 200, body: { reports: [] } }),
    });
    open('/operator/audit');
    const form = await screen.findByTestId('sign-in-form');
    expect(window.location.pathname).toBe('/operator/sign-in');
    fireEvent.change(within(form).getByTestId('sign-in-email'), { target: { value: 'boss@amora.test' } });
    fireEvent.change(within(form).getByTestId('sign-in-password'), { target: { value: 'pw' } });
    fireEvent.change(within(form).getByTestId('sign-in-code'), { target: { value: '12a3456' } });
    fireEvent.submit(form);
    expect(await screen.findByTestId('operator-email')).toHaveTextContent('boss@amora.test');
    expect(calls.find((c) => c.path === 'signIn')?.body).toEqual({
      email: 'boss@amora.test',
      password: 'pw',
      code: '123456',
    });
    expect(window.location.pathname).toBe('/operator/queues');
    expect(screen.getByRole('link', { name: 'Money' })).toBeInTheDocument();
  });

  it('a moderator has no Money, Content or Health desk', async () => {
    serve({
      'GET me': () => ({ status: 200, body: MODERATOR }),
      'GET reports': () => ({ status: 200, body: { reports: [] } }),
    });
    open('/operator/queues');
    const nav = await screen.findByRole('navigation', { name: 'Desks' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['Queues', 'Users', 'Audit']);
  });

  it('d opens the reason prompt; Esc cancels; Enter sends the dismissal with the reason', async () => {
    let decided = false;
    const calls = serve({
      'GET me': () => ({ status: 200, body: ADMIN }),
      'GET reports': () => ({
        status: 200,
        body: {
          reports: [{ ...REPORT, decision: decided ? { decision: 'dismissed', operatorId: 'op1', at: 1 } : null }],
        },
      }),
      'POST report/decide': () => {
        decided = true;
        return { status: 200, body: { reportId: '11', decision: 'dismissed' } };
      },
    });
    open('/operator/queues');
    expect(await screen.findByTestId('report-message')).toHaveTextContent('A reported reply');

    fireEvent.keyDown(window, { key: 'd' });
    expect(screen.getByRole('dialog', { name: 'Dismiss report' })).toBeInTheDocument();
    fireEvent.keyDown(screen.getByTestId('reason-input'), { key: 'Escape' });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    fireEvent.keyDown(window, { key: 'd' });
    const input = screen.getByTestId('reason-input');
    // An empty reason is refused before anything is sent.
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(screen.getByTestId('prompt-error')).toHaveTextContent('A reason is required.');
    fireEvent.change(input, { target: { value: 'not abusive' } });
    await act(async () => {
      fireEvent.keyDown(input, { key: 'Enter' });
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls.find((c) => c.path === 'report/decide')?.body).toEqual({
      reportId: '11',
      decision: 'dismissed',
      reason: 'not abusive',
    });
    expect(await screen.findByTestId('report-decision')).toHaveTextContent('dismissed');
  });

  it("h hides the character then marks the report actioned; a refusal keeps the prompt with the server's message", async () => {
    let hideStatus = 403;
    const calls = serve({
      'GET me': () => ({ status: 200, body: ADMIN }),
      'GET reports': () => ({ status: 200, body: { reports: [REPORT] } }),
      'POST character/hide': () =>
        hideStatus === 403
          ? { status: 403, body: { error: 'not today' } }
          : { status: 200, body: { outcome: 'hidden' } },
      'POST report/decide': () => ({ status: 200, body: { reportId: '11', decision: 'actioned' } }),
    });
    open('/operator/queues');
    await screen.findByTestId('report-row');
    fireEvent.keyDown(window, { key: 'h' });
    const input = screen.getByTestId('reason-input');
    fireEvent.change(input, { target: { value: 'explicit minor' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(await screen.findByTestId('prompt-error')).toHaveTextContent('not today');
    expect(calls.some((c) => c.path === 'report/decide')).toBe(false);
    hideStatus = 200;
    fireEvent.click(screen.getByTestId('prompt-confirm'));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const acted = calls.filter((c) => c.body && 'reason' in c.body).map((c) => [c.path, c.body]);
    expect(acted.slice(-2)).toEqual([
      ['character/hide', { characterId: 'c1', reason: 'explicit minor' }],
      ['report/decide', { reportId: '11', decision: 'actioned', reason: 'explicit minor' }],
    ]);
  });

  it('a moderator reaching admin desks by address is refused; Delete asks for the typed user number', async () => {
    const refuse = (route: string) => () => ({
      status: 403,
      body: { error: `${route} needs the admin role; you are a moderator` },
    });
    const calls = serve({
      'GET me': () => ({ status: 200, body: MODERATOR }),
      'POST orders': refuse('orders'),
      'GET user': refuse('user'),
      'POST user/delete': refuse('user/delete'),
    });
    // Money says so at once and asks the server nothing without a user.
    const view = open('/operator/money');
    expect(await screen.findByTestId('load-error')).toHaveTextContent(
      'money needs the admin role; you are a moderator',
    );
    expect(calls.some((c) => c.path === 'orders')).toBe(false);
    view.unmount();

    open('/operator/users/1001');
    expect(await screen.findByTestId('load-error')).toHaveTextContent('user needs the admin role');
    fireEvent.click(screen.getByTestId('user-delete'));
    fireEvent.change(screen.getByTestId('prompt-confirm-text'), { target: { value: '1002' } });
    fireEvent.change(screen.getByTestId('reason-input'), { target: { value: 'asked to be forgotten' } });
    fireEvent.keyDown(screen.getByTestId('reason-input'), { key: 'Enter' });
    expect(screen.getByTestId('prompt-error')).toHaveTextContent('Type 1001 to confirm.');
    expect(calls.some((c) => c.path === 'user/delete')).toBe(false);
    fireEvent.change(screen.getByTestId('prompt-confirm-text'), { target: { value: '1001' } });
    fireEvent.keyDown(screen.getByTestId('reason-input'), { key: 'Enter' });
    expect(await screen.findByText('user/delete needs the admin role; you are a moderator')).toBeInTheDocument();
    expect(calls.find((c) => c.path === 'user/delete')?.body).toEqual({
      user: '1001',
      reason: 'asked to be forgotten',
    });
  });
});
