import { render, screen } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { store } from '@/app/store';
import { ConversationList, type ConversationListProps } from '@/features/chat/components/conversation-list';
import type { ChatSummary } from '@/lib/api-types';

const OPEN = {
  characterId: 'gf-001',
  characterName: 'Sofia',
  characterPhoto: '/media/portrait-gf-001-1',
  preview: 'Hi there! I was hoping you would write.',
};

const summary = (characterId: string, characterName: string): ChatSummary => ({
  characterId,
  characterName,
  characterPhoto: `/media/portrait-${characterId}-1`,
  lastMessage: {
    messageId: `m-${characterId}`,
    speaker: 'character',
    content: `${characterName} says hello`,
    createdAt: 1_700_000_000_000,
  } as ChatSummary['lastMessage'],
});

function renderList(props: Partial<ConversationListProps>) {
  render(
    <Provider store={store}>
      <MemoryRouter>
        <ConversationList
          list={[]}
          status="ready"
          activeId={OPEN.characterId}
          onOpen={() => undefined}
          onDelete={async () => true}
          onRetry={() => undefined}
          {...props}
        />
      </MemoryRouter>
    </Provider>,
  );
}

const items = () => screen.queryAllByTestId('chat-list-item').map((item) => item.dataset.characterId);

describe('ConversationList beside an open chat', () => {
  it('shows the open chat, never "No chats yet", before the list holds it', () => {
    renderList({ open: OPEN });
    expect(screen.queryByTestId('chat-list-empty')).toBeNull();
    expect(items()).toEqual(['gf-001']);
    expect(screen.getByTestId('chat-list-item')).toHaveTextContent('Sofia');
    expect(screen.getByTestId('chat-list-item')).toHaveTextContent(OPEN.preview);
  });

  it('puts the open chat first while the list still lacks it, and shows it once when listed', () => {
    renderList({ open: OPEN, list: [summary('gf-002', 'Lena')] });
    expect(items()).toEqual(['gf-001', 'gf-002']);
  });

  it('shows the open chat while the list is loading', () => {
    renderList({ open: OPEN, status: 'loading' });
    expect(items()).toEqual(['gf-001']);
  });

  it('lists a listed open chat once, as the list has it', () => {
    renderList({ open: OPEN, list: [summary('gf-002', 'Lena'), summary('gf-001', 'Sofia')] });
    expect(items()).toEqual(['gf-002', 'gf-001']);
  });

  it('still says "No chats yet" with no chat open', () => {
    renderList({ activeId: undefined });
    expect(screen.getByTestId('chat-list-empty')).toBeInTheDocument();
  });
});

describe('ConversationList with entries of other features (group chats)', () => {
  const at = (s: ChatSummary, createdAt: number): ChatSummary => ({
    ...s,
    lastMessage: { ...s.lastMessage, createdAt },
  });
  const group = (key: string, activeAt: number, active = false) => ({
    key,
    activeAt,
    active,
    item: <span data-testid="extra-item">{key}</span>,
  });
  const rows = () =>
    [...document.querySelectorAll('[data-testid="chat-list-item"], [data-testid="chat-list-extra"]')].map(
      (row) => (row as HTMLElement).dataset.characterId ?? row.textContent,
    );

  it('places them among the conversations, the most recently active first', () => {
    renderList({
      activeId: undefined,
      list: [at(summary('gf-002', 'Lena'), 300), at(summary('gf-003', 'Mia'), 100)],
      extras: [group('Movie night', 400), group('Trio', 200)],
    });
    expect(rows()).toEqual(['Movie night', 'gf-002', 'Trio', 'gf-003']);
  });

  it('no longer says "No chats yet" when there are only groups, and marks the open one', () => {
    renderList({ activeId: undefined, extras: [group('Trio', 1, true)], actions: <button>New group</button> });
    expect(screen.queryByTestId('chat-list-empty')).toBeNull();
    expect(screen.getByTestId('chat-list-extra').className).toMatch(/listActive/);
    expect(screen.getByRole('button', { name: 'New group' })).toBeInTheDocument();
  });
});
