import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  gettingUserAtom,
  interestedGenderAtom,
  showLoginTipAtom,
  store,
  userInfoAtom,
  userInfoFetchedAtom,
} from '@/app/store';
import CreatePage from '@/features/create/components/create-page';
import { forgetCreateOptions } from '@/features/create/hooks/use-create-options';
import { loadBuilderState, loadDraft } from '@/features/create/lib/draft-storage';
import { completeDraft, myCharacter, optionsFor } from '@/features/create/lib/test-fixtures';
import { Gender, type UserInfo } from '@/lib/api-types';
import { serveApi, type FakeReply } from '@/test/fake-api';

const USER = { userId: 'u1', userNo: 'AB12CD', userName: 'mira', userVipType: 0, coin: 0 } as UserInfo;
const SLOW = { timeout: 5_000 };
const PORTRAIT = { code: 200, data: { image: 'data:image/png;base64,iVBORw0KGgo=', width: 320, height: 480 } };

function Where() {
  const { pathname, search } = useLocation();
  return <span data-testid="where">{pathname + search}</span>;
}

function routes(extra: Record<string, FakeReply | FakeReply[]> = {}) {
  return {
    '/user/v1/character/getCreateOptions': [
      { code: 200, data: optionsFor(Gender.girls) },
      { code: 200, data: optionsFor(Gender.guys) },
    ],
    '/user/v1/character/previewPortrait': PORTRAIT,
    ...extra,
  };
}

function renderBuilder(user: UserInfo | null, api: Record<string, FakeReply | FakeReply[]>, path = '/createcharacter') {
  const calls = serveApi(api);
  act(() => {
    store.set(userInfoAtom, user);
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
    store.set(showLoginTipAtom, false);
  });
  const view = render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/createcharacter" element={<CreatePage />} />
          <Route path="/myai" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  );
  return { calls, view };
}

const step = () => screen.getByTestId('character-builder').dataset.step;
const next = () => fireEvent.click(screen.getByTestId('builder-next'));
const chip = (group: string, key: string) =>
  fireEvent.click(document.querySelector(`[data-testid="preset-chip"][data-group="${group}"][data-key="${key}"]`)!);
const errorsShown = () => screen.queryAllByTestId('field-error').map((e) => `${e.dataset.field}: ${e.textContent}`);
const type = (field: string, value: string) =>
  fireEvent.change(screen.getByTestId(`field-${field}`), { target: { value } });

beforeEach(() => {
  forgetCreateOptions();
  vi.stubGlobal(
    'matchMedia',
    (query: string) =>
      ({
        matches: false,
        media: query,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
      }) as unknown as MediaQueryList,
  );
  act(() => store.set(interestedGenderAtom, Gender.girls));
});
afterEach(() => {
  cleanup();
  act(() => store.set(userInfoAtom, null));
  vi.unstubAllGlobals();
});

