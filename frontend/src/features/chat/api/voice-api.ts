/** The voice calls of docs/api.md "Voice". */
import { apiPost } from '@/lib/api-client';
import { ApiCode, type SpeakAnswer, type SpeakRequest } from '@/lib/api-types';

export type { SpeakAnswer } from '@/lib/api-types';

/**
 * POST voice/speak: the first play of a message costs `genVoiceCoin`, later plays are free.
 * Too few coins (40004), an unknown message (10006) and a busy server (10003) are shown by
 * the play button itself.
 */
export function speak(characterId: string, messageId: string) {
  return apiPost<SpeakAnswer>('/user/v1/voice/speak', { characterId, messageId } satisfies SpeakRequest, {
    handledCodes: [ApiCode.needPay, ApiCode.notFound, ApiCode.rateLimited, ApiCode.paramError],
  });
}
