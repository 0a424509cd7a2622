import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { store, userInfoAtom } from '@/app/store';
import { PersonaDialog } from '@/features/chat/components/persona-dialog';
import type { UserPersona } from '@/lib/persona';
import { serveApi } from '@/test/fake-api';

const EVERYONE: UserPersona = { characterId: null, name: 'Captain Ann', description: 'A night nurse who sails.' };
const OWN: UserPersona = { characterId: 'gf-001', name: 'Dr Ann', description: 'Her new neighbour.' };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the chat screen's persona dialog", () => {
  const renderDialog = () => {
    act(() => store.set(userInfoAtom, { userName: 'mira' } as never));
    return render(
      <Provider store={store}>
        <PersonaDialog open characterId="gf-001" characterName="Sofia" onClose={() => undefined} />
      </Provider>,
    );
  };

  it("shows the persona that applies and removes the character's own", async () => {
    const calls = serveApi({ '/user/v1/persona/getPersonaList': { code: 200, data: [EVERYONE, OWN] } });
    renderDialog();
    expect(await screen.findByTestId('persona-current')).toHaveTextContent('Now: Dr Ann, just for Sofia.');
    expect((screen.getByTestId('chat-persona-form-name') as HTMLInputElement).value).toBe('Dr Ann');
    fireEvent.click(screen.getByTestId('chat-persona-form-remove'));
    await waitFor(() =>
      expect(screen.getByTestId('persona-current')).toHaveTextContent('Now: your usual persona, Captain Ann.'),
    );
    expect(calls.find((c) => c.path === '/user/v1/persona/deletePersona')!.payload).toEqual({ characterId: 'gf-001' });
    expect((screen.getByTestId('chat-persona-form-name') as HTMLInputElement).value).toBe('Captain Ann');
  });

  it('sets a persona just for this character', async () => {
    const calls = serveApi({
      '/user/v1/persona/getPersonaList': { code: 200, data: [] },
      '/user/v1/persona/setPersona': { code: 200, data: { characterId: 'gf-001', name: 'Dr Ann', description: '' } },
    });
    renderDialog();
    expect(await screen.findByTestId('persona-current')).toHaveTextContent('Now: your account name, mira.');
    fireEvent.change(screen.getByTestId('chat-persona-form-name'), { target: { value: 'Dr Ann' } });
    fireEvent.click(screen.getByTestId('chat-persona-form-save'));
    await waitFor(() =>
      expect(screen.getByTestId('persona-current')).toHaveTextContent('Now: Dr Ann, just for Sofia.'),
    );
    expect(calls.find((c) => c.path === '/user/v1/persona/setPersona')!.payload).toEqual({
      characterId: 'gf-001',
      name: 'Dr Ann',
      description: '',
    });
  });
});
