import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { afterEach, describe, expect, it } from 'vitest';
import { store, userInfoAtom } from '@/app/store';
import { fillMacros, GreetingChoices } from '@/features/chat/components/greeting-choices';
import type { UserInfo } from '@/lib/api-types';

afterEach(() => act(() => store.set(userInfoAtom, null)));

describe('greeting choices', () => {
  it('fill in the character’s and the user’s names in every form cards use', () => {
    expect(
      fillMacros('{{char}} waves at {{user}}. <BOT> and <USER>, {char} and {user}, {{ Char }}.', 'Marisol', 'Sam'),
    ).toBe('Marisol waves at Sam. Marisol and Sam, Marisol and Sam, Marisol.');
  });

  it('offer the main greeting and the card’s others, and mark the one chosen once the server took it', async () => {
    act(() => store.set(userInfoAtom, { userId: 'u1', userName: 'Sam' } as UserInfo));
    const asked: number[] = [];
    let accept = false;
    render(
      <Provider store={store}>
        <GreetingChoices
          greeting="Hello {{user}}."
          alternates={['Storm’s coming.', 'Tea’s on the stove, {{user}}.']}
          characterName="Marisol"
          onChoose={async (index) => {
            asked.push(index);
            return accept;
          }}
        />
      </Provider>,
    );
    const options = screen.getAllByTestId('greeting-choice');
    expect(options.map((o) => o.textContent)).toEqual([
      'Greeting 1Hello Sam.',
      'Greeting 2Storm’s coming.',
      'Greeting 3Tea’s on the stove, Sam.',
    ]);
    expect(options[0]).toHaveAttribute('aria-pressed', 'true');
    // Refused (the conversation went on): nothing changes.
    fireEvent.click(options[2]!);
    await waitFor(() => expect(asked).toEqual([2]));
    // The choices are disabled until the server's answer is in (a click meanwhile is lost:
    // the full suite on two busy cores clicked too soon).
    await waitFor(() => expect(options[2]).toBeEnabled());
    expect(options[2]).toHaveAttribute('aria-pressed', 'false');
    accept = true;
    fireEvent.click(options[2]!);
    await waitFor(() => expect(options[2]).toHaveAttribute('aria-pressed', 'true'));
    expect(asked).toEqual([2, 2]);
    // The one shown is not asked for again.
    fireEvent.click(options[2]!);
    expect(asked).toEqual([2, 2]);
  });
});
