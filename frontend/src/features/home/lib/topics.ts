/**
 * The search-topic landing pages (spec section 2): which catalogue each one shows and by
 * which character tags. Copy lives in the `topics` namespace (public/locales/<lng>/topics.json),
 * loaded only by these pages. Every topic stays within the community guidelines: fictional
 * adults only, and `aiIncest` is forbidden romance between unrelated adults.
 */
import { Gender, type GenderValue } from '@/lib/api-types';
import type { LANDING_ROUTES } from '@/lib/routes';

export const TOPICS_NAMESPACE = 'topics';

export type TopicKey = (typeof LANDING_ROUTES)[number]['key'];

export interface Topic {
  gender: GenderValue;
  /** Catalogue tags (docs/api.md `Character.tags`) that fit the topic; the grid asks the list API for any of them. */
  tags: readonly string[];
}

export const TOPICS: Record<TopicKey, Topic> = {
  aiSex: { gender: Gender.girls, tags: ['Passionate', 'Flirty', 'Bold', 'Romantic'] },
  aiPorn: { gender: Gender.girls, tags: ['Bold', 'Confident', 'Passionate', 'Flirty'] },
  aiNude: { gender: Gender.girls, tags: ['Artistic', 'Confident', 'Flirty', 'Bold'] },
  spicyAi: { gender: Gender.girls, tags: ['Flirty', 'Playful', 'Passionate', 'Witty'] },
  hentaiAi: { gender: Gender.girls, tags: ['Nerdy', 'Playful', 'Dreamy', 'Artistic'] },
  aiGay: { gender: Gender.guys, tags: ['Romantic', 'Confident', 'Flirty', 'Passionate'] },
  aiIncest: { gender: Gender.girls, tags: ['Mysterious', 'Bold', 'Passionate', 'Ambitious'] },
  aiFuta: { gender: Gender.girls, tags: ['Bold', 'Confident', 'Mysterious', 'Adventurous'] },
};

/** How many characters a landing page shows. */
export const TOPIC_GRID_SIZE = 12;

export interface TopicCopy {
  heading: string;
  intro: string;
  points: string[];
  faq: { q: string; a: string }[];
}
