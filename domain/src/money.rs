//! Money: coins are integer units (the interface shows them divided by 10, spec §9), and
//! every change of a balance is a ledger row named by a transaction id, so replaying the
//! same change does nothing. Prices are integer minor units of a currency.

use serde::{Deserialize, Serialize};

use crate::Invalid;

/// A number of coins: a balance, or the size of one change (see `Coins::change`). The field
/// is private, so every amount made outside this module says what it is by the constructor
/// that made it: `change` (one credit or debit, checked), `price` (what something costs,
/// checked) or `stored` (what the ledger or a store holds: a balance, a row's signed delta,
/// a sum, read back as written).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(transparent)]
#[ts(type = "number")]
pub struct Coins(i64);

impl Coins {
    pub const ZERO: Coins = Coins(0);
    /// The most coins one credit or debit may move: far above any package (65,000), and
    /// low enough that no run of changes can overflow an `i64` balance.
    pub const MAX_CHANGE: i64 = 1_000_000_000;

    /// True for an amount one credit or debit may move: 1 to `MAX_CHANGE`.
    pub fn is_valid_change(amount: i64) -> bool {
        (1..=Self::MAX_CHANGE).contains(&amount)
    }

    /// The size of one credit or debit: 1 to `MAX_CHANGE` coins.
    pub fn change(amount: i64) -> Result<Coins, Invalid> {
        if Self::is_valid_change(amount) {
            Ok(Coins(amount))
        } else {
            Err(Invalid::new("coins", format!("must be from 1 to {}", Self::MAX_CHANGE)))
        }
    }

    /// What something costs (an image, a voice clip): 0 (free) to `MAX_CHANGE` coins.
    pub fn price(amount: i64) -> Result<Coins, Invalid> {
        if (0..=Self::MAX_CHANGE).contains(&amount) {
            Ok(Coins(amount))
        } else {
            Err(Invalid::new("price", format!("must be from 0 to {} coins", Self::MAX_CHANGE)))
        }
    }

    /// An amount as the ledger or a store holds it (a balance, a row's signed delta, a sum
    /// of rows): read back as it was written, so not checked again.
    pub const fn stored(units: i64) -> Coins {
        Coins(units)
    }

    pub fn units(self) -> i64 {
        self.0
    }

    /// `self` times `count` (a price for several), or `None` past `i64`.
    pub fn checked_mul(self, count: i64) -> Option<Coins> {
        self.0.checked_mul(count).map(Coins)
    }

    /// `self + other`, or `None` past `i64`.
    pub fn checked_add(self, other: Coins) -> Option<Coins> {
        self.0.checked_add(other.0).map(Coins)
    }

    /// The negative of this amount (a debit's row).
    pub fn negated(self) -> Coins {
        Coins(self.0.saturating_neg())
    }
}

/// The sum of ledger rows (saturating: a balance never nears `i64`'s limits, see `MAX_CHANGE`).
impl std::iter::Sum for Coins {
    fn sum<I: Iterator<Item = Coins>>(iter: I) -> Coins {
        Coins(iter.fold(0i64, |total, coins| total.saturating_add(coins.0)))
    }
}

impl std::fmt::Display for Coins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Longest transaction id: room for a provider's own id behind a prefix.
pub const MAX_TXN_ID_LEN: usize = 160;

/// The idempotency id of one ledger row: the same id applied twice changes the balance
/// once. Ids made from an outside event (a provider's transaction id) are derived from it,
/// so a webhook delivered twice names the same row.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TxnId(String);

impl TxnId {
    /// 1 to `MAX_TXN_ID_LEN` of `[A-Za-z0-9._:-]`.
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let ok = !raw.is_empty()
            && raw.len() <= MAX_TXN_ID_LEN
            && raw.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
        if !ok {
            return Err(Invalid::new("txnId", format!("must be 1 to {MAX_TXN_ID_LEN} of A-Z a-z 0-9 . _ : -")));
        }
        Ok(Self(raw.to_owned()))
    }

    /// `kind:part:part…`, each part cleaned to the allowed characters (others become `_`),
    /// so an outside id of any shape names one stable row.
    pub fn derived(kind: &str, parts: &[&str]) -> Self {
        let clean = |part: &str| -> String {
            part.chars()
                .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
                .collect()
        };
        let mut id = clean(kind);
        for part in parts {
            id.push(':');
            id.push_str(&clean(part));
        }
        if id.is_empty() {
            id.push('_');
        }
        // Cut at a character boundary (all ASCII by now) to the longest allowed.
        id.truncate(MAX_TXN_ID_LEN);
        Self(id)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for TxnId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for TxnId {
    type Error = Invalid;

    fn try_from(raw: String) -> Result<Self, Invalid> {
        TxnId::parse(&raw)
    }
}

impl From<TxnId> for String {
    fn from(id: TxnId) -> String {
        id.0
    }
}

/// A price in minor units (cents) of a currency, shown as a decimal string so that no
/// client ever does money arithmetic on binary floating point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Cents(pub u64);

impl Cents {
    pub fn to_decimal_string(self) -> String {
        format!("{}.{:02}", self.0 / 100, self.0 % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_print_with_two_decimals() {
        assert_eq!(Cents(1299).to_decimal_string(), "12.99");
        assert_eq!(Cents(500).to_decimal_string(), "5.00");
        assert_eq!(Cents(7).to_decimal_string(), "0.07");
    }

    #[test]
    fn a_change_moves_one_to_max_coins() {
        assert!(Coins::change(0).is_err());
        assert!(Coins::change(-5).is_err());
        assert!(Coins::change(Coins::MAX_CHANGE + 1).is_err());
        assert_eq!(Coins::change(20), Ok(Coins(20)));
    }

    #[test]
    fn transaction_ids_are_checked_and_derived_ids_are_stable() {
        assert!(TxnId::parse("").is_err());
        assert!(TxnId::parse("has space").is_err());
        assert!(TxnId::parse(&"a".repeat(MAX_TXN_ID_LEN + 1)).is_err());
        assert_eq!(
            TxnId::parse("pay:paypal:5O190127TN364715T").map(|t| t.to_string()).ok(),
            Some("pay:paypal:5O190127TN364715T".into())
        );
        let derived = TxnId::derived("pay", &["nowpayments", "id with/odd chars"]);
        assert_eq!(derived.as_str(), "pay:nowpayments:id_with_odd_chars");
        assert_eq!(TxnId::parse(derived.as_str()).ok(), Some(derived));
        assert!(TxnId::derived("x", &[&"y".repeat(500)]).as_str().len() <= MAX_TXN_ID_LEN);
    }
}
