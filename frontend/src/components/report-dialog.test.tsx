import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { store } from '@/app/store';
import { ReportDialog } from '@/components/report-dialog';
import { ApiCode } from '@/lib/api-types';
import { decryptText, encryptText } from '@/lib/envelope-crypto';
import en from '../../public/locales/en/translation.json';

type Reply = { code: number; data?: unknown };

/** Answers every API call with `reply`, encrypted as the server does (fetch is the boundary). */
function respondWith(reply: Reply) {
  const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
    const key = (init.headers as Record<string, string>).secretKey!;
    const plain = JSON.stringify({ code: reply.code, msg: '', success: reply.code === 200, data: reply.data ?? null });
    return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

async function sent(fetchMock: ReturnType<typeof respondWith>) {
  const call = fetchMock.mock.calls.find(([url]) => url === '/lust/api/user/v1/report/reportContent');
  expect(call).toBeDefined();
  const [, init] = call!;
  const key = (init.headers as Record<string, string>).secretKey!;
  return JSON.parse(await decryptText(key, JSON.parse(init.body as string).requestData)) as Record<string, unknown>;
}

function renderDialog(messageId?: string) {
  const onClose = vi.fn();
  render(
    <Provider store={store}>
      <MemoryRouter>
        <ReportDialog target={{ characterId: 'gf-001', characterName: 'Sofia', messageId }} onClose={onClose} />
      </MemoryRouter>
    </Provider>,
  );
  return onClose;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('ReportDialog', () => {
  it('sends the chosen reason, the note and the reply, then closes', async () => {
    const fetchMock = respondWith({ code: 200, data: { reportId: '1' } });
    const onClose = renderDialog('1700000000000000000');
    expect(screen.getByRole('heading', { name: 'Report a reply from Sofia' })).toBeInTheDocument();
    const submit = screen.getByTestId('report-submit');
    expect(submit).toBeDisabled();
    fireEvent.click(screen.getByTestId('report-reason-harassment'));
    fireEvent.change(screen.getByTestId('report-note'), { target: { value: '  rude  ' } });
    fireEvent.click(submit);
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(await sent(fetchMock)).toEqual({
      characterId: 'gf-001',
      messageId: '1700000000000000000',
      reason: 'harassment',
      note: 'rude',
    });
  });

  it('asks for a note when the reason is "something else", without calling the server', () => {
    const fetchMock = respondWith({ code: 200 });
    renderDialog();
    fireEvent.click(screen.getByTestId('report-reason-other'));
    fireEvent.click(screen.getByTestId('report-submit'));
    expect(screen.getByRole('alert')).toHaveTextContent(en.report.noteRequired);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('explains the hourly limit and stays open', async () => {
    respondWith({ code: ApiCode.rateLimited });
    const onClose = renderDialog();
    fireEvent.click(screen.getByTestId('report-reason-spam'));
    fireEvent.click(screen.getByTestId('report-submit'));
    expect(await screen.findByRole('alert')).toHaveTextContent(en.report.tooMany);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('reports a public feed image by its feed id', async () => {
    const fetchMock = respondWith({ code: 200, data: { reportId: '2' } });
    const onClose = vi.fn();
    render(
      <Provider store={store}>
        <MemoryRouter>
          <ReportDialog target={{ feedId: '1763000000000000001' }} onClose={onClose} />
        </MemoryRouter>
      </Provider>,
    );
    expect(screen.getByRole('heading', { name: en.report.imageTitle })).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('report-reason-minor'));
    fireEvent.click(screen.getByTestId('report-submit'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(await sent(fetchMock)).toEqual({ feedId: '1763000000000000001', reason: 'minor', note: '' });
  });
});
