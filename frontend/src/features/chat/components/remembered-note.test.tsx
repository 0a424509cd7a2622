import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { RememberedNote, type MemoryFixes } from '@/features/chat/components/remembered-note';
import type { Recalled } from '@/lib/api-types';

const RECALLED: Recalled = {
  memories: [{ id: 'm1', content: "Ann's dog is called Luna" }],
  messages: [{ id: '3', content: 'My dog is called Biscuit and I work as a nurse.' }],
};

function fixesRecording() {
  const calls: string[] = [];
  const fixes: MemoryFixes = {
    update: async (id, content) => {
      calls.push(`update ${id}: ${content}`);
      return { ok: true };
    },
    remove: async (id) => {
      calls.push(`remove ${id}`);
      return true;
    },
  };
  return { calls, fixes };
}

describe('the remembered note under a reply', () => {
  it('says how much was remembered and opens to list the memories and earlier messages', () => {
    render(<RememberedNote recalled={RECALLED} />);
    const toggle = screen.getByRole('button', { name: 'Remembered (2)' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByTestId('remembered-memory')).toBeNull();
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText('Memories used')).toBeInTheDocument();
    expect(screen.getByTestId('remembered-memory')).toHaveTextContent("Ann's dog is called Luna");
    expect(screen.getByText('What you said earlier')).toBeInTheDocument();
    expect(screen.getByTestId('remembered-message')).toHaveTextContent(
      '“My dog is called Biscuit and I work as a nurse.”',
    );
    // Without the calls to fix memories, none is offered.
    expect(screen.queryByRole('button', { name: 'Edit memory' })).toBeNull();
  });

  it('lets a wrong memory be edited or deleted where it shows', async () => {
    const { calls, fixes } = fixesRecording();
    render(<RememberedNote recalled={RECALLED} fixes={fixes} />);
    fireEvent.click(screen.getByRole('button', { name: 'Remembered (2)' }));
    fireEvent.click(screen.getByRole('button', { name: 'Edit memory' }));
    const field = screen.getByDisplayValue("Ann's dog is called Luna");
    fireEvent.change(field, { target: { value: "Ann's dog is called Biscuit" } });
    fireEvent.submit(field.closest('form')!);
    await waitFor(() => expect(calls).toEqual(["update m1: Ann's dog is called Biscuit"]));
    await waitFor(() => expect(screen.queryByDisplayValue("Ann's dog is called Biscuit")).toBeNull());
    fireEvent.click(screen.getByRole('button', { name: 'Delete memory' }));
    await waitFor(() => expect(calls).toEqual(["update m1: Ann's dog is called Biscuit", 'remove m1']));
  });

  it('shows nothing when nothing was remembered', () => {
    const { container } = render(<RememberedNote recalled={{ memories: [], messages: [] }} />);
    expect(container).toBeEmptyDOMElement();
  });
});
