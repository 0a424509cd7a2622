/**
 * The legal texts the console edits: the same object the user app keeps per document in the
 * `legal` namespace (public/locales/<lang>/legal.json, `docs.<docKey>`).
 */
import type { LegalDocKey, LegalText } from '@/features/legal/lib/legal-docs';

export const LEGAL_DOC_KEYS: LegalDocKey[] = [
  'termsOfService',
  'termsOfUse',
  'privacyPolicy',
  'communityGuidelines',
  'payDisclaimer',
  'refundPolicy',
  'complaintPolicy',
  'compliance2257',
  'membershipPolicy',
];

export const LEGAL_LANGUAGES = ['en', 'de', 'es', 'fr', 'id', 'it', 'ja', 'ko', 'pl', 'pt'];

export type { LegalText };

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The text when `value` has the shape of a legal text, else the first problem found. */
export function checkLegalText(value: unknown): { text: LegalText } | { problem: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'The text must be an object.' };
  const v = value as Record<string, unknown>;
  if (typeof v.title !== 'string' || !v.title.trim()) return { problem: 'title: a non-empty string' };
  if (typeof v.intro !== 'string') return { problem: 'intro: a string' };
  if (!Array.isArray(v.sections) || v.sections.length === 0) return { problem: 'sections: a non-empty list' };
  for (const [index, section] of v.sections.entries()) {
    const s = section as Record<string, unknown> | null;
    const at = `sections[${index}]`;
    if (!s || typeof s !== 'object') return { problem: `${at}: an object` };
    if (typeof s.heading !== 'string' || !s.heading.trim()) return { problem: `${at}.heading: a non-empty string` };
    if (!isStrings(s.paragraphs)) return { problem: `${at}.paragraphs: a list of strings` };
    if (s.items !== undefined && !isStrings(s.items)) return { problem: `${at}.items: a list of strings` };
  }
  return { text: value as LegalText };
}

/** Parses the editor's JSON and checks it. */
export function parseLegalJson(source: string): { text: LegalText } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    return { problem: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  return checkLegalText(value);
}

/** The text shipped with the app, when no version was published yet. */
export async function bundledLegalText(lang: string, doc: string): Promise<LegalText | null> {
  const response = await fetch(`/locales/${encodeURIComponent(lang)}/legal.json`);
  if (!response.ok) return null;
  const json = (await response.json()) as { docs?: Record<string, unknown> };
  const found = checkLegalText(json.docs?.[doc]);
  return 'text' in found ? found.text : null;
}
