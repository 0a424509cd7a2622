import { useAtomValue, useSetAtom } from 'jotai';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { gettingUserAtom, isLoggedInAtom, showLoginTipAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { GalleryIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import {
  deleteImage,
  getFeed,
  getGallery,
  getGalleryCharacters,
  shareImage,
  type FeedImage,
  type GalleryCharacter,
  type GalleryImage,
} from '@/lib/images-api';
import { Lightbox } from '@/components/lightbox';
import { ReportDialog } from '@/components/report-dialog';
import styles from '@/features/images/components/images.module.css';
import { useEndOfList, useImagePages } from '@/features/images/hooks/use-image-pages';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { ApiCode } from '@/lib/api-types';
import { mediaUrl } from '@/lib/media-url';
import { notify } from '@/lib/notifications';
import type { FeedImageReportTarget } from '@/lib/report-api';
import { ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';

type Tab = 'mine' | 'feed';

/** One image of a grid; opens the full view. */
function GridImage({
  image,
  caption,
  badges,
  onOpen,
}: {
  image: { imageId: string; url: string; width: number; height: number };
  caption: string;
  badges?: ReactNode;
  onOpen: () => void;
}) {
  const { t } = useTranslation('images');
  return (
    <div className={styles.tile} data-testid="gallery-image" data-image-id={image.imageId}>
      <img src={mediaUrl(image.url)} width={image.width} height={image.height} alt={caption} loading="lazy" />
      <button type="button" className={styles.tileButton} onClick={onOpen} aria-label={t('gallery.open')} />
      {badges}
    </div>
  );
}

function EndOfList({
  hasMore,
  loadingMore,
  onMore,
  count,
}: {
  hasMore: boolean;
  loadingMore: boolean;
  onMore: () => void;
  count: number;
}) {
  const { t } = useTranslation('images');
  const { t: tApp } = useTranslation();
  const sentinel = useEndOfList(onMore, count);
  if (!hasMore) return count > 0 ? <p className={styles.end}>{t('gallery.end')}</p> : null;
  return (
    <>
      <div ref={sentinel} className={styles.sentinel} data-testid="gallery-sentinel" />
      {loadingMore && <Spinner label={tApp('common.loading')} />}
    </>
  );
}

/** The signed-in user's images: by character, newest first, endless; full view, download, share, delete. */
function MyImages() {
  const { t } = useTranslation('images');
  const { t: tApp } = useTranslation();
  const [characters, setCharacters] = useState<GalleryCharacter[]>([]);
  const [filter, setFilter] = useState<string | null>(null);
  const [viewing, setViewing] = useState<GalleryImage | null>(null);
  const [deleting, setDeleting] = useState<GalleryImage | null>(null);
  const [sharing, setSharing] = useState(false);

  const fetchPage = useCallback(
    async (beforeId?: string) => {
      const envelope = await getGallery({
        ...(filter ? { characterId: filter } : {}),
        ...(beforeId ? { beforeId } : {}),
      });
      return envelope.success && envelope.data ? envelope.data : null;
    },
    [filter],
  );
  const pages = useImagePages<GalleryImage>(`mine:${filter ?? ''}`, fetchPage);

  const loadCharacters = useCallback(() => {
    getGalleryCharacters()
      .then((envelope) => {
        if (envelope.success && Array.isArray(envelope.data)) setCharacters(envelope.data);
      })
      .catch(() => undefined);
  }, []);
  useEffect(loadCharacters, [loadCharacters]);

  const replace = (image: GalleryImage) => {
    pages.setItems((items) => items.map((item) => (item.imageId === image.imageId ? image : item)));
    setViewing((current) => (current?.imageId === image.imageId ? image : current));
  };

  const toggleShare = async (image: GalleryImage) => {
    setSharing(true);
    try {
      const envelope = await shareImage(image.imageId, !image.shared);
      if (envelope.success && envelope.data) {
        replace(envelope.data);
        notify.success(envelope.data.shared ? t('gallery.sharedDone') : t('gallery.unsharedDone'));
      } else if (envelope.code === ApiCode.inputContentIllegal) {
        notify.warning(t('gallery.shareRefused'));
      }
    } catch {
      // The connection notification has been shown.
    } finally {
      setSharing(false);
    }
  };

  const remove = async () => {
    if (!deleting) return;
    const envelope = await deleteImage(deleting.imageId);
    if (!envelope.success) return;
    const gone = deleting.imageId;
    pages.setItems((items) => items.filter((item) => item.imageId !== gone));
    setDeleting(null);
    setViewing(null);
    loadCharacters();
  };

  let grid;
  if (pages.load === 'loading') grid = <Spinner label={tApp('common.loading')} />;
  else if (pages.load === 'failed')
    grid = (
      <div className={styles.empty}>
        <p>{t('gallery.loadFailed')}</p>
        <Button variant="secondary" size="small" onClick={() => void pages.reload()}>
          {t('retry')}
        </Button>
      </div>
    );
  else if (pages.items.length === 0)
    grid = (
      <div className={styles.empty} data-testid="gallery-empty">
        <GalleryIcon size={36} />
        <p>{t('gallery.empty')}</p>
        <LocalizedLink to={ROUTES.generateImage} className={buttonClassName({ size: 'small' })}>
          {t('gallery.emptyAction')}
        </LocalizedLink>
      </div>
    );
  else
    grid = (
      <>
        <div className={styles.grid} data-testid="gallery-grid">
          {pages.items.map((image) => (
            <GridImage
              key={image.imageId}
              image={image}
              caption={image.prompt}
              onOpen={() => setViewing(image)}
              badges={
                <>
                  {image.illustration && <span className={styles.badge}>{t('gallery.illustration')}</span>}
                  {image.shared && (
                    <span className={`${styles.badge} ${styles.sharedBadge}`} data-testid="shared-badge">
                      {t('gallery.shared')}
                    </span>
                  )}
                </>
              }
            />
          ))}
        </div>
        <EndOfList
          hasMore={pages.hasMore}
          loadingMore={pages.loadingMore}
          onMore={() => void pages.loadMore()}
          count={pages.items.length}
        />
      </>
    );

  return (
    <>
      {characters.length > 0 && (
        <div
          className={styles.chips}
          role="radiogroup"
          aria-label={t('gallery.byCharacter')}
          data-testid="gallery-filter"
        >
          <button
            type="button"
            role="radio"
            aria-checked={filter === null}
            className={styles.chip}
            onClick={() => setFilter(null)}
            data-testid="gallery-filter-all"
          >
            {t('gallery.all')}
          </button>
          {characters.map((character) => (
            <button
              key={character.characterId}
              type="button"
              role="radio"
              aria-checked={filter === character.characterId}
              className={styles.chip}
              onClick={() => setFilter(character.characterId)}
              data-testid="gallery-filter-character"
              data-character-id={character.characterId}
            >
              {character.characterName} · {character.count}
            </button>
          ))}
        </div>
      )}
      {grid}
      <Lightbox
        image={viewing}
        caption={viewing ? [viewing.characterName, viewing.prompt].filter(Boolean).join(' · ') : ''}
        illustration={viewing?.illustration}
        onClose={() => setViewing(null)}
        actions={
          viewing && (
            <>
              <a
                className={buttonClassName({ variant: 'secondary', size: 'small' })}
                href={viewing.url}
                download={`amora-${viewing.imageId}`}
                data-testid="image-download"
              >
                {t('gallery.download')}
              </a>
              <Button
                variant="secondary"
                size="small"
                onClick={() => void toggleShare(viewing)}
                disabled={sharing}
                data-testid="image-share"
                data-shared={viewing.shared}
              >
                {viewing.shared ? t('gallery.unshare') : t('gallery.share')}
              </Button>
              <Button
                variant="ghost"
                size="small"
                className={styles.danger}
                onClick={() => setDeleting(viewing)}
                data-testid="image-delete"
              >
                {t('gallery.delete')}
              </Button>
            </>
          )
        }
      />
      <ConfirmDialog
        open={deleting !== null}
        title={t('gallery.deleteTitle')}
        text={t('gallery.deleteText')}
        confirmLabel={t('gallery.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={remove}
        testId="delete-image-dialog"
      />
    </>
  );
}

/** The public feed: what members shared, newest first, open to every visitor. */
function PublicFeed() {
  const { t } = useTranslation('images');
  const { t: tApp } = useTranslation();
  const [viewing, setViewing] = useState<FeedImage | null>(null);
  const [reporting, setReporting] = useState<FeedImageReportTarget | null>(null);
  const loggedIn = useAtomValue(isLoggedInAtom);
  const openLogin = useSetAtom(showLoginTipAtom);
  // Reports are signed in only: a visitor is asked to sign in first.
  const report = (image: FeedImage) => {
    if (!loggedIn) {
      openLogin(true);
      return;
    }
    setViewing(null);
    setReporting({ feedId: image.feedId });
  };
  const fetchPage = useCallback(async (beforeId?: string) => {
    const envelope = await getFeed(beforeId ? { beforeId } : {});
    return envelope.success && envelope.data ? envelope.data : null;
  }, []);
  const pages = useImagePages<FeedImage>('feed', fetchPage, (image) => image.feedId);
  const caption = (image: FeedImage) => [image.characterName, image.prompt].filter(Boolean).join(' · ');

  let grid;
  if (pages.load === 'loading') grid = <Spinner label={tApp('common.loading')} />;
  else if (pages.load === 'failed')
    grid = (
      <div className={styles.empty}>
        <p>{t('gallery.loadFailed')}</p>
        <Button variant="secondary" size="small" onClick={() => void pages.reload()}>
          {t('retry')}
        </Button>
      </div>
    );
  else if (pages.items.length === 0)
    grid = (
      <div className={styles.empty} data-testid="feed-empty">
        <p>{t('gallery.feedEmpty')}</p>
      </div>
    );
  else
    grid = (
      <>
        <div className={styles.grid} data-testid="feed-grid">
          {pages.items.map((image) => (
            <GridImage key={image.imageId} image={image} caption={caption(image)} onOpen={() => setViewing(image)} />
          ))}
        </div>
        <EndOfList
          hasMore={pages.hasMore}
          loadingMore={pages.loadingMore}
          onMore={() => void pages.loadMore()}
          count={pages.items.length}
        />
      </>
    );

  return (
    <>
      <p className={styles.intro}>{t('gallery.feedIntro')}</p>
      {grid}
      <Lightbox
        image={viewing}
        caption={viewing ? caption(viewing) : ''}
        onClose={() => setViewing(null)}
        actions={
          viewing && (
            <Button variant="ghost" size="small" onClick={() => report(viewing)} data-testid="feed-image-report">
              {t('gallery.report')}
            </Button>
          )
        }
      />
      <ReportDialog target={reporting} onClose={() => setReporting(null)} />
    </>
  );
}

function SignInForGallery() {
  const { t } = useTranslation('images');
  const openLogin = useSetAtom(showLoginTipAtom);
  return (
    <section className={styles.signedOut} data-testid="gallery-signed-out">
      <GalleryIcon size={32} />
      <h2>{t('gallery.signInTitle')}</h2>
      <p className={styles.intro}>{t('gallery.signInText')}</p>
      <Button onClick={() => openLogin(true)}>{t('gallery.signInButton')}</Button>
    </section>
  );
}

/**
 * `/gallery` (spec section 2): two tabs. "My images" needs a signed-in user (the side menu
 * guards the link; a signed-out visitor arriving here is asked to sign in on that tab), and
 * "Public feed" (the spec's photo plaza) is open to every visitor, so a signed-out visitor
 * lands on it. `?tab=feed` opens the feed directly (the generate screen links to it).
 */
export default function GalleryPage() {
  const { t } = useTranslation('images');
  const { t: tApp } = useTranslation();
  const localize = useLocalizedPath();
  const getting = useAtomValue(gettingUserAtom);
  const loggedIn = useAtomValue(isLoggedInAtom);
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab: Tab = asked === 'feed' || asked === 'mine' ? asked : loggedIn ? 'mine' : 'feed';

  usePageMeta({
    title: tApp('seo.gallery.title'),
    description: tApp('seo.gallery.description'),
    keywords: tApp('seo.gallery.keywords'),
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: tApp('nav.gallery'), path: localize(ROUTES.gallery) },
    ],
  });
  useEffect(() => trackPageView('gallery'), []);

  const choose = (next: Tab) => setParams(next === 'feed' ? { tab: 'feed' } : { tab: 'mine' }, { replace: true });

  let body;
  if (tab === 'feed') body = <PublicFeed />;
  else if (getting) body = <Spinner label={tApp('common.loading')} />;
  else if (!loggedIn) body = <SignInForGallery />;
  else body = <MyImages />;

  return (
    <div className={styles.page} data-testid="gallery-page" data-tab={tab}>
      <header>
        <h1 className={styles.heading}>{t('gallery.heading')}</h1>
      </header>
      <div className={styles.tabs} role="tablist">
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'mine'}
          className={styles.tab}
          onClick={() => choose('mine')}
          data-testid="gallery-tab-mine"
        >
          {t('gallery.mine')}
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'feed'}
          className={styles.tab}
          onClick={() => choose('feed')}
          data-testid="gallery-tab-feed"
        >
          {t('gallery.feed')}
        </button>
      </div>
      <div role="tabpanel">{body}</div>
    </div>
  );
}
