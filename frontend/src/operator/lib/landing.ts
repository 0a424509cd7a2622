/**
 * The landing pages' copy the console edits: the object the user app keeps per page in the
 * `topics` namespace (public/locales/<lang>/topics.json, `<topic>`), checked as the server's
 * `content::landing::check_copy` checks it (the server checks again).
 */
import type { LandingCopy } from '@/operator/lib/types';

/** The landing pages by topic key, with their addresses. */
export const LANDING_TOPICS: { topic: string; path: string }[] = [
  { topic: 'aiSex', path: '/ai-sex' },
  { topic: 'aiPorn', path: '/ai-porn' },
  { topic: 'aiNude', path: '/ai-nude' },
  { topic: 'spicyAi', path: '/spicy-ai' },
  { topic: 'hentaiAi', path: '/hentai-ai' },
  { topic: 'aiGay', path: '/ai-gay' },
  { topic: 'aiIncest', path: '/ai-incest' },
  { topic: 'aiFuta', path: '/ai-futa' },
];

export const LIMITS = {
  heading: 200,
  intro: 2000,
  points: 10,
  point: 300,
  faq: 20,
  question: 300,
  answer: 2000,
} as const;

export const EMPTY_COPY: LandingCopy = { heading: '', intro: '', points: [], faq: [] };

const chars = (text: string) => [...text].length;

function textProblem(value: unknown, field: string, max: number): string | null {
  const text = typeof value === 'string' ? value.trim() : '';
  return text && chars(text) <= max ? null : `${field}: required, 1 to ${max} characters`;
}

/** Every problem the server would refuse the copy for, naming the field. */
export function copyProblems(copy: LandingCopy): string[] {
  const problems: (string | null)[] = [
    textProblem(copy.heading, 'heading', LIMITS.heading),
    textProblem(copy.intro, 'intro', LIMITS.intro),
  ];
  if (copy.points.length > LIMITS.points) problems.push(`points: at most ${LIMITS.points}`);
  copy.points.forEach((point, i) => problems.push(textProblem(point, `points[${i}]`, LIMITS.point)));
  if (copy.faq.length > LIMITS.faq) problems.push(`faq: at most ${LIMITS.faq}`);
  copy.faq.forEach((item, i) => {
    problems.push(textProblem(item.q, `faq[${i}].q`, LIMITS.question));
    problems.push(textProblem(item.a, `faq[${i}].a`, LIMITS.answer));
  });
  return problems.filter((p): p is string => p !== null);
}

/** The copy when `value` has its shape (a published or shipped one), else null. */
export function asCopy(value: unknown): LandingCopy | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const strings = (list: unknown): list is string[] => Array.isArray(list) && list.every((s) => typeof s === 'string');
  const faq = Array.isArray(v.faq)
    ? v.faq.filter(
        (item: unknown): item is { q: string; a: string } =>
          !!item && typeof (item as { q?: unknown }).q === 'string' && typeof (item as { a?: unknown }).a === 'string',
      )
    : null;
  if (typeof v.heading !== 'string' || typeof v.intro !== 'string' || !strings(v.points) || !faq) return null;
  return { heading: v.heading, intro: v.intro, points: v.points, faq: faq.map(({ q, a }) => ({ q, a })) };
}

/** The points as the editor writes them, one a line; blank lines dropped. */
export function pointsFromLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}
