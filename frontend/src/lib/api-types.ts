// Generated from the Rust types by `scripts/wire-types` (server/src/api_types.rs): do not edit.
// The HTTP shapes of docs/api.md: the envelope, request bodies and answers.

import type { ChatMessage, VoicePart, PaymentStatus, GroupMessage } from './wire-types';
import { API_CODES } from './wire-types';

/** Every wire shape the chat and the socket share, from one place. */
export type * from './wire-types';

/** The codes of API.md 1.3, by name. */
export const ApiCode = API_CODES;

export type ApiCodeValue = (typeof ApiCode)[keyof typeof ApiCode];

/** The catalogue a person browses (`interestedGender`, a character's `gender`). */
export const Gender = { girls: 0, guys: 1 } as const;

export type GenderValue = (typeof Gender)[keyof typeof Gender];

/** The plans and coin packages of spec section 9. */
export const PLAN_IDS = ['month_1', 'quarter_1', 'year_1'] as const;
export type PlanId = (typeof PLAN_IDS)[number];
export const COIN_PACKAGE_IDS = ['coin_1', 'coin_2', 'coin_3', 'coin_4', 'coin_5', 'coin_6'] as const;
export type CoinPackageId = (typeof COIN_PACKAGE_IDS)[number];
export type ProductId = PlanId | CoinPackageId;

/** Every payment route, as the API writes it. */
export const PAYMENT_ROUTE_NAMES = ['sandbox', 'paypal', 'nowpayments', 'zpay', 'aiglo', 'trust', 'luxfin'] as const;
export type PaymentRouteName = (typeof PAYMENT_ROUTE_NAMES)[number];

export type ApiEnvelope<T> = { code: number, data: T, msg: string, success: boolean, };

export type Coins = number;

export type CharacterId = string;

export type CharacterAge = number;

export type UsedType = number;

export type UserInfo = { userId: string, userNo: string, userName: string, email: string | null, discordEmail: string | null, appleEmail: string | null, 
/**
 * 0 free, above 0 paid.
 */
userVipType: number, coin: Coins, userAvatar: string, utmSource: string, interestedGender: GenderValue, nsfw: boolean, };

export type UserDetail = { language: string, hasPassword: boolean, googleLinked: boolean, discordLinked: boolean, 
/**
 * Seconds since the epoch.
 */
createdAt: number, userId: string, userNo: string, userName: string, email: string | null, discordEmail: string | null, appleEmail: string | null, 
/**
 * 0 free, above 0 paid.
 */
userVipType: number, coin: Coins, userAvatar: string, utmSource: string, interestedGender: GenderValue, nsfw: boolean, };

export type SignInResult = { voucher: string, userInfo: UserInfo, };

export type SendLinkRequest = { emailAddress: string, cfToken: string, 
/**
 * Project extension (docs/api.md "Sign-in"): the page the visitor asked from, where the
 * mailed link returns them (a path of this site; anything else returns home).
 */
returnTo?: string, };

export type PasswordLoginRequest = { userNo: string, password: string, };

export type UpdateInfoRequest = { userName?: string, userAvatar?: string, };

export type UpdatePasswordRequest = { oldPassword?: string, newPassword: string, };

export type UpdateWebDataRequest = { interestedGender?: GenderValue, nsfw?: boolean, language?: string, };

export type CharacterListQuery = { pageNo: number, pageSize: number, gender: GenderValue, 
/**
 * Project extension (docs/api.md): only characters carrying at least one of these tags.
 */
tags?: Array<string>, };

export type CharacterInfoRequest = { characterId: string, };

export type CharacterCard = { characterId: CharacterId, characterName: string, characterAge: CharacterAge, introduction: string, characterPhoto: string, characterImageList: Array<string>, usedType: UsedType, gender: GenderValue, };

export type CardExtras = { 
/**
 * Replaces the default first line of the system message when set.
 */
systemPrompt: string, 
/**
 * Put after the history, just before the reply.
 */
postHistoryInstructions: string, 
/**
 * Example dialogue (`mes_example`), `<START>`-separated.
 */
exampleDialogue: string, 
/**
 * Other first messages the user may choose from.
 */
alternateGreetings: Array<string>, 
/**
 * Whether the card has lorebook entries.
 */
hasLorebook: boolean, };

export type Character = { personality: string, scenario: string, greeting: string, tags: Array<string>, 
/**
 * Sent only to the creator.
 */
creatorId?: string, characterId: CharacterId, characterName: string, characterAge: CharacterAge, introduction: string, characterPhoto: string, characterImageList: Array<string>, usedType: UsedType, gender: GenderValue, 
/**
 * Replaces the default first line of the system message when set.
 */
systemPrompt: string, 
/**
 * Put after the history, just before the reply.
 */
postHistoryInstructions: string, 
/**
 * Example dialogue (`mes_example`), `<START>`-separated.
 */
exampleDialogue: string, 
/**
 * Other first messages the user may choose from.
 */
alternateGreetings: Array<string>, 
/**
 * Whether the card has lorebook entries.
 */
hasLorebook: boolean, };

