import { describe, expect, it } from 'vitest';
import { applyPageMeta, truncateDescription } from '@/lib/seo';

describe('meta description', () => {
  it('is kept when it fits in 160 characters', () => {
    const text = 'a'.repeat(160);
    expect(truncateDescription(text)).toBe(text);
  });

  it('is cut to 160 characters with a trailing ellipsis', () => {
    const cut = truncateDescription('word '.repeat(60));
    expect(cut.length).toBeLessThanOrEqual(160);
    expect(cut.endsWith('…')).toBe(true);
    expect(truncateDescription('b'.repeat(161))).toBe(`${'b'.repeat(159)}…`);
  });

  it('collapses white space first', () => {
    expect(truncateDescription('  two \n\n words ')).toBe('two words');
  });
});

describe('page metadata', () => {
  it('sets title, description, keywords, canonical and both JSON-LD blocks', () => {
    applyPageMeta(
      {
        title: 'Amora – AI Boyfriend',
        description: 'x'.repeat(200),
        keywords: 'ai boyfriend',
        breadcrumbs: [
          { name: 'Home', path: '/' },
          { name: 'AI Boyfriend', path: '/ai-boyfriend' },
        ],
      },
      { origin: 'https://amora.test', pathname: '/ai-boyfriend' },
    );
    expect(document.title).toBe('Amora – AI Boyfriend');
    expect(document.querySelector<HTMLMetaElement>('meta[name="description"]')!.content).toHaveLength(160);
    expect(document.querySelector<HTMLMetaElement>('meta[name="keywords"]')!.content).toBe('ai boyfriend');
    expect(document.querySelector<HTMLLinkElement>('link[rel="canonical"]')!.href).toBe(
      'https://amora.test/ai-boyfriend',
    );
    const org = JSON.parse(document.getElementById('ld-organization')!.textContent!);
    expect(org).toMatchObject({ '@type': 'Organization', name: 'Amora', url: 'https://amora.test/' });
    const crumbs = JSON.parse(document.getElementById('ld-breadcrumb')!.textContent!);
    expect(crumbs['@type']).toBe('BreadcrumbList');
    expect(crumbs.itemListElement[1]).toEqual({
      '@type': 'ListItem',
      position: 2,
      name: 'AI Boyfriend',
      item: 'https://amora.test/ai-boyfriend',
    });
  });

  it('updates the same elements on the next page instead of adding more', () => {
    const meta = { title: 'Home', description: 'd', keywords: 'k', breadcrumbs: [{ name: 'Home', path: '/' }] };
    applyPageMeta(meta, { origin: 'https://amora.test', pathname: '/' });
    applyPageMeta(meta, { origin: 'https://amora.test', pathname: '/de/' });
    expect(document.querySelectorAll('link[rel="canonical"]')).toHaveLength(1);
    expect(document.querySelectorAll('script[type="application/ld+json"]')).toHaveLength(2);
    expect(document.querySelector<HTMLLinkElement>('link[rel="canonical"]')!.href).toBe('https://amora.test/de/');
  });
});
