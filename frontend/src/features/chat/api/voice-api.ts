/** The voice calls of docs/api.md "Voice". */
import { apiPost } from '@/lib/api-client';
import { ApiCode, type VoicePart } from '@/lib/api-types';

export interface SpeakAnswer {
  messageId: string;
  parts: VoicePart[];
  /** False: more parts follow as `voicePart` events. */
  complete: boolean;
  /** The balance after the first play's debit. */
  coin: number;
}

/**
 * POST voice/speak: the first play of a message costs `genVoiceCoin`, later plays are free.
 * Too few coins (40004), an unknown message (10006) and a busy server (10003) are shown by
 * the play button itself.
 */
export function speak(characterId: string, messageId: string) {
  return apiPost<SpeakAnswer>(
    '/user/v1/voice/speak',
    { characterId, messageId },
    { handledCodes: [ApiCode.needPay, ApiCode.notFound, ApiCode.rateLimited, ApiCode.paramError] },
  );
}
