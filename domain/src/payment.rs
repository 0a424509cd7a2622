//! Payments (spec §1, §6, §7, §9; ARCHITECTURE.md "Payments"): what can be bought, the
//! routes money comes through, orders and their states, and plans as subscriptions whose
//! period end decides `userVipType`. Amounts are integer minor units of a currency; a price
//! is only ever taken from the server's catalogue.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::Invalid;
use crate::account::UserId;

/// How long a plan's period is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PlanPeriod {
    Month,
    Quarter,
    Year,
}

impl PlanPeriod {
    pub fn months(self) -> u32 {
        match self {
            PlanPeriod::Month => 1,
            PlanPeriod::Quarter => 3,
            PlanPeriod::Year => 12,
        }
    }

    /// The `userVipType` a plan of this period grants: above 0 is paid (spec §3), longer
    /// plans rank higher so the best active plan wins.
    pub fn vip_type(self) -> i64 {
        match self {
            PlanPeriod::Month => 1,
            PlanPeriod::Quarter => 2,
            PlanPeriod::Year => 3,
        }
    }
}

/// One of the products of spec §9: plans `month_1`, `quarter_1`, `year_1` and coin
/// packages `coin_1` … `coin_6`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(try_from = "String", into = "String")]
#[ts(type = "ProductId")]
pub enum ProductId {
    Plan(PlanPeriod),
    /// Coin package 1 to 6.
    Coins(u8),
}

impl ProductId {
    pub const ALL: [ProductId; 9] = [
        ProductId::Plan(PlanPeriod::Month),
        ProductId::Plan(PlanPeriod::Quarter),
        ProductId::Plan(PlanPeriod::Year),
        ProductId::Coins(1),
        ProductId::Coins(2),
        ProductId::Coins(3),
        ProductId::Coins(4),
        ProductId::Coins(5),
        ProductId::Coins(6),
    ];

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let product = match raw {
            "month_1" => ProductId::Plan(PlanPeriod::Month),
            "quarter_1" => ProductId::Plan(PlanPeriod::Quarter),
            "year_1" => ProductId::Plan(PlanPeriod::Year),
            other => match other.strip_prefix("coin_").and_then(|n| n.parse::<u8>().ok()) {
                Some(n @ 1..=6) if other.len() == 6 => ProductId::Coins(n),
                _ => return Err(Invalid::new("productId", "must be month_1, quarter_1, year_1 or coin_1 to coin_6")),
            },
        };
        Ok(product)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ProductId::Plan(PlanPeriod::Month) => "month_1",
            ProductId::Plan(PlanPeriod::Quarter) => "quarter_1",
            ProductId::Plan(PlanPeriod::Year) => "year_1",
            ProductId::Coins(1) => "coin_1",
            ProductId::Coins(2) => "coin_2",
            ProductId::Coins(3) => "coin_3",
            ProductId::Coins(4) => "coin_4",
            ProductId::Coins(5) => "coin_5",
            // Only `parse` makes values, and it allows 1 to 6.
            ProductId::Coins(_) => "coin_6",
        }
    }

    pub fn is_plan(self) -> bool {
        matches!(self, ProductId::Plan(_))
    }
}

impl std::fmt::Display for ProductId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for ProductId {
    type Error = Invalid;

    fn try_from(raw: String) -> Result<Self, Invalid> {
        ProductId::parse(&raw)
    }
}

impl From<ProductId> for String {
    fn from(id: ProductId) -> String {
        id.as_str().to_owned()
    }
}

/// An ISO 4217 code: three upper-case letters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Currency(String);

impl Currency {
    /// Accepts any case (`usd`, as some providers write it) and keeps upper case.
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let code = raw.trim().to_ascii_uppercase();
        if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(Invalid::new("currency", "must be three letters (ISO 4217)"));
        }
        Ok(Self(code))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Currency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for Currency {
    type Error = Invalid;

    fn try_from(raw: String) -> Result<Self, Invalid> {
        Currency::parse(&raw)
    }
}

impl From<Currency> for String {
    fn from(currency: Currency) -> String {
        currency.0
    }
}

/// An amount of money: integer minor units (cents) of a currency. Currencies here all have
/// two decimals; no arithmetic is ever done in binary floating point.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Money {
    pub minor: u64,
    pub currency: Currency,
}

impl Money {
    pub fn new(minor: u64, currency: Currency) -> Self {
        Self { minor, currency }
    }

    /// `"12.99"`, as providers and clients write amounts.
    pub fn decimal(&self) -> String {
        format!("{}.{:02}", self.minor / 100, self.minor % 100)
    }