describe('/createcharacter', () => {
  it('takes a signed-out visitor through every step, checking each before Next, and asks to sign in on Create', async () => {
    const { calls } = renderBuilder(null, routes());
    await screen.findByTestId('character-builder', {}, SLOW);
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '1');
    // The options' first looks are filled in, so the portrait is drawn from the start (once).
    await waitFor(() => expect(screen.getByTestId('portrait-image')).toHaveAttribute('src', PORTRAIT.data.image), SLOW);
    chip('styles', 'anime');
    next();
    expect(step()).toBe('looks');
    type('looks.age', '17');
    next();
    expect(errorsShown()).toEqual(['looks.age: Enter an age from 18 to 100.']);
    expect(step()).toBe('looks');
    type('looks.age', '24');
    expect(errorsShown()).toEqual([]);
    chip('eyes', 'green');
    next();

    expect(step()).toBe('personality');
    next();
    expect(errorsShown()).toEqual([
      'personality.preset: Please choose one.',
      'relationship.preset: Please choose one.',
    ]);
    chip('personalities', 'playful');
    chip('relationships', 'girlfriend');
    type('personality.text', 'Loves bad puns.');
    next();
    expect(step()).toBe('voice');
    fireEvent.click(document.querySelector('[data-testid="voice-option"][data-voice-id="f2"]')!);
    expect(screen.queryByText('Deep (male)')).toBeNull();
    next();

    expect(step()).toBe('story');
    next();
    expect(errorsShown()).toEqual([
      'characterName: Please fill this in.',
      'introduction: Please fill this in.',
      'greeting: Please fill this in.',
    ]);
    type('characterName', 'Lena');
    type('introduction', 'A barista who paints at night.');
    type('greeting', 'Hi {{user}}! Coffee?');
    fireEvent.change(screen.getByTestId('tag-input'), { target: { value: 'Artistic' } });
    fireEvent.click(screen.getByTestId('tag-add'));
    expect(screen.getAllByTestId('tag').map((t) => t.textContent)).toEqual(['Artistic']);
    next();

    expect(step()).toBe('publish');
    expect(screen.getByTestId('nsfw-off-note')).toBeInTheDocument();
    expect(screen.getByTestId('sign-in-note')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('builder-create'));
    expect(store.get(showLoginTipAtom)).toBe(true);
    expect(calls.some((c) => c.path === '/user/v1/character/create')).toBe(false);
    // Everything waits in storage, on the last step.
    const stored = loadDraft(Gender.girls)!;
    expect(stored.step).toBe(5);
    expect(stored.draft).toMatchObject({
      style: 'anime',
      characterName: 'Lena',
      voiceId: 'f2',
      tags: ['Artistic'],
      looks: { age: 24, eyes: 'green' },
    });
    expect(loadBuilderState()).toEqual({ gender: Gender.girls, pendingCreate: true });
    await new Promise((r) => setTimeout(r, 700));
    const previews = calls
      .filter((c) => c.path === '/user/v1/character/previewPortrait')
      .map((c) => (c.payload as { style: string }).style);
    // One portrait per settled change of the looks, not one per keystroke.
    expect(previews.length).toBeLessThanOrEqual(4);
    expect(previews.at(-1)).toBe('anime');
  });

  it('after signing in, comes back on the last step with everything and creates, then forgets the draft', async () => {
    window.localStorage.setItem('createCharacterData', JSON.stringify({ draft: completeDraft(), step: 5 }));
    window.localStorage.setItem('createCharacterDataCommon', JSON.stringify({ gender: 0, pendingCreate: true }));
    const created = myCharacter('c-7');
    const { calls } = renderBuilder(USER, routes({ '/user/v1/character/create': { code: 200, data: created } }));
    await screen.findByTestId('character-builder', {}, SLOW);
    expect(step()).toBe('publish');
    expect(screen.getByTestId('signed-in-note')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('builder-create'));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/myai?created=c-7'), SLOW);
    expect(calls.find((c) => c.path === '/user/v1/character/create')?.payload).toEqual({ draft: completeDraft() });
    expect(window.localStorage.getItem('createCharacterData')).toBeNull();
    expect(window.localStorage.getItem('createCharacterDataCommon')).toBeNull();
  });

  it('shows a refusal at the field the server names, on its step', async () => {
    window.localStorage.setItem('createCharacterData', JSON.stringify({ draft: completeDraft(), step: 5 }));
    renderBuilder(
      USER,
      routes({
        '/user/v1/character/create': {
          code: 10070,
          msg: 'greeting: This content is not allowed by the community guidelines',
        },
      }),
    );
    await screen.findByTestId('character-builder', {}, SLOW);
    fireEvent.click(screen.getByTestId('builder-create'));
    await waitFor(() => expect(step()).toBe('story'), SLOW);
    expect(errorsShown()).toEqual([
      'greeting: This content is not allowed: This content is not allowed by the community guidelines',
    ]);
    expect(screen.getByTestId('field-greeting')).toHaveAttribute('aria-invalid', 'true');
    type('greeting', 'Hello {{user}}.');
    expect(errorsShown()).toEqual([]);
    // Nothing was lost on the way.
    expect(loadDraft(Gender.girls)?.draft.greeting).toBe('Hello {{user}}.');
  });

  it('switches to the boyfriend’s own draft with the header’s gender, and back', async () => {
    window.localStorage.setItem('createCharacterData', JSON.stringify({ draft: completeDraft(), step: 4 }));
    const { calls } = renderBuilder(null, routes());
    await screen.findByTestId('character-builder', {}, SLOW);
    expect(step()).toBe('story');
    act(() => store.set(interestedGenderAtom, Gender.guys));
    await waitFor(() => expect(screen.getByTestId('character-builder')).toHaveAttribute('data-gender', '1'), SLOW);
    await waitFor(() => expect(step()).toBe('style'), SLOW);
    expect(calls.filter((c) => c.path === '/user/v1/character/getCreateOptions').map((c) => c.payload)).toEqual([
      { gender: 0 },
      { gender: 1 },
    ]);
    next();
    expect(loadDraft(Gender.guys)?.step).toBe(1);
    expect(loadBuilderState().gender).toBe(Gender.guys);
    act(() => store.set(interestedGenderAtom, Gender.girls));
    await waitFor(() => expect(step()).toBe('story'), SLOW);
    expect(
      (within(screen.getByTestId('character-builder')).getByTestId('field-characterName') as HTMLInputElement).value,
    ).toBe('Lena');
  });

  it('edits one of the user’s characters in the same builder, prefilled, without touching the stored draft', async () => {
    window.localStorage.setItem(
      'createCharacterData',
      JSON.stringify({ draft: { ...completeDraft(), characterName: 'Draft' }, step: 2 }),
    );
    const mine = myCharacter('c-1');
    const { calls } = renderBuilder(
      USER,
      routes({
        '/user/v1/character/getMyCharacters': { code: 200, data: [mine] },
        '/user/v1/character/update': { code: 200, data: mine },
      }),
      '/createcharacter?edit=c-1',
    );
    await screen.findByTestId('character-builder', {}, SLOW);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Edit your character');
    for (let i = 0; i < 4; i += 1) next();
    type('characterName', 'Lena B');
    next();
    fireEvent.click(screen.getByTestId('builder-create'));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/myai?created=c-1'), SLOW);
    expect(calls.find((c) => c.path === '/user/v1/character/update')?.payload).toEqual({
      characterId: 'c-1',
      draft: { ...completeDraft(), characterName: 'Lena B' },
    });
    expect(loadDraft(Gender.girls)?.draft.characterName).toBe('Draft');
  });
});