export type CharacterStatus = "private" | "review" | "public" | "rejected";

export type Style = "realistic" | "anime";

export type Visibility = "private" | "public";

export type Looks = { 
/**
 * Years, 18 to 100. Wide on the wire so that a bad value is refused by `validate`
 * naming `looks.age`, not by the JSON reader.
 */
age: number, ethnicity: string, eyes: string, hairColor: string, hairStyle: string, body: string, outfit: string, };

export type PresetText = { preset: string, text: string, };

export type Draft = { gender: GenderValue, style: Style, looks: Looks, personality: PresetText, relationship: PresetText, 
/**
 * Empty: the default voice of the gender.
 */
voiceId: string, characterName: string, introduction: string, greeting: string, scenario: string, tags: Array<string>, nsfw: boolean, visibility: Visibility, };

export type Preset = { key: string, };

export type VoiceOption = { voiceId: string, gender: GenderValue, label: string, };

export type CreateLimits = { nameMax: number, introductionMax: number, greetingMax: number, scenarioMax: number, 
/**
 * The free text of the personality and of the relationship.
 */
textMax: number, tagsMax: number, ageMin: number, ageMax: number, };

export type CreateOptions = { gender: GenderValue, styles: Array<Preset>, ethnicities: Array<Preset>, eyes: Array<Preset>, hairColors: Array<Preset>, hairStyles: Array<Preset>, bodies: Array<Preset>, outfits: Array<Preset>, personalities: Array<Preset>, relationships: Array<Preset>, voices: Array<VoiceOption>, limits: CreateLimits, };

export type MyCharacter = { character: Character, status: CharacterStatus, reviewReason: string | null, visibility: Visibility, nsfw: boolean, draft: Draft, imported: boolean, 
/**
 * Milliseconds since the epoch.
 */
createdAt: number, updatedAt: number, };

export type OptionsRequest = { gender: GenderValue, };

export type PreviewRequest = { gender: GenderValue, style: Style, looks: Looks, };

export type CreateRequest = { draft: Draft, };

export type UpdateRequest = { characterId: string, draft: Draft, };

export type CharacterRef = { characterId: string, };

export type VisibilityRequest = { characterId: string, visibility: Visibility, };

export type MyListRequest = { pageNo: number, pageSize: number, };

export type ImportRequest = { 
/**
 * The file's name as the user picked it (logged with a refusal).
 */
fileName: string, data: string, age?: number, gender?: GenderValue, };

export type ExportRequest = { characterId: string, format: string, };

export type PortraitPreview = { 
/**
 * `data:image/png;base64,…`
 */
image: string, width: number, height: number, };

export type ExportedCard = { fileName: string, mime: string, 
/**
 * Base64 of the file.
 */
data: string, };

export type MessageListRequest = { characterId: string, beforeId?: string, pageSize?: number, };

export type EditMessageRequest = { characterId: string, messageId: string, content: string, };

export type DeleteMessageRequest = { characterId: string, messageId: string, };

export type ChooseGreetingRequest = { characterId: string, index: number, };

export type AddMemoryRequest = { characterId: string, content: string, };

export type UpdateMemoryRequest = { characterId: string, memoryId: string, content: string, };

export type DeleteMemoryRequest = { characterId: string, memoryId: string, };

export type PinMemoryRequest = { characterId: string, memoryId: string, pinned: boolean, };

export type ChatSummary = { characterId: CharacterId, characterName: string, characterPhoto: string, lastMessage: ChatMessage, };

export type ReplyingNow = { replyId: string, content: string, };

export type MessagePage = { 
/**
 * Newest first.
 */
messages: Array<ChatMessage>, 
/**
 * A full page: older messages may follow (ask with `beforeId` = the last id).
 */
hasMore: boolean, 
/**
 * Free messages left today; `null` for paid users (unlimited).
 */
creditsLeft: number | null, 
/**
 * The reply being written right now (a page reloaded mid-reply shows it and appends
 * the `chatDelta`s that follow); `null` when none is.
 */
replying: ReplyingNow | null, };

export type SetPersonaRequest = { 
/**
 * Absent or `null`: the persona for every character.
 */
characterId?: string | null, name: string, description: string, };

export type DeletePersonaRequest = { characterId?: string | null, };

export type UserPersona = { 
/**
 * `null`: the persona for every character.
 */
characterId: CharacterId | null, name: string, description: string, };

