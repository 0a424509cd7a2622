/**
 * Per-route document metadata (spec section 2): title, keywords, description cut to 160
 * characters with a trailing ellipsis, a canonical link that follows the path, and JSON-LD
 * Organization and BreadcrumbList data on every page.
 */
import { APP_NAME, META_DESCRIPTION_MAX } from '@/lib/site';

const ELLIPSIS = '…';

export function truncateDescription(text: string, max: number = META_DESCRIPTION_MAX): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  return `${clean.slice(0, max - ELLIPSIS.length).trimEnd()}${ELLIPSIS}`;
}

export interface Breadcrumb {
  name: string;
  /** Path inside the site, e.g. `/ai-boyfriend`. */
  path: string;
}

export interface PageMeta {
  title: string;
  description: string;
  keywords: string;
  /** From the home page down to this page; the home page alone has one entry. */
  breadcrumbs: Breadcrumb[];
  /** Ask crawlers not to index (error pages). */
  noIndex?: boolean;
  /** schema.org Article data (blog posts); other pages drop any left from the last one. */
  article?: object;
}

function upsertMeta(attribute: 'name' | 'property', key: string, content: string): void {
  let element = document.head.querySelector<HTMLMetaElement>(`meta[${attribute}="${key}"]`);
  if (!element) {
    element = document.createElement('meta');
    element.setAttribute(attribute, key);
    document.head.appendChild(element);
  }
  element.content = content;
}

function upsertJsonLd(id: string, data: object): void {
  let element = document.getElementById(id) as HTMLScriptElement | null;
  if (!element) {
    element = document.createElement('script');
    element.type = 'application/ld+json';
    element.id = id;
    document.head.appendChild(element);
  }
  element.textContent = JSON.stringify(data);
}

export function organizationJsonLd(origin: string): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'Organization',
    name: APP_NAME,
    url: `${origin}/`,
    logo: `${origin}/logo.svg`,
  };
}

export function breadcrumbJsonLd(origin: string, crumbs: Breadcrumb[]): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'BreadcrumbList',
    itemListElement: crumbs.map((crumb, index) => ({
      '@type': 'ListItem',
      position: index + 1,
      name: crumb.name,
      item: `${origin}${crumb.path}`,
    })),
  };
}

export function applyPageMeta(meta: PageMeta, location: Pick<Location, 'origin' | 'pathname'> = window.location): void {
  const description = truncateDescription(meta.description);
  document.title = meta.title;
  upsertMeta('name', 'description', description);
  upsertMeta('name', 'keywords', meta.keywords);
  upsertMeta('name', 'robots', meta.noIndex ? 'noindex' : 'index,follow');
  upsertMeta('property', 'og:title', meta.title);
  upsertMeta('property', 'og:description', description);
  upsertMeta('property', 'og:url', `${location.origin}${location.pathname}`);

  let canonical = document.head.querySelector<HTMLLinkElement>('link[rel="canonical"]');
  if (!canonical) {
    canonical = document.createElement('link');
    canonical.rel = 'canonical';
    document.head.appendChild(canonical);
  }
  canonical.href = `${location.origin}${location.pathname}`;

  upsertJsonLd('ld-organization', organizationJsonLd(location.origin));
  upsertJsonLd('ld-breadcrumb', breadcrumbJsonLd(location.origin, meta.breadcrumbs));
  if (meta.article) upsertJsonLd('ld-article', meta.article);
  else document.getElementById('ld-article')?.remove();
}
