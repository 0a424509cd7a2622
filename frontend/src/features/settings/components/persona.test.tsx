import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { store } from '@/app/store';
import { PersonaSection } from '@/features/settings/components/persona-section';
import { ApiCode } from '@/lib/api-types';
import { personaFor, personaProblem, type UserPersona } from '@/lib/persona';
import { serveApi } from '@/test/fake-api';

const EVERYONE: UserPersona = { characterId: null, name: 'Captain Ann', description: 'A night nurse who sails.' };
const OWN: UserPersona = { characterId: 'gf-001', name: 'Dr Ann', description: 'Her new neighbour.' };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('a persona', () => {
  it('is checked as the server checks it', () => {
    expect(personaProblem('Ann', '')).toBeNull();
    expect(personaProblem('   ', 'x')).toBe('name');
    expect(personaProblem('a'.repeat(31), '')).toBe('name');
    expect(personaProblem('  Ann  ', ' ' + 'é'.repeat(500) + ' ')).toBeNull();
    expect(personaProblem('Ann', 'é'.repeat(501))).toBe('description');
  });

  it("applies a character's own over the one for every character", () => {
    expect(personaFor([EVERYONE, OWN], 'gf-001')).toEqual(OWN);
    expect(personaFor([EVERYONE, OWN], 'gf-002')).toEqual(EVERYONE);
    expect(personaFor([OWN], 'gf-002')).toBeNull();
  });
});

describe('the settings persona section', () => {
  const renderSection = () =>
    render(
      <Provider store={store}>
        <PersonaSection accountName="mira" />
      </Provider>,
    );

  it('starts from the account name and saves the persona for every character', async () => {
    const calls = serveApi({
      '/user/v1/persona/getPersonaList': { code: 200, data: [] },
      '/user/v1/persona/setPersona': {
        code: 200,
        data: { characterId: null, name: 'Mira', description: 'Night nurse.' },
      },
    });
    renderSection();
    const name = (await screen.findByTestId('persona-form-name')) as HTMLInputElement;
    expect(name.value).toBe('mira');
    expect(screen.queryByTestId('persona-form-remove')).toBeNull();
    fireEvent.change(name, { target: { value: ' Mira ' } });
    fireEvent.change(screen.getByTestId('persona-form-description'), { target: { value: 'Night nurse. ' } });
    expect(screen.getByText('12/500')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('persona-form-save'));
    await waitFor(() => expect(calls.some((c) => c.path === '/user/v1/persona/setPersona')).toBe(true));
    expect(calls.find((c) => c.path === '/user/v1/persona/setPersona')!.payload).toEqual({
      characterId: null,
      name: 'Mira',
      description: 'Night nurse.',
    });
    expect(await screen.findByTestId('persona-form-remove')).toBeInTheDocument();
  });

  it('explains a refusal and keeps what was typed', async () => {
    serveApi({
      '/user/v1/persona/getPersonaList': { code: 200, data: [EVERYONE] },
      '/user/v1/persona/setPersona': { code: ApiCode.inputContentIllegal, msg: 'content not allowed' },
    });
    renderSection();
    const description = (await screen.findByTestId('persona-form-description')) as HTMLTextAreaElement;
    expect(description.value).toBe(EVERYONE.description);
    expect((screen.getByTestId('persona-form-save') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(description, { target: { value: 'Something else' } });
    fireEvent.click(screen.getByTestId('persona-form-save'));
    expect(await screen.findByTestId('persona-form-error')).toHaveTextContent(
      'not allowed by the community guidelines',
    );
    expect(description.value).toBe('Something else');
  });

  it('does not send a name that is too long or empty', async () => {
    const calls = serveApi({ '/user/v1/persona/getPersonaList': { code: 200, data: [] } });
    renderSection();
    const name = await screen.findByTestId('persona-form-name');
    fireEvent.change(name, { target: { value: '   ' } });
    expect(screen.getByText('1 to 30 characters.')).toBeInTheDocument();
    expect((screen.getByTestId('persona-form-save') as HTMLButtonElement).disabled).toBe(true);
    expect(calls.filter((c) => c.path === '/user/v1/persona/setPersona')).toEqual([]);
  });
});
