import { useAtomValue } from 'jotai';
import { useEffect, useLayoutEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { languageAtom } from '@/app/store';
import { ArrowLeftIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import NotFoundPage from '@/app/routes/not-found';
import { type BlogArticle, formatPostDate, getBlogInfo } from '@/features/blog/api/blog-api';
import styles from '@/features/blog/components/blog.module.css';
import { useLoad } from '@/hooks/use-load';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { ROUTES } from '@/lib/routes';
import { revealApp, serverData } from '@/lib/server-data';
import { APP_NAME } from '@/lib/site';
import { trackPageView } from '@/lib/telemetry';

type Load = { state: 'loading' } | { state: 'missing' } | { state: 'failed' } | { state: 'ready'; post: BlogArticle };

function PostMeta({ post }: { post: BlogArticle }) {
  const { t } = useTranslation();
  const localize = useLocalizedPath();
  const { origin } = window.location;
  const absolute = (path: string) => (path.startsWith('/') ? `${origin}${path}` : path);
  usePageMeta({
    title: `${post.title} – ${APP_NAME}`,
    description: post.description,
    keywords: '',
    breadcrumbs: [
      { name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: t('nav.blog'), path: localize(ROUTES.blog) },
      { name: post.title, path: localize(`/blogs/${post.blogKey}`) },
    ],
    // The same Article the server writes for crawlers (server/src/content/seo).
    article: {
      '@context': 'https://schema.org',
      '@type': 'Article',
      headline: post.title,
      description: post.description,
      datePublished: post.date,
      dateModified: post.date,
      inLanguage: 'en',
      image: [absolute(post.cover)],
      author: { '@type': 'Organization', name: APP_NAME },
      publisher: { '@type': 'Organization', name: APP_NAME },
      mainEntityOfPage: `${origin}${window.location.pathname}`,
    },
  });
  return null;
}

/** `/blogs/{blogKey}`: one article, its HTML sanitised by the server at publication. */
export default function BlogPostPage() {
  const { t } = useTranslation();
  const { blogKey = '' } = useParams();
  const language = useAtomValue(languageAtom);
  // The post as the server rendered it, when it did (no second request).
  const served = serverData<BlogArticle>('post');
  const fromServer = served?.blogKey === blogKey ? served : undefined;
  const { data } = useLoad(
    () =>
      getBlogInfo(blogKey).then(
        (envelope): Load => {
          if (envelope.success && envelope.data) return { state: 'ready', post: envelope.data };
          return { state: envelope.code === 10006 || envelope.code === 10001 ? 'missing' : 'failed' };
        },
        (): Load => ({ state: 'failed' }),
      ),
    [blogKey],
    { enabled: !fromServer },
  );
  const load: Load = fromServer ? { state: 'ready', post: fromServer } : (data ?? { state: 'loading' });

  const settled = load.state !== 'loading';
  useLayoutEffect(() => {
    if (settled) revealApp();
  }, [settled]);
  useEffect(() => trackPageView('blogArticle'), []);

  if (load.state === 'missing') return <NotFoundPage />;
  return (
    <main className={styles.page} data-testid="blog-article">
      <LocalizedLink to={ROUTES.blog} className={styles.back}>
        <ArrowLeftIcon size={16} />
        {t('blog.allPosts')}
      </LocalizedLink>
      {load.state === 'loading' && <Spinner label={t('common.loading')} />}
      {load.state === 'failed' && <p className={styles.note}>{t('blog.loadFailed')}</p>}
      {load.state === 'ready' && (
        <article className={styles.article}>
          <PostMeta post={load.post} />
          <header className={styles.articleHeader}>
            <time className={styles.date} dateTime={load.post.date}>
              {formatPostDate(load.post.date, language)}
            </time>
            <h1 className={styles.articleTitle}>{load.post.title}</h1>
            <p className={styles.lede}>{load.post.description}</p>
          </header>
          <img className={styles.articleCover} src={load.post.cover} alt="" />
          {/* The server rendered this from Markdown and sanitised it with an allow-list (ammonia). */}
          <div className={styles.prose} dangerouslySetInnerHTML={{ __html: load.post.html }} data-testid="blog-body" />
        </article>
      )}
    </main>
  );
}
