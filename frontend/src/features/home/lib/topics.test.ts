import { describe, expect, it } from 'vitest';
import { pickTopicCharacters, TOPICS } from '@/features/home/lib/topics';
import { Gender } from '@/lib/api-types';
import { LANDING_ROUTES } from '@/lib/routes';

const character = (id: string, tags: string[]) => ({ id, tags });

describe('landing topics', () => {
  it('cover every landing route', () => {
    expect(Object.keys(TOPICS).sort()).toEqual(LANDING_ROUTES.map(({ key }) => key).sort());
  });

  it('show boyfriends on the gay page and girlfriends elsewhere', () => {
    expect(TOPICS.aiGay.gender).toBe(Gender.guys);
    expect(TOPICS.aiSex.gender).toBe(Gender.girls);
  });

  it('pick characters sharing tags, most shared first, catalogue order among equals', () => {
    const list = [
      character('a', ['Sweet', 'Cozy']),
      character('b', ['Flirty']),
      character('c', ['Passionate', 'Flirty']),
      character('d', ['Bold']),
    ];
    expect(pickTopicCharacters(TOPICS.aiSex, list).map((c) => c.id)).toEqual(['c', 'b', 'd']);
    expect(pickTopicCharacters(TOPICS.aiSex, list, 2).map((c) => c.id)).toEqual(['c', 'b']);
  });
});

describe('landing copy', () => {
  it('each landing page has copy in the topics namespace and title, description and keywords under seo.<key>', async () => {
    const topics = (await import('../../../../public/locales/en/topics.json')).default as Record<string, unknown>;
    const translation = (await import('../../../../public/locales/en/translation.json')).default as unknown as {
      seo: Record<string, Record<string, string>>;
    };
    expect(Object.keys(topics).sort()).toEqual(LANDING_ROUTES.map(({ key }) => key).sort());
    for (const { key } of LANDING_ROUTES) {
      expect(Object.keys(translation.seo[key] ?? {}).sort(), `seo.${key}`).toEqual(['description', 'keywords', 'title']);
    }
  });
});