export type GroupActivation = "natural" | "list" | "manual";

export type GroupMember = { characterId: CharacterId, 
/**
 * Empty when the character is gone from the catalogue (it stays silent).
 */
characterName: string, characterPhoto: string, muted: boolean, 
/**
 * 0–100: how likely it speaks up unasked in the natural order.
 */
talkativeness: number, };

export type Group = { groupId: string, name: string, scenario: string, activation: GroupActivation, allowSelfResponses: boolean, talkCap: number, 
/**
 * In seating order.
 */
members: Array<GroupMember>, 
/**
 * Milliseconds since the epoch.
 */
createdAt: number, 
/**
 * The newest message (the chat list shows it); `null` before the first.
 */
lastMessage: GroupMessage | null, };

export type NewMemberRequest = { characterId: string, 
/**
 * 0–100; 50 when absent.
 */
talkativeness?: number, };

export type CreateGroupRequest = { name: string, scenario?: string, 
/**
 * `natural` when absent.
 */
activation?: GroupActivation, allowSelfResponses?: boolean, 
/**
 * 1–10; 3 when absent.
 */
talkCap?: number, 
/**
 * 2–6, in seating order.
 */
members: Array<NewMemberRequest>, };

export type GroupRequest = { groupId: string, };

export type UpdateGroupRequest = { groupId: string, name?: string, scenario?: string, activation?: GroupActivation, allowSelfResponses?: boolean, talkCap?: number, };

export type AddMemberRequest = { groupId: string, characterId: string, talkativeness?: number, };

export type MemberRequest = { groupId: string, characterId: string, };

export type UpdateMemberRequest = { groupId: string, characterId: string, muted?: boolean, talkativeness?: number, };

export type GroupMessageListRequest = { groupId: string, beforeId?: string, pageSize?: number, };

export type ImportChatRequest = { 
/**
 * The export's text: SillyTavern's JSONL, one message a line.
 */
chat: string, name: string, scenario?: string, 
/**
 * `natural` when absent.
 */
activation?: GroupActivation, allowSelfResponses?: boolean, 
/**
 * 1–10; 3 when absent.
 */
talkCap?: number, 
/**
 * 2–6, in seating order.
 */
members: Array<NewMemberRequest>, };

export type EditGroupMessageRequest = { groupId: string, messageId: string, content: string, };

export type GroupMessageRequest = { groupId: string, messageId: string, };

export type GroupMessagePage = { 
/**
 * Newest first.
 */
messages: Array<GroupMessage>, 
/**
 * A full page: older messages may follow (ask with `beforeId` = the last id).
 */
hasMore: boolean, };

export type WebConfig = { defaultEnergy: DefaultEnergy, social: SocialLinks, andoridDownloadUrl?: string, appVersion: string, signIn: SignInConfig, };

export type DefaultEnergy = { genVoiceCoin: number, genPictureCoin: number, };

export type SignInConfig = { googleEnabled: boolean, discordEnabled: boolean, 
/**
 * "turnstile" or "development" (any token passes; the modal labels it).
 */
botCheckMode: "turnstile" | "development", turnstileSiteKey?: string, };

export type SocialLinks = { discord?: string, twitter?: string, youtube?: string, tiktok?: string, reddit?: string, };

export type VipData = { plans: Array<Plan>, coinPackages: Array<CoinPackage>, 
/**
 * Project extension: the routes configured here, in the order the checkout offers them.
 */
paymentRoutes: Array<PaymentRoute>, };

export type Plan = { productId: PlanId, price: string, originalPrice: string, currency: string, coinsPerPeriod: number, firstSubscriptionDiscount: number, periodMonths: number, 
/**
 * The price per month, a decimal string (rounded to the cent).
 */
perMonth: string, };

export type CoinPackage = { productId: CoinPackageId, coins: number, price: string, currency: string, 
/**
 * The package with the most coins per unit of money.
 */
bestValue: boolean, };

export type PaymentRoute = { route: PaymentRouteName, endpoint: string, 
/**
 * The sandbox: no money moves.
 */
test: boolean, };

export type CreateOrderRequest = { productId: string, };

export type SubscriptionRequest = { subscriptionId: string, };

export type LastFlowRequest = { orderId?: string, };

export type CheckoutOrder = { orderId: string, 
/**
 * Where the browser goes to pay.
 */
approveUrl: string, 
/**
 * What a wallet QR code shows (zPay), else null.
 */
qrPayload: string | null, };

export type SubscriptionState = "pending" | "active" | "cancelled" | "ended";

