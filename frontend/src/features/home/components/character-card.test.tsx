import { render, within } from '@testing-library/react';
import i18n from 'i18next';
import { Provider } from 'jotai';
import { afterEach, describe, expect, it } from 'vitest';
import { store } from '@/app/store';
import { CharacterCard } from '@/features/home/components/character-card';
import type { CharacterCard as CharacterCardData } from '@/lib/api-types';
import pl from '../../../../public/locales/pl/translation.json';

const card = (age: number, introduction: string): CharacterCardData => ({
  characterId: 'card-1',
  characterName: 'Marisol',
  characterAge: age,
  introduction,
  characterPhoto: '/media/portrait-card-1',
  characterImageList: [],
  usedType: 0,
  gender: 0,
});

function renderCard(data: CharacterCardData) {
  const { container } = render(
    <Provider store={store}>
      <CharacterCard character={data} href={`/de/chat/${data.characterId}`} onOpen={() => undefined} />
    </Provider>,
  );
  return within(container).getByTestId('character-card');
}

afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('CharacterCard', () => {
  it('says the age in the plural the language uses ("24 years", not "24 year")', () => {
    expect(renderCard(card(24, 'Hi.'))).toHaveTextContent('24 years');
  });

  it('uses the language’s own plural forms (Polish: 22 lata, 25 lat)', async () => {
    i18n.addResourceBundle('pl', 'translation', pl, true, true);
    await i18n.changeLanguage('pl');
    expect(renderCard(card(22, 'Hi.'))).toHaveTextContent('22 lata');
    expect(renderCard({ ...card(25, 'Hi.'), characterId: 'card-2' })).toHaveTextContent('25 lat');
  });

  it('fills the placeholders of an imported card’s introduction', () => {
    const shown = renderCard(card(31, '{{char}} keeps the lighthouse and waits for <USER>.'));
    expect(shown).toHaveTextContent('Marisol keeps the lighthouse and waits for You.');
    expect(shown.textContent).not.toContain('{{char}}');
  });

  it('is a link to the character’s page, so it can be followed and opened in a new tab', () => {
    const shown = renderCard(card(24, 'Hi.'));
    expect(shown.tagName).toBe('A');
    expect(shown).toHaveAttribute('href', '/de/chat/card-1');
  });
});
