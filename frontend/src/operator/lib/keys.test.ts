import { describe, expect, it } from 'vitest';
import { moveSelection, shortcutOf } from '@/operator/lib/keys';

describe('queue keys', () => {
  it('maps the letters to actions', () => {
    expect(shortcutOf({ key: 'j' })).toBe('next');
    expect(shortcutOf({ key: 'k' })).toBe('previous');
    expect(shortcutOf({ key: 'd' })).toBe('dismiss');
    expect(shortcutOf({ key: 'h' })).toBe('hide');
    expect(shortcutOf({ key: 'a' })).toBe('approve');
    expect(shortcutOf({ key: 'r' })).toBe('reject');
    expect(shortcutOf({ key: '?' })).toBe('help');
    expect(shortcutOf({ key: 'q' })).toBeNull();
  });

  it('ignores modified keys and keys typed into fields or dialogs', () => {
    expect(shortcutOf({ key: 'r', ctrlKey: true })).toBeNull();
    expect(shortcutOf({ key: 'a', metaKey: true })).toBeNull();
    const input = document.createElement('input');
    expect(shortcutOf({ key: 'd', target: input })).toBeNull();
    const dialog = document.createElement('div');
    dialog.setAttribute('role', 'dialog');
    const button = document.createElement('button');
    dialog.append(button);
    expect(shortcutOf({ key: 'd', target: button })).toBeNull();
    expect(shortcutOf({ key: 'd', target: document.body })).toBe('dismiss');
  });

  it('moves the selection within the list', () => {
    expect(moveSelection(0, 3, 'next')).toBe(1);
    expect(moveSelection(2, 3, 'next')).toBe(2);
    expect(moveSelection(0, 3, 'previous')).toBe(0);
    expect(moveSelection(5, 0, 'next')).toBe(0);
  });
});