export type Subscription = { subscriptionId: string, productId: PlanId, route: PaymentRouteName, state: SubscriptionState, 
/**
 * Seconds since the epoch.
 */
startedAt: number, 
/**
 * Seconds since the epoch: access and coins paid for last until then.
 */
currentPeriodEnd: number, 
/**
 * It renews at `currentPeriodEnd` (else it ends then).
 */
renews: boolean, };

export type Payment = { flowId: string, productId: ProductId, route: PaymentRouteName, status: PaymentStatus, 
/**
 * Decimal string, e.g. "12.99".
 */
amount: string, currency: string, createdAt: number, updatedAt: number, 
/**
 * No processor news is awaited: the page stops polling.
 */
final: boolean, };

export type OrderEntry = { 
/**
 * Money given back so far, a decimal string in the order's currency; "0.00" when none.
 */
refunded: string, flowId: string, productId: ProductId, route: PaymentRouteName, status: PaymentStatus, 
/**
 * Decimal string, e.g. "12.99".
 */
amount: string, currency: string, createdAt: number, updatedAt: number, 
/**
 * No processor news is awaited: the page stops polling.
 */
final: boolean, };

export type ImagePreset = { key: string, nsfw: boolean, };

export type ImageOptions = { scenes: Array<ImagePreset>, outfits: Array<ImagePreset>, poses: Array<ImagePreset>, styles: Array<ImagePreset>, counts: [number, number, number], 
/**
 * Coins per image (shown ÷ 10).
 */
costPerImage: number, illustration: boolean, };

export type GenerateRequest = { characterId?: string, scene?: string, outfit?: string, pose?: string, style?: string, prompt?: string, count: number, };

export type PictureRequest = { characterId: string, prompt?: string, };

export type JobRef = { jobId: string, };

export type GalleryRequest = { characterId?: string, beforeId?: string, pageSize?: number, };

export type ImageRef = { imageId: string, };

export type ShareRequest = { imageId: string, shared: boolean, };

export type FeedRequest = { beforeId?: string, pageSize?: number, };

export type JobStarted = { jobId: string, imageIds: string[], 
/**
 * The balance after the debit (`image/generate` only).
 */
coin?: number, };

export type ImagePage<T> = { images: Array<T>, hasMore: boolean, };

export type GalleryCharacter = { characterId: string, characterName: string, characterPhoto: string, count: number, };

export type BlogListRequest = { pageNo: number, pageSize: number, };

export type BlogInfoRequest = { blogKey: string, };

export type BlogCard = { blogKey: string, title: string, description: string, 
/**
 * YYYY-MM-DD.
 */
date: string, 
/**
 * A path on this site or an https URL.
 */
cover: string, };

export type BlogPage = { list: Array<BlogCard>, 
/**
 * How many posts there are in all, for numbered pages.
 */
total: number, };

export type BlogArticle = { blogKey: string, title: string, description: string, date: string, cover: string, 
/**
 * Rendered from the post's Markdown and sanitised when it was published.
 */
html: string, };

export type LegalTextsRequest = { lang: string, };

export type PublishedLegalText = { docKey: string, 
/**
 * YYYY-MM-DD, shown as "Last modified".
 */
lastModified: string, 
/**
 * As `docs.<docKey>` of the `legal` namespace: `{title, intro?, sections}`.
 */
text: unknown, };

export type LegalTexts = { 
/**
 * Only the documents an operator published in this language; the others are as built.
 */
docs: Array<PublishedLegalText>, };

export type LandingCopyRequest = { lang: string, 
/**
 * A landing page's topic key, e.g. `aiSex`.
 */
topic: string, };

export type LandingCopy = { 
/**
 * As `<topic>` of the `topics` namespace, `{heading, intro, points, faq: [{q, a}]}`;
 * null while the page's copy in this language is as the app was built.
 */
copy: unknown, };

export type ReportRequest = { 
/**
 * The character reported (or whose reply is); absent when a feed image is.
 */
characterId?: string, 
/**
 * An image of the public feed (`FeedImage.feedId`), instead of a character.
 */
feedId?: string, 
/**
 * A character's reply in the reporter's conversation; absent to report the character.
 */
messageId?: string, reason: string, note: string, };

export type ReportReceipt = { reportId: string, };

export type SpeakRequest = { characterId: string, messageId: string, };

export type SpeakAnswer = { messageId: string, 
/**
 * The voice it is spoken in (the character's).
 */
voiceId: string, 
/**
 * The parts stored so far, in order.
 */
parts: Array<VoicePart>, 
/**
 * False while more parts follow as `voicePart` events.
 */
complete: boolean, 
/**
 * The balance after the play (after the debit on a first play).
 */
coin: Coins, };

export type ErrorReport = { errorType: string, message: string, userAgent: string, url: string, userId: string, timestamp: number, stack: string, };
