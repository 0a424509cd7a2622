//! What can be bought and where: the price list the browser shows (`getVipData`,
//! docs/api.md "Payments"): the member's plans, the coin packages (the best value marked)
//! and the payment routes configured here, from the node's billing catalogue, with each
//! route's order endpoint (`routes` mounts one per route).

use actix_web::web;
use amora_domain::money::Cents;
use amora_domain::payment::{PaymentRoute, ProductId};
use serde::Serialize;
use ts_rs::TS;

use crate::api::{ApiReply, ApiResult, Payload};
use crate::state::AppState;

/// The endpoint of each route (spec §7), and the sandbox's (a project extension).
pub const ENDPOINTS: [(PaymentRoute, &str); 7] = [
    (PaymentRoute::Paypal, "paypalCreateOrder"),
    (PaymentRoute::NowPayments, "nowPaymentsInvoice"),
    (PaymentRoute::ZPay, "zPayCreateOrder"),
    (PaymentRoute::Aiglo, "aigloCreateOrder"),
    (PaymentRoute::Trust, "trustCreateOrder"),
    (PaymentRoute::Luxfin, "luxfinCreateOrder"),
    (PaymentRoute::Sandbox, "sandboxCreateOrder"),
];

pub fn endpoint_of(route: PaymentRoute) -> &'static str {
    ENDPOINTS.iter().find(|(candidate, _)| *candidate == route).map_or("", |(_, endpoint)| endpoint)
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct VipData {
    plans: Vec<Plan>,
    coin_packages: Vec<CoinPackage>,
    /// Project extension: the routes configured here, in the order the checkout offers them.
    payment_routes: Vec<PaymentRouteView>,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Plan {
    #[ts(type = "PlanId")]
    product_id: String,
    price: String,
    original_price: String,
    currency: String,
    #[ts(type = "number")]
    coins_per_period: i64,
    first_subscription_discount: u8,
    period_months: u32,
    /// The price per month, a decimal string (rounded to the cent).
    per_month: String,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CoinPackage {
    #[ts(type = "CoinPackageId")]
    product_id: String,
    #[ts(type = "number")]
    coins: i64,
    price: String,
    currency: String,
    /// The package with the most coins per unit of money.
    best_value: bool,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "PaymentRoute")]
pub(crate) struct PaymentRouteView {
    route: PaymentRoute,
    endpoint: &'static str,
    /// The sandbox: no money moves.
    test: bool,
}

/// `getVipData {}` → `{plans, coinPackages, paymentRoutes}` from the node's catalogue.
pub async fn get_vip_data(state: web::Data<AppState>, _empty: Payload<serde_json::Value>) -> ApiResult<VipData> {
    let catalogue = state.node.billing.catalogue();
    let offers = catalogue.offers();
    let plans = offers
        .iter()
        .filter_map(|offer| match offer.product {
            ProductId::Plan(period) => Some(Plan {
                product_id: offer.product.to_string(),
                price: offer.price.decimal(),
                original_price: offer.original_price.decimal(),
                currency: offer.price.currency.to_string(),
                coins_per_period: offer.coins.units(),
                first_subscription_discount: offer.first_subscription_discount,
                period_months: period.months(),
                per_month: Cents((offer.price.minor + u64::from(period.months()) / 2) / u64::from(period.months()))
                    .to_decimal_string(),
            }),
            ProductId::Coins(_) => None,
        })
        .collect();
    let packages: Vec<_> = offers.iter().filter(|offer| !offer.product.is_plan()).collect();
    // Most coins per cent; compared as fractions, no floating point.
    let best = packages
        .iter()
        .max_by(|a, b| {
            let left = i128::from(a.coins.units()) * i128::from(b.price.minor.max(1));
            let right = i128::from(b.coins.units()) * i128::from(a.price.minor.max(1));
            left.cmp(&right)
        })
        .map(|offer| offer.product);
    let coin_packages = packages
        .iter()
        .map(|offer| CoinPackage {
            product_id: offer.product.to_string(),
            coins: offer.coins.units(),
            price: offer.price.decimal(),
            currency: offer.price.currency.to_string(),
            best_value: Some(offer.product) == best,
        })
        .collect();
    let payment_routes = state
        .payments
        .routes()
        .into_iter()
        .map(|route| PaymentRouteView { route, endpoint: endpoint_of(route), test: route == PaymentRoute::Sandbox })
        .collect();
    Ok(ApiReply(VipData { plans, coin_packages, payment_routes }))
}
