import { render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { store } from '@/app/store';
import LandingPage from '@/features/home/components/landing-page';
import { decryptText, encryptText } from '@/lib/envelope-crypto';

const card = (id: string, name: string, gender = 0) => ({
  characterId: id,
  characterName: name,
  characterAge: 25,
  introduction: `${name} says hi`,
  characterPhoto: `/media/portrait-${id}-1`,
  characterImageList: [`/media/portrait-${id}-2`],
  usedType: 0,
  gender,
});

const CATALOGUE = [card('gf-001', 'Sofia'), card('gf-002', 'Lena'), card('gf-003', 'Maya'), card('gf-004', 'Iris')];
/** What the list API's `tags` filter answers for /ai-sex's tags: Maya shares three, Lena one. */
const TAGGED = [CATALOGUE[2], CATALOGUE[1]];

/**
 * The list endpoint of the real API, answered from the little catalogue above, and the
 * landing copy call, answered with `published` (null: the copy is as built).
 */
function serveCatalogue(published: unknown = null) {
  const calls: { path: string; payload: Record<string, unknown> }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = url.replace('/lust/api', '').split('?')[0]!;
      const key = (init.headers as Record<string, string>).secretKey!;
      const payload = JSON.parse(await decryptText(key, JSON.parse(init.body as string).requestData)) as Record<
        string,
        unknown
      >;
      calls.push({ path, payload });
      let data: unknown = null;
      if (path === '/user/v1/character/getCharacterList')
        data = payload.pageNo !== 1 ? [] : payload.tags ? TAGGED : CATALOGUE;
      if (path === '/user/v1/landing/getLandingCopy') data = { copy: published };
      const plain = JSON.stringify({ code: 200, msg: '', success: true, data });
      return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
    }),
  );
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

describe('landing pages', () => {
  it('show their own copy, FAQ and the catalogue characters whose tags fit, read in one request', async () => {
    const calls = serveCatalogue();
    render(
      <Provider store={store}>
        <MemoryRouter initialEntries={['/ai-sex']}>
          <LandingPage topic="aiSex" />
        </MemoryRouter>
      </Provider>,
    );
    expect(screen.getByRole('heading', { name: 'AI Sex Chat with Companions Who Remember You' })).toBeInTheDocument();
    expect(screen.getByTestId('landing-faq')).toHaveTextContent('What is AI sex chat?');
    const grid = await screen.findByTestId('landing-grid');
    const names = within(grid)
      .getAllByTestId('character-card')
      .map((element) => element.getAttribute('data-character-id'));
    expect(names).toEqual(['gf-003', 'gf-002']);
    const lists = calls.filter((call) => call.path === '/user/v1/character/getCharacterList');
    expect(lists).toEqual([
      {
        path: '/user/v1/character/getCharacterList',
        payload: { gender: 0, pageNo: 1, pageSize: 12, tags: ['Passionate', 'Flirty', 'Bold', 'Romantic'] },
      },
    ]);
    expect(calls.find((call) => call.path === '/user/v1/landing/getLandingCopy')?.payload).toEqual({
      lang: 'en',
      topic: 'aiSex',
    });
    expect(screen.getByTestId('landing-create')).toHaveAttribute('href', '/createcharacter');
    await waitFor(() => expect(screen.getByTestId('landing-chat')).toBeEnabled());
    expect(document.title).toBe('AI Sex Chat – Uncensored AI Sex with Virtual Companions | Amora');
  });

  it('show the copy an operator published over the shipped one, and the shipped one for a malformed copy', async () => {
    const published = {
      heading: 'Stories that remember you',
      intro: 'Fictional adults, real conversations.',
      points: ['Memory that lasts'],
      faq: [{ q: 'Is it private?', a: 'Yours alone.' }],
    };
    serveCatalogue(published);
    const view = render(
      <Provider store={store}>
        <MemoryRouter initialEntries={['/ai-sex']}>
          <LandingPage topic="aiSex" />
        </MemoryRouter>
      </Provider>,
    );
    // The shipped copy while the published one loads, then the published one.
    expect(screen.getByRole('heading', { name: 'AI Sex Chat with Companions Who Remember You' })).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Stories that remember you' })).toBeInTheDocument();
    expect(screen.getByTestId('landing-hero')).toHaveTextContent('Memory that lasts');
    expect(screen.getByTestId('landing-faq')).toHaveTextContent('Is it private?');
    view.unmount();
    vi.unstubAllGlobals();

    const calls = serveCatalogue({ heading: '', intro: 'x', points: [], faq: [] });
    render(
      <Provider store={store}>
        <MemoryRouter initialEntries={['/ai-sex']}>
          <LandingPage topic="aiSex" />
        </MemoryRouter>
      </Provider>,
    );
    await waitFor(() => expect(calls.some((call) => call.path === '/user/v1/landing/getLandingCopy')).toBe(true));
    await screen.findByTestId('landing-grid');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.getByRole('heading', { name: 'AI Sex Chat with Companions Who Remember You' })).toBeInTheDocument();
  });

  it('keep the taboo page between unrelated adults', () => {
    serveCatalogue();
    render(
      <Provider store={store}>
        <MemoryRouter initialEntries={['/ai-incest']}>
          <LandingPage topic="aiIncest" />
        </MemoryRouter>
      </Provider>,
    );
    const page = screen.getByTestId('landing-aiIncest');
    expect(page).toHaveTextContent('unrelated adults');
    expect(page).toHaveTextContent(
      'Our community guidelines do not allow sexual content between relatives, including step-relatives.',
    );
  });
});
