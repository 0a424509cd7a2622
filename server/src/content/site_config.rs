//! Site-wide configuration the browser needs (`getWebConfig`): what images and voice cost,
//! social links, the app version and which sign-in methods work. The price list
//! (`getVipData`) is the payments feature's, in `payments/plans.rs`.

use actix_web::web;
use serde::Serialize;
use ts_rs::TS;

use crate::api::{ApiReply, ApiResult, Payload};
use crate::settings::SocialLinks;
use crate::state::AppState;

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WebConfig {
    default_energy: DefaultEnergy,
    social: SocialLinks,
    #[serde(rename = "andoridDownloadUrl", skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    android_download_url: Option<String>,
    app_version: &'static str,
    sign_in: SignInConfig,
}

/// Which sign-in methods work on this install, so the login modal can say so.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SignInConfig {
    google_enabled: bool,
    discord_enabled: bool,
    /// "turnstile" or "development" (any token passes; the modal labels it).
    #[ts(type = "\"turnstile\" | \"development\"")]
    bot_check_mode: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    #[ts(as = "Option<String>", optional)]
    turnstile_site_key: String,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DefaultEnergy {
    #[ts(type = "number")]
    gen_voice_coin: i64,
    #[ts(type = "number")]
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
