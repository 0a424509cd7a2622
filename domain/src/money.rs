//! Coins are integer units; the interface shows them divided by 10 (spec §9).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Coins(pub i64);

impl Coins {
    pub const ZERO: Coins = Coins(0);
    /// The most coins one credit or debit may move: far above any package (65,000), and
    /// low enough that no run of changes can overflow an `i64` balance.
    pub const MAX_CHANGE: i64 = 1_000_000_000;

    /// True for an amount one credit or debit may move: 1 to `MAX_CHANGE`.
    pub fn is_valid_change(amount: i64) -> bool {
        (1..=Self::MAX_CHANGE).contains(&amount)
    }

    pub fn units(self) -> i64 {
        self.0
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
}
