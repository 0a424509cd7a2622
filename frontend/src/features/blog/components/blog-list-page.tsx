import { useAtomValue } from 'jotai';
import { useEffect, useLayoutEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { languageAtom } from '@/app/store';
import { buttonClassName } from '@/components/button';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import { BLOG_PAGE_SIZE, type BlogPage, formatPostDate, getBlogList } from '@/features/blog/api/blog-api';
import styles from '@/features/blog/components/blog.module.css';
import { useLoad } from '@/hooks/use-load';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { ROUTES } from '@/lib/routes';
import { revealApp, serverData } from '@/lib/server-data';
import { trackPageView } from '@/lib/telemetry';

type Load = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; page: BlogPage };

/** `/blog?page=N`: the posts, newest first, a page at a time (spec section 2). */
export default function BlogListPage() {
  const { t } = useTranslation();
  const language = useAtomValue(languageAtom);
  const localize = useLocalizedPath();
  const [params] = useSearchParams();
  const pageNo = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  // Page 1 as the server rendered it, when it did (no second request).
  const served = pageNo === 1 ? serverData<BlogPage>('blogList') : undefined;
  const { data, reload } = useLoad(
    () =>
      getBlogList(pageNo).then(
        (envelope): Load =>
          envelope.success && envelope.data ? { state: 'ready', page: envelope.data } : { state: 'failed' },
        (): Load => ({ state: 'failed' }),
      ),
    [pageNo],
    { enabled: !served },
  );
  const load: Load = served ? { state: 'ready', page: served } : (data ?? { state: 'loading' });

  usePageMeta({
    title: t('blog.metaTitle'),
    description: t('blog.metaDescription'),
    keywords: t('blog.metaKeywords'),
    breadcrumbs: [
      { name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: t('nav.blog'), path: localize(ROUTES.blog) },
    ],
  });
  const settled = load.state !== 'loading';
  useLayoutEffect(() => {
    if (settled) revealApp();
  }, [settled]);
  useEffect(() => trackPageView('blog'), []);

  const pages = load.state === 'ready' ? Math.max(1, Math.ceil(load.page.total / BLOG_PAGE_SIZE)) : 1;
  const pageLink = (n: number) => (n === 1 ? ROUTES.blog : `${ROUTES.blog}?page=${n}`);

  return (
    <main className={styles.page} data-testid="blog-list">
      <header className={styles.hero}>
        <h1 className={styles.heading}>{t('blog.heading')}</h1>
        <p className={styles.intro}>{t('blog.intro')}</p>
      </header>
      {load.state === 'loading' && <Spinner label={t('common.loading')} />}
      {load.state === 'failed' && (
        <div className={styles.note}>
          <p>{t('blog.loadFailed')}</p>
          <button type="button" className={buttonClassName({ variant: 'secondary', size: 'small' })} onClick={reload}>
            {t('home.retry')}
          </button>
        </div>
      )}
      {load.state === 'ready' && load.page.list.length === 0 && <p className={styles.note}>{t('blog.empty')}</p>}
      {load.state === 'ready' && load.page.list.length > 0 && (
        <>
          <ul className={styles.grid}>
            {load.page.list.map((post, index) => (
              <li key={post.blogKey}>
                <LocalizedLink to={`/blogs/${post.blogKey}`} className={styles.card} data-testid="blog-card">
                  <img className={styles.cover} src={post.cover} alt="" loading={index < 3 ? 'eager' : 'lazy'} />
                  <span className={styles.cardBody}>
                    <time className={styles.date} dateTime={post.date}>
                      {formatPostDate(post.date, language)}
                    </time>
                    <span className={styles.cardTitle}>{post.title}</span>
                    <span className={styles.cardText}>{post.description}</span>
                    <span className={styles.readMore}>{t('blog.readMore')}</span>
                  </span>
                </LocalizedLink>
              </li>
            ))}
          </ul>
          {pages > 1 && (
            <nav className={styles.pager} aria-label={t('blog.pages')}>
              {pageNo > 1 ? (
                <LocalizedLink
                  to={pageLink(pageNo - 1)}
                  className={buttonClassName({ variant: 'secondary', size: 'small' })}
                  data-testid="blog-newer"
                >
                  {t('blog.newer')}
                </LocalizedLink>
              ) : (
                <span />
              )}
              <span className={styles.pageOf}>{t('blog.pageOf', { page: pageNo, pages })}</span>
              {pageNo < pages ? (
                <LocalizedLink
                  to={pageLink(pageNo + 1)}
                  className={buttonClassName({ variant: 'secondary', size: 'small' })}
                  data-testid="blog-older"
                >
                  {t('blog.older')}
                </LocalizedLink>
              ) : (
                <span />
              )}
            </nav>
          )}
        </>
      )}
    </main>
  );
}
