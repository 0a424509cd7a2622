import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { applyPageMeta, type PageMeta } from '@/lib/seo';

/** Sets title, description, keywords, canonical link and JSON-LD for the current route. */
export function usePageMeta(meta: PageMeta): void {
  const { pathname } = useLocation();
  const { title, description, keywords, noIndex } = meta;
  const crumbs = JSON.stringify(meta.breadcrumbs);
  const article = meta.article ? JSON.stringify(meta.article) : '';
  useEffect(() => {
    applyPageMeta({
      title,
      description,
      keywords,
      noIndex,
      breadcrumbs: JSON.parse(crumbs) as PageMeta['breadcrumbs'],
      ...(article ? { article: JSON.parse(article) as object } : {}),
    });
  }, [title, description, keywords, noIndex, crumbs, article, pathname]);
}
