import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  gettingUserAtom,
  notificationsAtom,
  showLoginTipAtom,
  store,
  userInfoAtom,
  userInfoFetchedAtom,
} from '@/app/store';
import MyAiPage from '@/features/create/components/my-ai-page';
import { myCharacter } from '@/features/create/lib/test-fixtures';
import type { UserInfo } from '@/lib/api-types';
import { serveApi, type FakeReply } from '@/test/fake-api';

const USER = { userId: 'u1', userNo: 'AB12CD', userName: 'mira', userVipType: 0, coin: 0 } as UserInfo;
const SLOW = { timeout: 5_000 };

function renderAt(user: UserInfo | null, routes: Record<string, FakeReply | FakeReply[]>, path = '/myai') {
  const calls = serveApi(routes);
  act(() => {
    store.set(userInfoAtom, user);
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
    store.set(showLoginTipAtom, false);
    store.set(notificationsAtom, []);
  });
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/myai" element={<MyAiPage />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  );
  return calls;
}

afterEach(() => {
  cleanup();
  act(() => store.set(userInfoAtom, null));
  vi.unstubAllGlobals();
});

const messages = () => store.get(notificationsAtom).map((n) => `${n.kind}: ${n.message}`);

describe('/myai', () => {
  it('asks a signed-out visitor to sign in and reads nothing', async () => {
    const calls = renderAt(null, {});
    expect(await screen.findByTestId('my-ai-signed-out')).toBeInTheDocument();
    expect(store.get(showLoginTipAtom)).toBe(true);
    expect(calls.filter((c) => c.path.startsWith('/user/'))).toEqual([]);
    act(() => store.set(showLoginTipAtom, false));
    fireEvent.click(screen.getByTestId('my-ai-sign-in'));
    expect(store.get(showLoginTipAtom)).toBe(true);
  });

  it('invites a user without characters to create one', async () => {
    const calls = renderAt(USER, { '/user/v1/character/getMyCharacters': { code: 200, data: [] } });
    const empty = await screen.findByTestId('my-ai-empty', {}, SLOW);
    expect(within(empty).getByTestId('my-ai-create')).toHaveAttribute('href', '/createcharacter');
    expect(calls.filter((c) => c.path.startsWith('/user/'))).toEqual([
      { path: '/user/v1/character/getMyCharacters', payload: { pageNo: 1, pageSize: 60 } },
    ]);
  });

  it('shows each character with its status, the reason of a rejection, and its actions', async () => {
    renderAt(
      USER,
      {
        '/user/v1/character/getMyCharacters': {
          code: 200,
          data: [
            myCharacter('c-3', { status: 'rejected', reviewReason: 'Looks like a real person' }),
            myCharacter('c-2', { status: 'review', visibility: 'public' }),
            myCharacter('c-1', { status: 'public', visibility: 'public', nsfw: true, imported: true }),
            myCharacter('c-0'),
          ],
        },
      },
      '/myai?created=c-2',
    );
    const grid = await screen.findByTestId('my-ai-grid', {}, SLOW);
    const cards = within(grid).getAllByTestId('my-character');
    expect(
      cards.map((card) => [
        card.dataset.characterId,
        card.dataset.status,
        within(card).getByTestId('status-badge').textContent,
      ]),
    ).toEqual([
      ['c-3', 'rejected', 'Rejected'],
      ['c-2', 'review', 'In review'],
      ['c-1', 'public', 'Public'],
      ['c-0', 'private', 'Private'],
    ]);
    expect(within(cards[0]!).getByTestId('review-reason')).toHaveTextContent('Not approved: Looks like a real person');
    expect(cards[1]).toHaveAttribute('data-highlight', 'true');
    expect(within(cards[2]!).getByText('18+')).toBeInTheDocument();
    expect(within(cards[2]!).getByText('Imported')).toBeInTheDocument();
    expect(within(cards[3]!).getByTestId('my-character-chat')).toHaveAttribute('href', '/chat/c-0');
    expect(within(cards[3]!).getByTestId('my-character-edit')).toHaveAttribute('href', '/createcharacter?edit=c-0');
    expect(within(cards[0]!).getByTestId('my-character-visibility')).toHaveTextContent('Make public');
    expect(within(cards[1]!).getByTestId('my-character-visibility')).toHaveTextContent('Make private');
  });

  it('duplicates, changes visibility, and deletes only after confirming', async () => {
    const calls = renderAt(USER, {
      '/user/v1/character/getMyCharacters': { code: 200, data: [myCharacter('c-1')] },
      '/user/v1/character/duplicate': {
        code: 200,
        data: myCharacter('c-2', { character: { ...myCharacter('c-2').character, characterName: 'Lena (copy)' } }),
      },
      '/user/v1/character/setVisibility': {
        code: 200,
        data: myCharacter('c-1', { status: 'review', visibility: 'public' }),
      },
      '/user/v1/character/delete': { code: 200, data: true },
    });
    const grid = await screen.findByTestId('my-ai-grid', {}, SLOW);
    const card = () => grid.querySelector<HTMLElement>('[data-character-id="c-1"]')!;
    fireEvent.click(within(card()).getByTestId('my-character-duplicate'));
    await waitFor(() => expect(within(grid).getAllByTestId('my-character')).toHaveLength(2), SLOW);
    expect(
      within(grid)
        .getAllByTestId('my-character-name')
        .map((n) => n.textContent),
    ).toEqual(['Lena (copy)', 'Lena']);

    fireEvent.click(within(card()).getByTestId('my-character-visibility'));
    await waitFor(() => expect(card()).toHaveAttribute('data-status', 'review'), SLOW);
    expect(calls.find((c) => c.path === '/user/v1/character/setVisibility')?.payload).toEqual({
      characterId: 'c-1',
      visibility: 'public',
    });

    fireEvent.click(within(card()).getByTestId('my-character-delete'));
    const dialog = await screen.findByTestId('delete-character-dialog');
    expect(dialog).toHaveTextContent('Delete Lena?');
    expect(calls.some((c) => c.path === '/user/v1/character/delete')).toBe(false);
    fireEvent.click(within(dialog).getByTestId('confirm-button'));
    await waitFor(() => expect(within(grid).getAllByTestId('my-character')).toHaveLength(1), SLOW);
    expect(calls.find((c) => c.path === '/user/v1/character/delete')?.payload).toEqual({ characterId: 'c-1' });
  });

  it('imports a card, asking for the age when the card gives none, and resends it with the age', async () => {
    const calls = renderAt(USER, {
      '/user/v1/character/getMyCharacters': { code: 200, data: [] },
      '/user/v1/character/importCard': [
        { code: 10001, msg: 'characterAge: the card gives no age' },
        { code: 200, data: myCharacter('c-9', { imported: true }) },
      ],
    });
    await screen.findByTestId('my-ai-empty', {}, SLOW);
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    fireEvent.change(screen.getByTestId('import-input'), {
      target: { files: [new File([bytes], 'mia.png', { type: 'image/png' })] },
    });
    const dialog = await screen.findByTestId('import-age-dialog', {}, SLOW);
    fireEvent.change(within(dialog).getByTestId('import-age-input'), { target: { value: '17' } });
    fireEvent.click(within(dialog).getByTestId('import-age-submit'));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Enter an age from 18 to 100.');
    fireEvent.change(within(dialog).getByTestId('import-age-input'), { target: { value: '23' } });
    fireEvent.click(within(dialog).getByTestId('import-age-submit'));
    await screen.findByTestId('my-ai-grid', {}, SLOW);
    const imports = calls.filter((c) => c.path === '/user/v1/character/importCard').map((c) => c.payload);
    expect(imports).toEqual([
      { fileName: 'mia.png', data: 'iVBORw0KGgo=', gender: 0 },
      { fileName: 'mia.png', data: 'iVBORw0KGgo=', gender: 0, age: 23 },
    ]);
    expect(screen.queryByTestId('import-age-dialog')).toBeNull();
    expect(messages()).toEqual(['success: Lena was imported as a private character.']);
  });

  it('explains a card the server cannot read', async () => {
    renderAt(USER, {
      '/user/v1/character/getMyCharacters': { code: 200, data: [] },
      '/user/v1/character/importCard': { code: 10001, msg: 'card: bad_png: not a PNG file' },
    });
    await screen.findByTestId('my-ai-empty', {}, SLOW);
    fireEvent.change(screen.getByTestId('import-input'), {
      target: { files: [new File(['{}'], 'x.json', { type: 'application/json' })] },
    });
    await waitFor(
      () => expect(messages()).toEqual(['error: This card could not be imported: card: bad_png: not a PNG file']),
      SLOW,
    );
    expect(screen.queryByTestId('import-age-dialog')).toBeNull();
  });

  it('exports a card as a download of the bytes the server sent', async () => {
    const blobs: Blob[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: (blob: Blob) => (blobs.push(blob), 'blob:card'),
        revokeObjectURL: () => undefined,
      }),
    );
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(`${this.download} ${this.href}`);
    });
    renderAt(USER, {
      '/user/v1/character/getMyCharacters': { code: 200, data: [myCharacter('c-1')] },
      '/user/v1/character/exportCard': {
        code: 200,
        data: { fileName: 'Lena.png', mime: 'image/png', data: 'iVBORw0KGgo=' },
      },
    });
    const grid = await screen.findByTestId('my-ai-grid', {}, SLOW);
    fireEvent.click(within(grid).getByTestId('my-character-export-png'));
    await waitFor(() => expect(clicked).toEqual(['Lena.png blob:card']), SLOW);
    expect(blobs[0]!.type).toBe('image/png');
    const bytes = await new Promise<ArrayBuffer>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as ArrayBuffer);
      reader.readAsArrayBuffer(blobs[0]!);
    });
    expect([...new Uint8Array(bytes)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    click.mockRestore();
  });
});
