import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { store, userInfoAtom } from '@/app/store';
import { MemoriesPanel } from '@/features/chat/components/memories-panel';
import { useMemories } from '@/features/chat/hooks/use-memories';
import type { Memory, UserInfo } from '@/lib/api-types';
import { serveApi, type FakeCall } from '@/test/fake-api';

const CHARACTER = 'gf-001';
const memory = (id: string, content: string, pinned = false): Memory => ({
  memoryId: id,
  content,
  origin: 'extracted',
  createdAt: 1,
  pinned,
});

function Panel() {
  const memories = useMemories(CHARACTER);
  return <MemoriesPanel memories={memories} characterName="Mia" sheet={false} onClose={() => undefined} />;
}

let calls: FakeCall[];

beforeEach(() => act(() => store.set(userInfoAtom, { userId: 'u1' } as UserInfo)));
afterEach(() => act(() => store.set(userInfoAtom, null)));

async function shown() {
  render(
    <Provider store={store}>
      <Panel />
    </Provider>,
  );
  await waitFor(() => expect(screen.getAllByTestId('memory-item')).toHaveLength(2));
  return screen.getAllByTestId('memory-item');
}

describe('pinning in the memories panel', () => {
  it('pins a memory (the server answers it pinned) and unpins it again', async () => {
    calls = serveApi({
      '/user/v1/memory/getMemoryList': {
        code: 200,
        data: [memory('2', 'Works as a nurse'), memory('1', 'Has a dog called Biscuit', true)],
      },
      '/user/v1/memory/pinMemory': [
        { code: 200, data: memory('2', 'Works as a nurse', true) },
        { code: 200, data: memory('2', 'Works as a nurse', false) },
      ],
    });
    const [nurse, dog] = await shown();
    expect(dog).toHaveAttribute('data-pinned', 'true');
    expect(within(dog!).getByText(/Pinned/)).toBeInTheDocument();
    expect(within(dog!).getByTestId('memory-pin')).toHaveAttribute('aria-pressed', 'true');
    const pin = within(nurse!).getByTestId('memory-pin');
    expect(pin).toHaveAttribute('aria-pressed', 'false');
    expect(pin).toHaveAccessibleName('Pin: always remember');

    fireEvent.click(pin);
    await waitFor(() => expect(pin).toHaveAttribute('aria-pressed', 'true'));
    expect(nurse).toHaveAttribute('data-pinned', 'true');
    expect(pin).toHaveAccessibleName('Unpin');
    fireEvent.click(pin);
    await waitFor(() => expect(pin).toHaveAttribute('aria-pressed', 'false'));
    const pins = calls.filter((c) => c.path === '/user/v1/memory/pinMemory').map((c) => c.payload);
    expect(pins).toEqual([
      { characterId: CHARACTER, memoryId: '2', pinned: true },
      { characterId: CHARACTER, memoryId: '2', pinned: false },
    ]);
  });

  it('shows a refused pin where it was asked, and leaves the memory as it was', async () => {
    serveApi({
      '/user/v1/memory/getMemoryList': { code: 200, data: [memory('2', 'Works as a nurse'), memory('1', 'Has a dog')] },
      '/user/v1/memory/pinMemory': { code: 10001, msg: 'at most 10 memories can be pinned: unpin one first' },
    });
    const [nurse] = await shown();
    fireEvent.click(within(nurse!).getByTestId('memory-pin'));
    expect(await within(nurse!).findByRole('alert')).toHaveTextContent(/.+/);
    expect(nurse).toHaveAttribute('data-pinned', 'false');
  });
});
