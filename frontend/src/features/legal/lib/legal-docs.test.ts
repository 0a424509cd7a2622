import { describe, expect, it } from 'vitest';
import { parseTagged } from '@/features/legal/lib/legal-docs';

describe('tagged legal text', () => {
  it('splits links out of a paragraph', () => {
    expect(parseTagged('Read the <privacy>Privacy Policy</privacy> and <mail>x@y.z</mail>.')).toEqual([
      { text: 'Read the ' },
      { tag: 'privacy', text: 'Privacy Policy' },
      { text: ' and ' },
      { tag: 'mail', text: 'x@y.z' },
      { text: '.' },
    ]);
  });

  it('keeps a paragraph without tags whole', () => {
    expect(parseTagged('Adults only.')).toEqual([{ text: 'Adults only.' }]);
  });
});
