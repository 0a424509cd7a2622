/**
 * The pieces of the one-to-one chat a group chat shows the same way: message text, the
 * composer, the failure banner, times and error texts, and the message actions (the
 * versions bar and its swipe, the in-place edit form, the regenerate and continue icons,
 * how a continuation joins its reply). A feature imports no other feature
 * (eslint.config.js), so the app hands them in (src/app/routes/chats-route.tsx) and group
 * chat looks and behaves as one-to-one chat does, from the same code.
 */
import type { TFunction } from 'i18next';
import { createContext, useContext, type ComponentType, type PointerEvent, type ReactNode, type SVGProps } from 'react';

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

/** The newest reply's versions: which is shown, how many, where the arrows go (null: none that way). */
export interface PartsSwipe {
  index: number;
  count: number;
  previous: number | null;
  next: number | null;
}

export interface PartsSwipeBarProps {
  swipe: PartsSwipe;
  onChoose: (index: number) => void;
  /** Right past the last version: write a new one. */
  onNewVersion: () => void;
}

/** Pointer handlers that turn a sideways swipe of a finger into a choice, and how far the element follows it. */
export type PartsSwipeGesture = (
  swipe: PartsSwipe | null,
  onChoose: (index: number) => void,
  onNewVersion: () => void,
) => { offset: number; handlers: Partial<Record<`onPointer${string}`, (event: PointerEvent) => void>> };

export interface PartsEditFormProps {
  className?: string;
  value: string;
  maxLength: number;
  label: string;
  error: string | null;
  busy: boolean;
  onChange: (value: string) => void;
  onCancel: () => void;
  onSubmit: () => void;
  saveIcon?: ReactNode;
}

export interface ChatParts {
  MessageText: ComponentType<{ text: string }>;
  Composer: ComponentType<PartsComposerProps>;
  FailureBanner: ComponentType<{ failure: { code: number; msg: string }; onDismiss: () => void }>;
  formatFullTime: (createdAt: number, language: string) => string;
  formatListTime: (createdAt: number, language: string) => string;
  errorText: (t: TFunction, code: number, msg: string) => string;
  SwipeBar: ComponentType<PartsSwipeBarProps>;
  useSwipeGesture: PartsSwipeGesture;
  EditForm: ComponentType<PartsEditFormProps>;
  RegenerateIcon: ComponentType<SVGProps<SVGSVGElement> & { size?: number }>;
  ContinueIcon: ComponentType<SVGProps<SVGSVGElement> & { size?: number }>;
  /** A reply's text with its continuation so far, joined as the server will store it. */
  continuedText: (before: string, more: string) => string;
}

export const ChatPartsContext = createContext<ChatParts | null>(null);

export function useChatParts(): ChatParts {
  const parts = useContext(ChatPartsContext);
  if (!parts) throw new Error('group chat rendered without the chat parts (ChatPartsContext)');
  return parts;
}
