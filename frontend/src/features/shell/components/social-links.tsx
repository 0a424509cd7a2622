import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { globalWebConfigAtom } from '@/app/store';
import { DiscordIcon, RedditIcon, TiktokIcon, TwitterIcon, YoutubeIcon } from '@/components/icons';
import styles from '@/features/shell/components/social-links.module.css';
import type { SocialLinks as SocialLinkMap } from '@/lib/api-types';

const NETWORKS = [
  { key: 'discord', Icon: DiscordIcon },
  { key: 'twitter', Icon: TwitterIcon },
  { key: 'youtube', Icon: YoutubeIcon },
  { key: 'tiktok', Icon: TiktokIcon },
  { key: 'reddit', Icon: RedditIcon },
] as const satisfies readonly { key: keyof SocialLinkMap; Icon: unknown }[];

/** Discord, X, YouTube, TikTok and Reddit, each only when the web config has its link. */
export function SocialLinks({ className }: { className?: string }) {
  const { t } = useTranslation();
  const { social } = useAtomValue(globalWebConfigAtom);
  const present = NETWORKS.filter(({ key }) => Boolean(social[key]));
  if (present.length === 0) return null;
  return (
    <ul className={`${styles.list} ${className ?? ''}`} data-testid="social-links">
      {present.map(({ key, Icon }) => (
        <li key={key}>
          <a
            className={styles.link}
            href={social[key]}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={t('social.follow', { name: t(`social.${key}`) })}
            title={t(`social.${key}`)}
          >
            <Icon size={19} />
          </a>
        </li>
      ))}
    </ul>
  );
}
