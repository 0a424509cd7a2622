/**
 * The pieces of the one-to-one chat a group chat shows the same way: message text, the
 * composer, the failure banner, times and error texts. A feature imports no other feature
 * (eslint.config.js), so the app hands them in (src/app/routes/chats-route.tsx) and group
 * chat looks and behaves as one-to-one chat does, from the same code.
 */
import type { TFunction } from 'i18next';
import { createContext, useContext, type ComponentType } from 'react';

export interface PartsComposerProps {
  /** Shown in the placeholder ("Message {{name}}…"). */
  characterName: string;
  /** A round is running: the button stops it instead of sending. */
  replying: boolean;
  /** Free messages left today; null hides the count. */
  creditsLeft: number | null;
  onSend: (content: string) => boolean;
  onStop: () => boolean;
}

export interface ChatParts {
  MessageText: ComponentType<{ text: string }>;
  Composer: ComponentType<PartsComposerProps>;
  FailureBanner: ComponentType<{ failure: { code: number; msg: string }; onDismiss: () => void }>;
  formatFullTime: (createdAt: number, language: string) => string;
  formatListTime: (createdAt: number, language: string) => string;
  errorText: (t: TFunction, code: number, msg: string) => string;
}

export const ChatPartsContext = createContext<ChatParts | null>(null);

export function useChatParts(): ChatParts {
  const parts = useContext(ChatPartsContext);
  if (!parts) throw new Error('group chat rendered without the chat parts (ChatPartsContext)');
  return parts;
}
