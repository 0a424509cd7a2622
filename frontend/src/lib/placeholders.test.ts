import { describe, expect, it } from 'vitest';
import { fillPlaceholders } from '@/lib/placeholders';

describe('fillPlaceholders', () => {
  it('fills every form of the character and user placeholders', () => {
    expect(
      fillPlaceholders(
        '{{char}} waves at {{user}}. <BOT> and <USER>, {char} and {user}, {{ Char }}, <char>.',
        'Marisol',
        'Sam',
      ),
    ).toBe('Marisol waves at Sam. Marisol and Sam, Marisol and Sam, Marisol, Marisol.');
  });

  it('does not expand a name that itself holds a placeholder', () => {
    expect(fillPlaceholders('{{user}} meets {{char}}', '{{user}}', '<BOT>')).toBe('<BOT> meets {{user}}');
  });

  it('leaves other macros as written', () => {
    expect(fillPlaceholders('{{random:a,b}} {{char}}', 'Ann', 'Sam')).toBe('{{random:a,b}} Ann');
  });
});