    /// Reads a provider's decimal amount (`"12.99"`, `"12.9"`, `"12"`, `12.99` as JSON
    /// text) exactly, without floating point; more than two decimals must be zeros.
    pub fn parse_decimal(text: &str, currency: Currency) -> Result<Self, Invalid> {
        let invalid = || Invalid::new("amount", "must be a decimal amount like 12.99");
        let text = text.trim();
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        if whole.is_empty() || whole.len() > 12 || !whole.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid());
        }
        if !fraction.bytes().all(|b| b.is_ascii_digit()) || (text.contains('.') && fraction.is_empty()) {
            return Err(invalid());
        }
        let (cents, rest) = fraction.split_at(fraction.len().min(2));
        if rest.bytes().any(|b| b != b'0') {
            return Err(invalid());
        }
        let cents = format!("{cents:0<2}");
        let minor = whole.parse::<u64>().map_err(|_| invalid())? * 100 + cents.parse::<u64>().map_err(|_| invalid())?;
        Ok(Self { minor, currency })
    }
}

/// Where the money comes through: the six routes of spec §7 and the embedded sandbox.
///
/// On the wire as `code()` writes it (`nowpayments`, `zpay`): docs/api.md and the web app's
/// route names. (camelCase sent `nowPayments` and `zPay`, which the web app did not know.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(rename = "PaymentRouteName")]
pub enum PaymentRoute {
    /// Amora's own test checkout: no money moves (labelled so everywhere).
    Sandbox,
    Paypal,
    NowPayments,
    ZPay,
    Aiglo,
    Trust,
    Luxfin,
}

impl PaymentRoute {
    pub const ALL: [PaymentRoute; 7] = [
        PaymentRoute::Sandbox,
        PaymentRoute::Paypal,
        PaymentRoute::NowPayments,
        PaymentRoute::ZPay,
        PaymentRoute::Aiglo,
        PaymentRoute::Trust,
        PaymentRoute::Luxfin,
    ];

    /// How the API, the stores, the logs and the metrics write the route.
    pub fn code(self) -> &'static str {
        match self {
            PaymentRoute::Sandbox => "sandbox",
            PaymentRoute::Paypal => "paypal",
            PaymentRoute::NowPayments => "nowpayments",
            PaymentRoute::ZPay => "zpay",
            PaymentRoute::Aiglo => "aiglo",
            PaymentRoute::Trust => "trust",
            PaymentRoute::Luxfin => "luxfin",
        }
    }

    /// Whether the route's processor renews a plan by itself each period (a subscription
    /// at the processor); on the others a plan is one paid period that does not renew.
    pub fn renews_plans(self) -> bool {
        !matches!(self, PaymentRoute::NowPayments | PaymentRoute::ZPay)
    }

    pub fn from_code(code: &str) -> Result<Self, Invalid> {
        PaymentRoute::ALL
            .into_iter()
            .find(|route| route.code() == code)
            .ok_or_else(|| Invalid::new("route", format!("unknown payment route {code:?}")))
    }
}

/// Alphanumeric ids made by the server (orders, subscriptions): a prefix and random letters.
fn parse_server_id(raw: &str, prefix: &str, field: &'static str) -> Result<String, Invalid> {
    let ok = raw.len() >= prefix.len() + 16
        && raw.len() <= prefix.len() + 40
        && raw.starts_with(prefix)
        && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !ok {
        return Err(Invalid::new(field, "is not an id this server made"));
    }
    Ok(raw.to_owned())
}

/// An order's id (`ord_` and 24 letters or digits), shown to the user as the payment's
/// `flowId` and sent to providers as our reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct OrderId(String);

