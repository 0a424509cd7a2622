import { describe, expect, it } from 'vitest';
import { TOPICS } from '@/features/home/lib/topics';
import { Gender } from '@/lib/api-types';
import { LANDING_ROUTES } from '@/lib/routes';

describe('landing topics', () => {
  it('cover every landing route', () => {
    expect(Object.keys(TOPICS).sort()).toEqual(LANDING_ROUTES.map(({ key }) => key).sort());
  });

  it('show boyfriends on the gay page and girlfriends elsewhere', () => {
    expect(TOPICS.aiGay.gender).toBe(Gender.guys);
    expect(TOPICS.aiSex.gender).toBe(Gender.girls);
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
      expect(Object.keys(translation.seo[key] ?? {}).sort(), `seo.${key}`).toEqual([
        'description',
        'keywords',
        'title',
      ]);
    }
  });
});
