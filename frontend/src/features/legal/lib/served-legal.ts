/**
 * Legal texts published by operators (the console's Legal desk) override the texts shipped
 * in the `legal` namespace: `POST /user/v1/legal/getLegalTexts {lang}` answers
 * `{docs: [{docKey, lastModified, text}]}`. The bundled text shows while this loads, when the
 * call fails, and for any document without a well-formed served version.
 */
import type { LegalDocKey, LegalText } from '@/features/legal/lib/legal-docs';
import { apiPost } from '@/lib/api-client';
import type { LegalTexts, LegalTextsRequest } from '@/lib/api-types';

export interface ServedLegalDoc {
  lastModified: string;
  text: LegalText;
}

export type ServedLegalDocs = Partial<Record<LegalDocKey, ServedLegalDoc>>;

interface WireDoc {
  docKey?: unknown;
  lastModified?: unknown;
  text?: unknown;
}

const isStrings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');

function isLegalText(value: unknown): value is LegalText {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.title === 'string' &&
    typeof v.intro === 'string' &&
    Array.isArray(v.sections) &&
    v.sections.every((section: unknown) => {
      const s = section as Record<string, unknown> | null;
      return (
        !!s && typeof s.heading === 'string' && isStrings(s.paragraphs) && (s.items === undefined || isStrings(s.items))
      );
    })
  );
}

/** The well-formed served documents of an answer, by key. */
export function servedDocs(docs: unknown): ServedLegalDocs {
  const found: ServedLegalDocs = {};
  if (!Array.isArray(docs)) return found;
  for (const doc of docs as WireDoc[]) {
    if (typeof doc?.docKey !== 'string' || typeof doc.lastModified !== 'string') continue;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(doc.lastModified) || !isLegalText(doc.text)) continue;
    found[doc.docKey as LegalDocKey] = { lastModified: doc.lastModified, text: doc.text };
  }
  return found;
}

/** The served versions for `lang`; an empty set when the call fails (quietly: the bundled text stays). */
export async function loadServedLegal(lang: string): Promise<ServedLegalDocs> {
  try {
    const envelope = await apiPost<LegalTexts>('/user/v1/legal/getLegalTexts', { lang } satisfies LegalTextsRequest, {
      quiet: true,
    });
    return envelope.success && envelope.data ? servedDocs(envelope.data.docs) : {};
  } catch {
    return {};
  }
}
