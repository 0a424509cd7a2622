import type { TFunction } from 'i18next';
import { ApiCode } from '@/lib/api-types';

/** The codes the chat screens explain in the reader's language (docs/api.md, API.md). */
const EXPLAINED = {
  [ApiCode.inputContentIllegal]: 'chat.refused',
  [ApiCode.needPay]: 'chat.errors.needPay',
  [ApiCode.rateLimited]: 'chat.errors.rateLimited',
  [ApiCode.paramError]: 'chat.errors.paramError',
  [ApiCode.notFound]: 'chat.errors.notFound',
} as const;

/**
 * Why a chat action (a `chatError`, an edit, a memory form) failed, for the user: known
 * codes translated; any other code shows the server's message, or the generic error.
 */
export function chatErrorText(t: TFunction, code: number, msg: string): string {
  const key = EXPLAINED[code as keyof typeof EXPLAINED];
  return key ? t(key) : msg || t('CommonErrorMsg');
}
