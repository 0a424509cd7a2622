//! Receipts: the mail a member gets for each payment, renewal, cancellation and refund
//! (through the same mail path as sign-in links: SMTP, or the outbox by default).

use amora_actors::payments::{Billing, Receipt};
use amora_domain::payment::{PlanPeriod, ProductId};

/// "1 month", "3 months", "12 months".
pub fn period_name(period: PlanPeriod) -> &'static str {
    match period {
        PlanPeriod::Month => "1 month",
        PlanPeriod::Quarter => "3 months",
        PlanPeriod::Year => "12 months",
    }
}

/// Coins as the interface shows them: divided by 10 (spec §9).
pub fn tokens(coins: i64) -> String {
    if coins % 10 == 0 { format!("{}", coins / 10) } else { format!("{}.{}", coins / 10, (coins % 10).abs()) }
}

fn product_name(product: ProductId) -> String {
    match product {
        ProductId::Plan(period) => format!("the {} plan", period_name(period)),
        ProductId::Coins(_) => format!("token package {product}"),
    }
}

/// A UTC date, `2026-11-24`.
pub fn date(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Subject and text of a receipt.
pub fn render(receipt: &Receipt, billing: &Billing) -> (String, String) {
    let _ = billing;
    let test_note = |route: amora_domain::payment::PaymentRoute| {
        if route == amora_domain::payment::PaymentRoute::Sandbox {
            "\nThis was a TEST payment through Amora's sandbox: no money moved.\n"
        } else {
            ""
        }
    };
    match receipt {
        Receipt::Paid { order, coins, .. } => (
            format!("Your Amora receipt {}", order.order_id),
            format!(
                "Thank you for your purchase.\n\nOrder: {}\nProduct: {}\nAmount: {} {}\nTokens added: {}\nPaid through: {}\nDate: {}\n{}",
                order.order_id,
                product_name(order.product),
                order.amount.decimal(),
                order.amount.currency,
                tokens(coins.units()),
                order.route.code(),
                date(order.updated_at.max(order.created_at)),
                test_note(order.route),
            ),
        ),
        Receipt::Renewed { order, coins, period_end, .. } => (
            format!("Your Amora plan renewed ({})", order.order_id),
            format!(
                "Your plan renewed.\n\nOrder: {}\nProduct: {}\nAmount: {} {}\nTokens added: {}\nNext renewal: {}\n{}",
                order.order_id,
                product_name(order.product),
                order.amount.decimal(),
                order.amount.currency,
                tokens(coins.units()),
                date(*period_end),
                test_note(order.route),
            ),
        ),
        Receipt::Cancelled { subscription, .. } => (
            "Your Amora plan will not renew".to_owned(),
            format!(
                "Your {} plan is cancelled and will not renew. You keep it, and the tokens already added, until {}.\n",
                period_name(subscription.period),
                date(subscription.current_period_end),
            ),
        ),
        Receipt::Refunded { order, coins, .. } => (
            format!("Your Amora refund for {}", order.order_id),
            format!(
                "Your payment was refunded.\n\nOrder: {}\nAmount: {} {}\nTokens taken back: {}\n{}",
                order.order_id,
                order.amount.decimal(),
                order.amount.currency,
                tokens(coins.units()),
                test_note(order.route),
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_coins_divided_by_ten_and_dates_are_utc() {
        assert_eq!(tokens(1000), "100");
        assert_eq!(tokens(25), "2.5");
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(1_709_200_800), "2024-02-29");
    }
}