impl OrderId {
    pub const PREFIX: &'static str = "ord_";

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        parse_server_id(raw, Self::PREFIX, "orderId").map(Self)
    }

    /// A new id from 24 random letters or digits the caller drew.
    pub fn from_random(random: &str) -> Result<Self, Invalid> {
        Self::parse(&format!("{}{random}", Self::PREFIX))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for OrderId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for OrderId {
    type Error = Invalid;

    fn try_from(raw: String) -> Result<Self, Invalid> {
        OrderId::parse(&raw)
    }
}

impl From<OrderId> for String {
    fn from(id: OrderId) -> String {
        id.0
    }
}

/// A subscription's id (`sub_` and 24 letters or digits).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SubscriptionId(String);

impl SubscriptionId {
    pub const PREFIX: &'static str = "sub_";

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        parse_server_id(raw, Self::PREFIX, "subscriptionId").map(Self)
    }

    pub fn from_random(random: &str) -> Result<Self, Invalid> {
        Self::parse(&format!("{}{random}", Self::PREFIX))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SubscriptionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for SubscriptionId {
    type Error = Invalid;

    fn try_from(raw: String) -> Result<Self, Invalid> {
        SubscriptionId::parse(&raw)
    }
}

impl From<SubscriptionId> for String {
    fn from(id: SubscriptionId) -> String {
        id.0
    }
}

/// Where an order stands: created → pending → paid | failed | expired, and paid → refunded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OrderState {
    /// Made by us; the provider has not been asked yet, or has not answered.
    Created,
    /// The provider knows it and the user is paying (approval, an invoice waiting for funds).
    Pending,
    Paid,
    Failed,
    Expired,
    /// Given back (a refund or a chargeback). Paid before: a compensating ledger row takes
    /// back at most what it credited. Never paid (a partial payment sent back): nothing
    /// was credited and nothing is taken, the state records the refund (issue 28).
    Refunded,
}

impl OrderState {
    pub const ALL: [OrderState; 6] = [
        OrderState::Created,
        OrderState::Pending,
        OrderState::Paid,
        OrderState::Failed,
        OrderState::Expired,
        OrderState::Refunded,
    ];

    pub fn code(self) -> &'static str {
        match self {
            OrderState::Created => "created",
            OrderState::Pending => "pending",
            OrderState::Paid => "paid",
            OrderState::Failed => "failed",
            OrderState::Expired => "expired",
            OrderState::Refunded => "refunded",
        }
    }

    pub fn from_code(code: &str) -> Result<Self, Invalid> {
        OrderState::ALL
            .into_iter()
            .find(|state| state.code() == code)
            .ok_or_else(|| Invalid::new("state", format!("unknown order state {code:?}")))
    }

    /// Whether an order in this state may move to `next`. A failed or expired order may
    /// still become paid: a provider that reports money arriving late is believed, since
    /// the money moved (crypto invoices do this).
    pub fn may_become(self, next: OrderState) -> bool {
        use OrderState::*;
        matches!(
            (self, next),
            (Created, Pending | Paid | Failed | Expired)
                | (Pending, Paid | Failed | Expired)
                | (Failed | Expired, Paid)
                | (Created | Pending | Paid | Failed | Expired, Refunded)
        )
    }

    /// No provider news is awaited (the payment result page stops polling).
    pub fn is_final(self) -> bool {
        !matches!(self, OrderState::Created | OrderState::Pending)
    }
}

/// One purchase: a product at the catalogue's price through one route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    pub order_id: OrderId,
    pub user_id: UserId,
    pub product: ProductId,
    pub route: PaymentRoute,
    /// The price at order time, from the server's catalogue.
    pub amount: Money,
    pub state: OrderState,
    /// The provider's id of the order, invoice or checkout, once it has one.
    pub provider_ref: Option<String>,
    /// For a plan: the subscription this order starts or renews.
    pub subscription_id: Option<SubscriptionId>,
    /// Seconds since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

/// Where a subscription stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum SubscriptionState {
    /// Created; the first payment has not arrived.
    Pending,
    /// Paid up and renewing.
    Active,
    /// The user (or the provider) stopped renewal: access stays until the period ends.
    Cancelled,
    /// Over: not renewed, refunded, or never paid.
    Ended,
}

impl SubscriptionState {
    pub const ALL: [SubscriptionState; 4] =
        [SubscriptionState::Pending, SubscriptionState::Active, SubscriptionState::Cancelled, SubscriptionState::Ended];

    pub fn code(self) -> &'static str {
        match self {
            SubscriptionState::Pending => "pending",
            SubscriptionState::Active => "active",
            SubscriptionState::Cancelled => "cancelled",
            SubscriptionState::Ended => "ended",
        }
    }

    pub fn from_code(code: &str) -> Result<Self, Invalid> {
        SubscriptionState::ALL
            .into_iter()
            .find(|state| state.code() == code)
            .ok_or_else(|| Invalid::new("state", format!("unknown subscription state {code:?}")))
    }
}

/// A plan bought as a subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    pub subscription_id: SubscriptionId,
    pub user_id: UserId,
    pub period: PlanPeriod,
    pub route: PaymentRoute,
    /// The provider's id of the subscription (PayPal's `I-…`), if the route has one.
    pub provider_ref: Option<String>,
    pub state: SubscriptionState,
    /// When the first payment arrived (seconds), 0 while pending.
    pub started_at: i64,
    /// Access lasts until here (seconds); renewals move it.
    pub current_period_end: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

