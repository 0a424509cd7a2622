/**
 * The legal and policy documents of spec section 1. Their texts live in the `legal`
 * i18next namespace (public/locales/<lng>/legal.json), loaded only by the pages and dialogs
 * that show them, so the first screen never downloads them.
 */
import { ROUTES } from '@/lib/routes';

export const LEGAL_NAMESPACE = 'legal';

export type LegalDocKey =
  | 'termsOfService'
  | 'termsOfUse'
  | 'privacyPolicy'
  | 'communityGuidelines'
  | 'payDisclaimer'
  | 'refundPolicy'
  | 'complaintPolicy'
  | 'compliance2257'
  | 'membershipPolicy';

/** Terms and privacy were both last modified on October 20, 2024 (spec section 1). */
const TERMS_AND_PRIVACY_MODIFIED = '2024-10-20';

export interface LegalDoc {
  key: LegalDocKey;
  /** The route of its page (its `seo.<key>` holds the page's title, description, keywords). */
  path: string;
  /** ISO date shown as "Last modified", when the spec gives one. */
  lastModified?: string;
}

export const LEGAL_DOCS: Record<LegalDocKey, LegalDoc> = {
  termsOfService: { key: 'termsOfService', path: ROUTES.termsOfService, lastModified: TERMS_AND_PRIVACY_MODIFIED },
  termsOfUse: { key: 'termsOfUse', path: ROUTES.termsOfUse, lastModified: TERMS_AND_PRIVACY_MODIFIED },
  privacyPolicy: { key: 'privacyPolicy', path: ROUTES.privacyPolicy, lastModified: TERMS_AND_PRIVACY_MODIFIED },
  communityGuidelines: { key: 'communityGuidelines', path: ROUTES.communityGuidelines },
  payDisclaimer: { key: 'payDisclaimer', path: ROUTES.payDisclaimer },
  refundPolicy: { key: 'refundPolicy', path: ROUTES.refundPolicy },
  complaintPolicy: { key: 'complaintPolicy', path: ROUTES.complaintPolicy },
  compliance2257: { key: 'compliance2257', path: ROUTES.compliance2257 },
  membershipPolicy: { key: 'membershipPolicy', path: ROUTES.membershipPolicy },
};

/**
 * Tags the texts may use around a phrase to link another document: `<privacy>Privacy
 * Policy</privacy>`. `mail` links the contact mailbox.
 */
export const LINK_TAGS: Record<string, LegalDocKey> = {
  terms: 'termsOfUse',
  termsOfService: 'termsOfService',
  privacy: 'privacyPolicy',
  guidelines: 'communityGuidelines',
  payDisclaimer: 'payDisclaimer',
  refund: 'refundPolicy',
  complaint: 'complaintPolicy',
  compliance: 'compliance2257',
  membership: 'membershipPolicy',
};

export interface LegalSection {
  heading: string;
  paragraphs: string[];
  items?: string[];
}

export interface LegalText {
  title: string;
  intro: string;
  sections: LegalSection[];
}

export type TextPart = { text: string } | { tag: string; text: string };

/** Splits `a <privacy>b</privacy> c` into plain and tagged parts (tags do not nest). */
export function parseTagged(source: string): TextPart[] {
  const parts: TextPart[] = [];
  const pattern = /<(\w+)>(.*?)<\/\1>/g;
  let last = 0;
  for (const match of source.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index > last) parts.push({ text: source.slice(last, index) });
    parts.push({ tag: match[1] ?? '', text: match[2] ?? '' });
    last = index + match[0].length;
  }
  if (last < source.length) parts.push({ text: source.slice(last) });
  return parts;
}
