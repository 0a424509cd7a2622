/**
 * App-wide client-side state of product spec section 3, as jotai atoms read and written
 * through the one store (src/lib/store.ts). An atom is added with the screen that reads it,
 * in its real shape: the spec's other names (photo plaza, my creations, country info, the
 * global loading overlay...) come with their screens. State of one feature lives in that
 * feature's `stores/` (the chat's memory saving: features/chat/stores/memory-saving.ts).
 */
import { atom } from 'jotai';
import type { CharacterCard, GenderValue, SignInConfig, WebConfig } from '@/lib/api-types';
import { DEFAULT_LANGUAGE, type Language } from '@/lib/languages';
import { STORAGE_KEYS, storage } from '@/lib/storage';

export interface HomePageCache {
  /** Which catalogue the cache belongs to; a cache of the other gender is dropped. */
  gender: GenderValue;
  pageNo: number;
  list: CharacterCard[];
  hasMore: boolean;
  scrollY: number;
  /**
   * The card opened and where its top was on screen: returning puts it there again, though
   * the grid's width (and so the cards' height) may differ from when it was left.
   */
  anchor?: { characterId: string; top: number };
}

/**
 * `WebConfig` as the app holds it: the defaults until the server's answer arrives, when
 * `signIn` is still null (the login modal waits for it) and the version unknown.
 */
export type ClientWebConfig = Omit<WebConfig, 'signIn' | 'appVersion'> & {
  signIn: SignInConfig | null;
  appVersion?: string;
};

export const DEFAULT_WEB_CONFIG: ClientWebConfig = {
  defaultEnergy: { genVoiceCoin: 2, genPictureCoin: 20 },
  social: {},
  signIn: null,
};

export const showLoginTipAtom = atom(false);
/**
 * A `needPay` (40004) answer arrived for a request: the app offers the plans or more tokens
 * (src/components/need-pay-offer.tsx) instead of an error.
 */
export const needPayOfferAtom = atom(false);
/** Where the chat screen's back button returns to; recorded before a chat is opened from a list. */
export const chatBeforePagePathAtom = atom('/');
export const pcMenuCollapsedAtom = atom(false);
export const eighteenTipModalShowedAtom = atom(false);
export const languageAtom = atom<Language>(DEFAULT_LANGUAGE);
export const homePageCacheDataAtom = atom<HomePageCache | null>(null);
export const globalWebConfigAtom = atom<ClientWebConfig>(DEFAULT_WEB_CONFIG);
/** Whether the deployment configured any social link (the header and footer hide the block otherwise). */
export const hasSocialLinksAtom = atom((get) => Object.values(get(globalWebConfigAtom).social).some(Boolean));

function isGender(value: unknown): value is GenderValue {
  return value === 0 || value === 1;
}

function readStoredGender(): GenderValue {
  const stored = Number(storage.get(STORAGE_KEYS.interestedGender));
  return isGender(stored) && storage.get(STORAGE_KEYS.interestedGender) !== null ? stored : 0;
}

const interestedGenderBaseAtom = atom<GenderValue>(readStoredGender());

/** Girls = 0, Guys = 1; read from storage (else 0) and persisted on every change. */
export const interestedGenderAtom = atom(
  (get) => get(interestedGenderBaseAtom),
  (_get, set, gender: GenderValue) => {
    set(interestedGenderBaseAtom, gender);
    storage.set(STORAGE_KEYS.interestedGender, String(gender));
  },
);

/** NSFW preference: `sfw=1` stores false, `nsfw=1` stores true (spec section 4). */
export function captureNsfwFlag(search: string): void {
  const params = new URLSearchParams(search);
  if (params.get('sfw') === '1') storage.set(STORAGE_KEYS.localNsfw, 'false');
  else if (params.get('nsfw') === '1') storage.set(STORAGE_KEYS.localNsfw, 'true');
}

export function nsfwEnabled(): boolean {
  return storage.get(STORAGE_KEYS.localNsfw) === 'true';
}