impl Subscription {
    /// Whether it grants a paid plan at `now`: paid up (renewing or cancelled) and inside
    /// its period.
    pub fn grants_access(&self, now: i64) -> bool {
        matches!(self.state, SubscriptionState::Active | SubscriptionState::Cancelled) && self.current_period_end > now
    }
}

/// Which order a processor's event is about: ours when the processor echoes our reference
/// back, else the processor's own id of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderRef {
    Ours(OrderId),
    Provider(String),
}

/// What a processor told us happened, after its signature was checked. Amounts are as the
/// processor reports them; the billing service compares them with the order.
/// Why money went back to the buyer. Both take back the order's coins the same way; the
/// operator's Money desk and the ledger's wording tell them apart, because a chargeback
/// costs a fee and, repeated, the processor account itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReversalKind {
    Refund,
    Chargeback,
}

impl ReversalKind {
    pub fn code(self) -> &'static str {
        match self {
            ReversalKind::Refund => "refund",
            ReversalKind::Chargeback => "chargeback",
        }
    }
}

/// Made by a payment provider from a verified callback; acted on by the billing service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentEvent {
    /// Money arrived for the order. `provider_txn_id` names the payment uniquely at the
    /// processor (a capture id, a payment id); a repeat of it credits nothing.
    Paid {
        order: OrderRef,
        provider_txn_id: String,
        amount: Money,
    },
    /// The buyer started paying; nothing to credit yet.
    Pending {
        order: OrderRef,
    },
    /// Part of the amount arrived (crypto); the order stays open.
    PartiallyPaid {
        order: OrderRef,
        amount: Money,
    },
    Failed {
        order: OrderRef,
        reason: String,
    },
    Expired {
        order: OrderRef,
    },
    /// Money went back to the buyer for an earlier payment: a refund (we or the processor's
    /// merchant side gave it back) or a chargeback (the buyer's bank took it back).
    Refunded {
        order: OrderRef,
        provider_txn_id: String,
        amount: Money,
        kind: ReversalKind,
    },
    /// A subscription's first payment went through; it runs until `period_end` (seconds)
    /// when the processor says so.
    SubscriptionActivated {
        subscription: SubscriptionRef,
        period_end: Option<i64>,
    },
    /// A renewal was paid.
    SubscriptionRenewed {
        subscription: SubscriptionRef,
        provider_txn_id: String,
        amount: Money,
        period_end: Option<i64>,
    },
    /// Renewal stopped (the buyer cancelled at the processor, or payments failed).
    SubscriptionCancelled {
        subscription: SubscriptionRef,
    },
}

/// Which subscription an event is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubscriptionRef {
    Ours(SubscriptionId),
    Provider(String),
}

/// `userVipType` from a user's subscriptions at `now`: 0 when none grants access, else the
/// highest plan that does.
pub fn vip_type(subscriptions: &[Subscription], now: i64) -> i64 {
    subscriptions.iter().filter(|s| s.grants_access(now)).map(|s| s.period.vip_type()).max().unwrap_or(0)
}

