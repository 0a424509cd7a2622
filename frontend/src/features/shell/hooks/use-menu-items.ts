import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { interestedGenderAtom, isPaidUserAtom } from '@/app/store';
import {
  ChatIcon,
  CoinIcon,
  CreateIcon,
  CrownIcon,
  ExploreIcon,
  GalleryIcon,
  HeartIcon,
  SparkleIcon,
} from '@/components/icons';
import { homePathFor, isChatPath, isHomePath, ROUTES } from '@/lib/routes';

export interface MenuItem {
  key: string;
  label: string;
  to: string;
  Icon: typeof ExploreIcon;
  /** Signed-out visitors get the login prompt instead of the page. */
  guarded: boolean;
  /** Upgrade and Buy Tokens are drawn as the call to action. */
  highlight?: boolean;
  isActive: (path: string) => boolean;
}

const exact = (target: string) => (path: string) => path === target;

/**
 * The side menu and drawer (spec section 2): Explore, Chat, Gallery, Generate Image, Create
 * Character, My AI, then Upgrade (free or signed out) or Buy Tokens (paid). Chat, Gallery,
 * Pricing and Buy Tokens are guarded (spec section 5).
 */
export function useSideMenuItems(): MenuItem[] {
  const { t } = useTranslation();
  const gender = useAtomValue(interestedGenderAtom);
  const paid = useAtomValue(isPaidUserAtom);
  return [
    {
      key: 'explore',
      label: t('nav.explore'),
      to: homePathFor(gender),
      Icon: ExploreIcon,
      guarded: false,
      isActive: isHomePath,
    },
    { key: 'chat', label: t('nav.chat'), to: ROUTES.chat, Icon: ChatIcon, guarded: true, isActive: isChatPath },
    {
      key: 'gallery',
      label: t('nav.gallery'),
      to: ROUTES.gallery,
      Icon: GalleryIcon,
      guarded: true,
      isActive: exact(ROUTES.gallery),
    },
    {
      key: 'generateImage',
      label: t('nav.generateImage'),
      to: ROUTES.generateImage,
      Icon: SparkleIcon,
      guarded: false,
      isActive: exact(ROUTES.generateImage),
    },
    {
      key: 'createCharacter',
      label: t('nav.createCharacter'),
      to: ROUTES.createCharacter,
      Icon: CreateIcon,
      guarded: false,
      isActive: exact(ROUTES.createCharacter),
    },
    {
      key: 'myAi',
      label: t('nav.myAi'),
      to: ROUTES.myAi,
      Icon: HeartIcon,
      guarded: false,
      isActive: exact(ROUTES.myAi),
    },
    paid
      ? {
          key: 'buyTokens',
          label: t('nav.buyTokens'),
          to: ROUTES.buyTokens,
          Icon: CoinIcon,
          guarded: true,
          highlight: true,
          isActive: exact(ROUTES.buyTokens),
        }
      : {
          key: 'upgrade',
          label: t('nav.upgrade'),
          to: ROUTES.pricing,
          Icon: CrownIcon,
          guarded: true,
          highlight: true,
          isActive: exact(ROUTES.pricing),
        },
  ];
}

/**
 * The mobile tab bar (spec section 2): Explore, Generate, Create, Chat and Upgrade or Buy
 * Tokens; only Chat and Pricing are guarded there (spec section 5).
 */
export function useTabBarItems(): MenuItem[] {
  const { t } = useTranslation();
  const gender = useAtomValue(interestedGenderAtom);
  const paid = useAtomValue(isPaidUserAtom);
  return [
    {
      key: 'explore',
      label: t('nav.explore'),
      to: homePathFor(gender),
      Icon: ExploreIcon,
      guarded: false,
      isActive: isHomePath,
    },
    {
      key: 'generate',
      label: t('nav.generate'),
      to: ROUTES.generateImage,
      Icon: SparkleIcon,
      guarded: false,
      isActive: exact(ROUTES.generateImage),
    },
    {
      key: 'create',
      label: t('nav.create'),
      to: ROUTES.createCharacter,
      Icon: CreateIcon,
      guarded: false,
      isActive: exact(ROUTES.createCharacter),
    },
    { key: 'chat', label: t('nav.chat'), to: ROUTES.chat, Icon: ChatIcon, guarded: true, isActive: isChatPath },
    paid
      ? {
          key: 'buyTokens',
          label: t('nav.buyTokens'),
          to: ROUTES.buyTokens,
          Icon: CoinIcon,
          guarded: false,
          highlight: true,
          isActive: exact(ROUTES.buyTokens),
        }
      : {
          key: 'upgrade',
          label: t('nav.upgrade'),
          to: ROUTES.pricing,
          Icon: CrownIcon,
          guarded: true,
          highlight: true,
          isActive: exact(ROUTES.pricing),
        },
  ];
}
