//! Site-wide configuration the browser needs: costs, social links and the price list.

use actix_web::web;
use amora_domain::money::Cents;
use serde::Serialize;

use crate::api::{ApiReply, ApiResult, Payload};
use crate::settings::SocialLinks;
use crate::state::AppState;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebConfig {
    default_energy: DefaultEnergy,
    social: SocialLinks,
    #[serde(rename = "andoridDownloadUrl", skip_serializing_if = "Option::is_none")]
    android_download_url: Option<String>,
    app_version: &'static str,
    sign_in: SignInConfig,
}

/// Which sign-in methods work on this install, so the login modal can say so.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SignInConfig {
    google_enabled: bool,
    discord_enabled: bool,
    /// "turnstile" or "development" (any token passes; the modal labels it).
    bot_check_mode: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    turnstile_site_key: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DefaultEnergy {
    gen_voice_coin: i64,
    gen_picture_coin: i64,
}

/// `getWebConfig {}` → `WebConfig`.
pub async fn get_web_config(state: web::Data<AppState>, _empty: Payload<serde_json::Value>) -> ApiResult<WebConfig> {
    let web = &state.settings.web;
    Ok(ApiReply(WebConfig {
        default_energy: DefaultEnergy { gen_voice_coin: web.gen_voice_coin, gen_picture_coin: web.gen_picture_coin },
        social: web.social.clone(),
        android_download_url: web.android_download_url.clone(),
        app_version: env!("CARGO_PKG_VERSION"),
        sign_in: SignInConfig {
            google_enabled: state.identity.google.is_some(),
            discord_enabled: state.identity.discord.is_some(),
            bot_check_mode: state.bot_check.mode(),
            turnstile_site_key: state.settings.bot_check.turnstile_site_key.clone(),
        },
    }))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VipData {
    plans: Vec<Plan>,
    coin_packages: Vec<CoinPackage>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Plan {
    product_id: String,
    price: String,
    original_price: String,
    currency: String,
    coins_per_period: i64,
    first_subscription_discount: u8,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CoinPackage {
    product_id: String,
    coins: i64,
    price: String,
    currency: String,
}

/// `getVipData {}` → `{plans, coinPackages}` from the configured catalogue.
pub async fn get_vip_data(state: web::Data<AppState>, _empty: Payload<serde_json::Value>) -> ApiResult<VipData> {
    let catalogue = &state.settings.catalogue;
    let plans = catalogue
        .plans
        .iter()
        .map(|plan| Plan {
            product_id: plan.product_id.clone(),
            price: Cents(plan.price_cents).to_decimal_string(),
            original_price: Cents(plan.original_price_cents).to_decimal_string(),
            currency: catalogue.currency.clone(),
            coins_per_period: plan.coins_per_period,
            first_subscription_discount: plan.first_subscription_discount,
        })
        .collect();
    let coin_packages = catalogue
        .coin_packages
        .iter()
        .map(|package| CoinPackage {
            product_id: package.product_id.clone(),
            coins: package.coins,
            price: Cents(package.price_cents).to_decimal_string(),
            currency: catalogue.currency.clone(),
        })
        .collect();
    Ok(ApiReply(VipData { plans, coin_packages }))
}
