/** Reports of characters and replies (docs/api.md "Reports"): signed in, limited per hour. */
import { apiPost } from '@/lib/api-client';
import { ApiCode } from '@/lib/api-types';

/** The community guidelines' rules a report can name, in the order the dialog lists them. */
export const REPORT_REASONS = [
  'minor',
  'realPerson',
  'illegal',
  'nonConsensual',
  'hate',
  'harassment',
  'spam',
  'impersonation',
  'other',
] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/** The server's limit on a note, in characters. */
export const REPORT_NOTE_MAX_CHARS = 1000;

export interface ReportTarget {
  characterId: string;
  characterName: string;
  /** A reply of the character in the reporter's conversation; absent for the character itself. */
  messageId?: string;
}

/** POST report/reportContent; the dialog explains 10001, 10003 and 10006 itself. */
export function reportContent(target: ReportTarget, reason: ReportReason, note: string) {
  return apiPost<{ reportId: string }>(
    '/user/v1/report/reportContent',
    { characterId: target.characterId, ...(target.messageId ? { messageId: target.messageId } : {}), reason, note },
    { handledCodes: [ApiCode.paramError, ApiCode.rateLimited, ApiCode.notFound] },
  );
}
