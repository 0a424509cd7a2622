/** The answers of the console API (docs/api.md "Operator console API"). */
export type Role = 'admin' | 'moderator';

export interface Operator {
  operatorId: string;
  email: string;
  role: Role;
}

export interface ReportDecision {
  decision: 'dismissed' | 'actioned';
  operatorId: string;
  at: number;
}

export interface ReportView {
  reportId: string;
  createdAt: number;
  reporterId: string;
  characterId: string;
  characterName: string;
  characterHidden: boolean;
  messageId: string | null;
  messageText: string | null;
  reason: string;
  note: string;
  decision?: ReportDecision | null;
  /** The shared image reported, when the report is of an image (not sent by every server). */
  feedId?: string | null;
}

export interface WaitingCharacter {
  characterId: string;
  characterName: string;
  creatorId: string;
  gender: number;
  nsfw: boolean;
  introduction: string;
  greeting: string;
  scenario: string;
  personality: string;
  characterPhoto: string;
  submittedAt: number;
}

export interface FeedItem {
  feedId: string;
  imageId: string;
  url: string;
  ownerId: string;
  ownerNo: string;
  characterId: string | null;
  characterName: string | null;
  prompt: string;
  restricted: boolean;
  reports: number;
  hidden: boolean;
  hiddenAt: number | null;
  sharedAt: number;
}

export interface ModerationEvent {
  eventId: string;
  at: number;
  userId: string | null;
  surface: string;
  policy: string;
  refusal: string;
  layer: string;
  excerpt: string;
}

export interface UserAccount {
  userId: string;
  userNo: string;
  email: string;
  userName: string;
  createdAt: number;
  suspendedSince: number | null;
  vipType: number;
  coin: number;
}

export interface LedgerRow {
  txnId: string;
  coins: number;
  /** What the row is for, as the product wrote it (`order:…`, `refund:…`, an operator's reason). */
  reason: string;
  at: number;
}

export interface Order {
  orderId: string;
  productId: string;
  route: string;
  state: string;
  amount: string;
  currency: string;
  providerRef: string | null;
  subscriptionId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A live session as the store keeps it: no address, agent or last use is recorded. */
export interface UserSession {
  /** The start of the token's hash; `user/endSession` takes it. */
  sessionId: string;
  createdAt: number;
  expiresAt: number;
}

/** A report another user filed on a character this user created. */
export interface ReportReceived {
  reportId: string;
  characterId: string;
  characterName: string;
  reporterId: string;
  reason: string;
  note: string;
  createdAt: number;
  decision: { decision: string; operatorId: string; at: number } | null;
}

/** One of this user's shared images that others reported or that is held out of the feed. */
export interface ImageReported {
  feedId: string;
  imageId: string;
  url: string;
  characterName: string | null;
  /** Distinct reporters since the operator last restored it. */
  reports: number;
  hidden: boolean;
  hiddenAt: number | null;
  sharedAt: number;
}

export interface UserDetail {
  account: UserAccount;
  ledger: LedgerRow[];
  orders: Order[];
  reportsMade: ReportView[];
  reportsReceived: ReportReceived[];
  imagesReported: ImageReported[];
  sessions: UserSession[];
}

export interface AuditEntry {
  entryId: string;
  operatorId: string;
  /** Null when the operator account no longer exists. */
  operatorEmail?: string | null;
  action: string;
  target: string;
  reason: string;
  outcome: string;
  at: number;
}

export type PostState = 'published' | 'scheduled' | 'unpublished';

export interface BlogPostSummary {
  key: string;
  title: string;
  date: string;
  description: string;
  /** Seconds since the epoch from which readers see it; null while unpublished. */
  publishAt: number | null;
  state: PostState;
}

export interface LegalVersion {
  lastModified: string;
  text: unknown;
  operatorId: string;
  at: number;
}

export interface LegalAnswer {
  doc: string;
  lang: string;
  current: { lastModified: string; text: unknown } | null;
  versions: LegalVersion[];
}

export interface LandingCopy {
  heading: string;
  intro: string;
  points: string[];
  faq: { q: string; a: string }[];
}

export interface LandingAnswer {
  topic: string;
  lang: string;
  /** The copy the app was built with; null when the server has no build. */
  shipped: unknown;
  /** The newest published copy; null while none. */
  current: unknown;
  versions: LegalVersion[];
}

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricsSnapshot {
  at: number;
  samples: MetricSample[];
}

/** `GET money?days=N`: one currency's sum of a group of paid orders. */
export interface MoneySum {
  currency: string;
  orders: number;
  amountMinor: number;
  /** The same in the currency's decimals, e.g. `"12.99"`. */
  amount: string;
}

export interface RefundView {
  orderId: string;
  userId: string;
  route: string;
  productId: string;
  /** `chargeback` when any of its reversals was one (the buyer's bank took the money), else `refund`. */
  kind: 'refund' | 'chargeback';
  currency: string;
  price: string;
  refundedMinor: number;
  refunded: string;
  coinsTakenBack: number;
  /** Each money movement back, oldest first. */
  reversals: { providerTxnId: string; kind: 'refund' | 'chargeback'; at: number }[];
  /** Seconds. */
  at: number;
}

export interface MoneyOverview {
  days: number;
  since: number;
  until: number;
  truncated: boolean;
  orderCount: number;
  byRouteAndState: { route: string; state: string; count: number }[];
  revenue: {
    perDay: (MoneySum & { day: string })[];
    perProduct: (MoneySum & { productId: string })[];
    /** Sales in the window: paid orders, and refunded ones that had been paid. */
    totals: (MoneySum & { scope: string })[];
    /** What refunds and chargebacks gave back in the window. */
    givenBack: (MoneySum & { scope: string })[];
    /** Sales less what went back, per currency; negative when more went back. */
    net: { currency: string; amountMinor: number; amount: string }[];
  };
  refunds: RefundView[];
}

/** `GET money/webhooks`: a processor's notification that failed after its signature held. */
export interface FailedDelivery {
  deliveryId: string;
  route: string;
  error: string;
  receivedAt: number;
  bytes: number;
  body: string;
  replay: { at: number; applied: boolean; outcome: string } | null;
}
