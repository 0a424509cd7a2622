/**
 * The app-wide client-side state of product spec section 3: every jotai atom that more than
 * one feature (or shared code such as the API client and the socket client) reads. Atoms of
 * one feature live in that feature's `state.ts`. Nothing imports this file but
 * src/app/store.ts, the one module the rest of the code takes atoms and the store from
 * (ESLint's no-restricted-imports says so); an atom is added with the screen that reads it,
 * in its real shape.
 */
import { atom } from 'jotai';
import type { CharacterCard, GenderValue, SignInConfig, UserInfo, WebConfig } from '@/lib/api-types';
import type { VipData } from '@/lib/catalogue';
import { EMPTY_JOBS, type JobsState } from '@/lib/image-jobs';
import { DEFAULT_LANGUAGE, type Language } from '@/lib/languages';
import { STORAGE_KEYS, storage } from '@/lib/storage';

// --- The signed-in user (spec section 3 "User state"; its actions in lib/user.ts) ---

export const userInfoAtom = atom<UserInfo | null>(null);
/** True until the first user-info request has answered (the spec's `geting`). */
export const gettingUserAtom = atom(true);
/** True once user info has been fetched at least once (the spec's `userInfoGeted`). */
export const userInfoFetchedAtom = atom(false);

export const isLoggedInAtom = atom((get) => get(userInfoAtom) !== null);
/** Paid users have userVipType above 0. */
export const isPaidUserAtom = atom((get) => (get(userInfoAtom)?.userVipType ?? 0) > 0);

// --- The app frame ---

export const showLoginTipAtom = atom(false);
/**
 * A `needPay` (40004) answer arrived for a request: the app offers the plans or more tokens
 * (src/components/need-pay-offer.tsx) instead of an error.
 */
export const needPayOfferAtom = atom(false);
/** Where the chat screen's back button returns to; recorded before a chat is opened from a list. */
export const chatBeforePagePathAtom = atom('/');
export const eighteenTipModalShowedAtom = atom(false);
export const languageAtom = atom<Language>(DEFAULT_LANGUAGE);

export type NotificationKind = 'success' | 'info' | 'warning' | 'error';

export interface Notification {
  id: number;
  kind: NotificationKind;
  message: string;
}

/** The notifications shown at the top of the page (pushed by lib/notifications.ts). */
export const notificationsAtom = atom<Notification[]>([]);

/** True while a socket is open and has said `hello`: actions can be sent (lib/realtime.ts). */
export const realtimeConnectedAtom = atom(false);

// --- The server's web configuration ---

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

export const globalWebConfigAtom = atom<ClientWebConfig>(DEFAULT_WEB_CONFIG);
/** Whether the deployment configured any social link (the header and footer hide the block otherwise). */
export const hasSocialLinksAtom = atom((get) => Object.values(get(globalWebConfigAtom).social).some(Boolean));

// --- The catalogue and the home grid ---

/** The last catalogue read this session (lib/catalogue.ts; screens refresh it on mount). */
export const vipDataAtom = atom<VipData | null>(null);

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

/** The home grid as it was left (settings drops it when the NSFW preference changes). */
export const homePageCacheDataAtom = atom<HomePageCache | null>(null);

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

// --- Image jobs (lib/image-jobs-store.ts feeds it from the socket) ---

/** The image jobs of this tab, shared by the generate screen and the chat. */
export const imageJobsAtom = atom<JobsState>(EMPTY_JOBS);
