/** Reports of characters, replies and public feed images (docs/api.md "Reports"): signed in, limited per hour. */
import { apiPost } from '@/lib/api-client';
import { ApiCode, type ReportReceipt, type ReportRequest } from '@/lib/api-types';

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

export interface CharacterReportTarget {
  characterId: string;
  characterName: string;
  /** A reply of the character in the reporter's conversation; absent for the character itself. */
  messageId?: string;
}

/** An image of the public feed; enough distinct reporters take it out of the feed until the operator decides. */
export interface FeedImageReportTarget {
  feedId: string;
}

export type ReportTarget = CharacterReportTarget | FeedImageReportTarget;

/** POST report/reportContent; the dialog explains 10001, 10003 and 10006 itself. */
export function reportContent(target: ReportTarget, reason: ReportReason, note: string) {
  const about =
    'feedId' in target
      ? { feedId: target.feedId }
      : { characterId: target.characterId, ...(target.messageId ? { messageId: target.messageId } : {}) };
  return apiPost<ReportReceipt>('/user/v1/report/reportContent', { ...about, reason, note } satisfies ReportRequest, {
    handledCodes: [ApiCode.paramError, ApiCode.rateLimited, ApiCode.notFound],
  });
}