/// When the plan paid at `from` (seconds, UTC) ends: the same time of day, `months` calendar
/// months later, on the month's last day when the day does not exist (Jan 31 + 1 month =
/// Feb 28 or 29), as card processors and PayPal bill.
pub fn add_months(from: i64, months: u32) -> i64 {
    let days = from.div_euclid(86_400);
    let time_of_day = from.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let index = i64::from(month) - 1 + i64::from(months);
    let (year, month) = (year + index.div_euclid(12), (index.rem_euclid(12) + 1) as u32);
    let day = day.min(days_in_month(year, month));
    days_from_civil(year, month, day) * 86_400 + time_of_day
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 → (year, month 1-12, day 1-31); Howard Hinnant's algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// (year, month 1-12, day 1-31) → days since 1970-01-01.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let month = i64::from(month);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The API writes a route as its code: `getVipData`, subscriptions and payments, and the
    /// web app keys its labels by it (camelCase once sent `nowPayments` and `zPay`).
    #[test]
    fn a_route_is_sent_as_its_code() {
        for route in PaymentRoute::ALL {
            assert_eq!(serde_json::to_string(&route).unwrap_or_default(), format!("\"{}\"", route.code()));
            assert_eq!(serde_json::from_str::<PaymentRoute>(&format!("\"{}\"", route.code())).ok(), Some(route));
        }
    }

    fn usd() -> Currency {
        Currency::parse("usd").unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_product_id_round_trips_and_others_are_refused() {
        for product in ProductId::ALL {
            assert_eq!(ProductId::parse(product.as_str()), Ok(product));
        }
        for bad in ["", "coin_0", "coin_7", "coin_10", "coin_01", "month_2", "MONTH_1", "coin_1 "] {
            assert!(ProductId::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn decimal_amounts_are_read_exactly() {
        let read = |text: &str| Money::parse_decimal(text, usd()).map(|m| m.minor);
        assert_eq!(read("12.99"), Ok(1299));
        assert_eq!(read("12.9"), Ok(1290));
        assert_eq!(read("12"), Ok(1200));
        assert_eq!(read("0.07"), Ok(7));
        assert_eq!(read("12.9900"), Ok(1299));
        for bad in ["", ".5", "12.", "12.999", "-1.00", "1e3", "12,99", "1 2"] {
            assert!(read(bad).is_err(), "{bad:?}");
        }
        assert_eq!(Money::new(1299, usd()).decimal(), "12.99");
    }

    #[test]
    fn order_states_move_only_forward() {
        use OrderState::*;
        assert!(Created.may_become(Pending) && Pending.may_become(Paid) && Paid.may_become(Refunded));
        assert!(Expired.may_become(Paid), "a late payment is still money that arrived");
        assert!(!Paid.may_become(Failed) && !Paid.may_become(Pending) && !Refunded.may_become(Paid));
        assert!(Pending.may_become(Refunded), "a partial payment sent back is recorded");
        assert!(!Refunded.may_become(Refunded) && !Paid.may_become(Paid));
        assert!(!Created.is_final() && !Pending.is_final() && Paid.is_final() && Expired.is_final());
    }

    #[test]
    fn server_ids_have_their_prefix_and_length() {
        let random = "a".repeat(24);
        assert!(OrderId::from_random(&random).is_ok());
        assert!(SubscriptionId::from_random(&random).is_ok());
        assert!(OrderId::parse(&format!("sub_{random}")).is_err());
        assert!(OrderId::parse("ord_short").is_err());
        assert!(OrderId::parse(&format!("ord_{}", "a;".repeat(12))).is_err());
    }

    #[test]
    fn months_are_calendar_months() {
        // 2024-01-31 10:00:00 UTC.
        let jan31 = 1_706_695_200;
        assert_eq!(add_months(jan31, 1), 1_709_200_800, "2024-02-29 10:00, a leap year");
        assert_eq!(add_months(jan31, 3), 1_714_471_200, "2024-04-30 10:00");
        assert_eq!(add_months(jan31, 12), 1_738_317_600, "2025-01-31 10:00");
        // 2023-12-15 00:00:00 UTC + 1 month crosses the year.
        assert_eq!(add_months(1_702_598_400, 1), 1_705_276_800, "2024-01-15");
    }

    #[test]
    fn the_best_plan_in_force_decides_the_vip_type() {
        let user = UserId::parse("u1").unwrap_or_else(|e| panic!("{e}"));
        let sub = |period, state, end| Subscription {
            subscription_id: SubscriptionId::from_random(&"b".repeat(24)).unwrap_or_else(|e| panic!("{e}")),
            user_id: user.clone(),
            period,
            route: PaymentRoute::Sandbox,
            provider_ref: None,
            state,
            started_at: 0,
            current_period_end: end,
            created_at: 0,
            updated_at: 0,
        };
        let now = 1_000;
        assert_eq!(vip_type(&[], now), 0);
        assert_eq!(vip_type(&[sub(PlanPeriod::Month, SubscriptionState::Active, 2_000)], now), 1);
        assert_eq!(
            vip_type(&[sub(PlanPeriod::Year, SubscriptionState::Cancelled, 2_000)], now),
            3,
            "paid until the end"
        );
        assert_eq!(vip_type(&[sub(PlanPeriod::Year, SubscriptionState::Active, 900)], now), 0, "the period is over");
        assert_eq!(vip_type(&[sub(PlanPeriod::Year, SubscriptionState::Pending, 2_000)], now), 0, "not paid");
        let both = [
            sub(PlanPeriod::Month, SubscriptionState::Active, 2_000),
            sub(PlanPeriod::Quarter, SubscriptionState::Cancelled, 3_000),
        ];
        assert_eq!(vip_type(&both, now), 2);
    }
}
