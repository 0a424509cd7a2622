/** The route paths of spec section 2 and the route rules the shell applies to them. */
import { Gender, type GenderValue } from '@/lib/api-types';

export const ROUTES = {
  home: '/',
  boyfriendHome: '/ai-boyfriend',
  chat: '/chat',
  /** One group chat is `/group/{groupId}` (issue 31); the list is the chat list. */
  group: '/group',
  gallery: '/gallery',
  generateImage: '/generateimage',
  createCharacter: '/createcharacter',
  myAi: '/myai',
  /** Marketing entry points into character creation, outside the main frame. */
  createGf: '/creategf',
  yourAiGirlfriend: '/your-ai-girlfriend',
  pricing: '/pricing',
  buyTokens: '/buytokens',
  setting: '/setting',
  subscriptionManage: '/subscriptionmanage',
  /** The user's orders and payments (a project extension, issue 30). */
  orders: '/orders',
  blog: '/blog',
  privacyPolicy: '/privacy-policy',
  termsOfService: '/terms-of-service',
  termsOfUse: '/legal-information',
  communityGuidelines: '/communityguidelines',
  payDisclaimer: '/pay-disclaimer',
  refundPolicy: '/refund-policy',
  complaintPolicy: '/complaint-policy',
  compliance2257: '/2257',
  membershipPolicy: '/membership-policy',
  privacyPolicyForApp: '/privacyPolicyForApp',
  communityGuidelinesForApp: '/communityGuidelinesForApp',
  notFound: '/404',
} as const;

/** The policy pages the mobile app embeds: no shell, no heading, no age gate. */
export const APP_EMBEDDED_PATHS: readonly string[] = [ROUTES.privacyPolicyForApp, ROUTES.communityGuidelinesForApp];

export const LANDING_ROUTES = [
  { path: '/ai-sex', key: 'aiSex' },
  { path: '/ai-porn', key: 'aiPorn' },
  { path: '/ai-nude', key: 'aiNude' },
  { path: '/spicy-ai', key: 'spicyAi' },
  { path: '/hentai-ai', key: 'hentaiAi' },
  { path: '/ai-gay', key: 'aiGay' },
  { path: '/ai-incest', key: 'aiIncest' },
  { path: '/ai-futa', key: 'aiFuta' },
] as const;

const LEGAL_PATHS: readonly string[] = [
  ROUTES.privacyPolicy,
  ROUTES.termsOfService,
  ROUTES.termsOfUse,
  ROUTES.communityGuidelines,
  ROUTES.payDisclaimer,
  ROUTES.refundPolicy,
  ROUTES.complaintPolicy,
  ROUTES.compliance2257,
  ROUTES.membershipPolicy,
];

/** The checkout of one product (`month_1`, `coin_3`, …). */
export function payPathFor(productId: string): string {
  return `/pay/${encodeURIComponent(productId)}`;
}

/** The checkout of one product through zPay, with its wallet QR code. */
export function zpayPathFor(productId: string): string {
  return `/zpay/${encodeURIComponent(productId)}`;
}

/** The result of one order (the processors return the buyer here). */
export function paymentResultPathFor(orderId: string): string {
  return `/paymentResults/${encodeURIComponent(orderId)}`;
}

/**
 * Where a `needPay` (40004) answer sends the user: the plans for free and signed-out
 * visitors (userVipType 0), more tokens for paid ones.
 */
export function needPayPathFor(userVipType: number | undefined): string {
  return (userVipType ?? 0) > 0 ? ROUTES.buyTokens : ROUTES.pricing;
}

export function homePathFor(gender: GenderValue): string {
  return gender === Gender.guys ? ROUTES.boyfriendHome : ROUTES.home;
}

export function isHomePath(path: string): boolean {
  return path === ROUTES.home || path === ROUTES.boyfriendHome;
}

/** The chat screen: the list, a conversation, or a group chat (which shows beside the list). */
export function isChatPath(path: string): boolean {
  return path === ROUTES.chat || path.startsWith(`${ROUTES.chat}/`) || path.startsWith(`${ROUTES.group}/`);
}

/** `/chat/{characterId}` or `/group/{groupId}`: one conversation open (on phones, without the tab bar). */
export function isConversationPath(path: string): boolean {
  return [ROUTES.chat, ROUTES.group].some((base) => path.startsWith(`${base}/`) && path.length > base.length + 1);
}

export function chatPathFor(characterId: string): string {
  return `${ROUTES.chat}/${encodeURIComponent(characterId)}`;
}

export function groupPathFor(groupId: string): string {
  return `${ROUTES.group}/${encodeURIComponent(groupId)}`;
}

/** The header's gender switch shows on the homes and on character creation (wide screens). */
export function showsHeaderGenderSwitch(path: string): boolean {
  return isHomePath(path) || path === ROUTES.createCharacter;
}

/** The logo is a plain block on legal pages, /chat/ and /generateimage; a top heading elsewhere. */
export function logoIsHeading(path: string): boolean {
  return !(LEGAL_PATHS.includes(path) || isChatPath(path) || path === ROUTES.generateImage);
}
