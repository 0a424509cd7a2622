//! Signing in and staying signed in: sessions, passwords, mailed links, the bot check and
//! the Google and Discord identity providers (API.md §3, spec §2 "Login modal", §6), and
//! the account itself. Its enveloped calls are `routes` (sign-up, sign-in, sign-out) and
//! `account_routes` (the account's details, password and deletion); `sign_in_pages` are
//! the addresses reached by navigation (mailed links, providers' redirects), outside the
//! envelope; `throttle` slows password guessing.

pub mod account_routes;
pub mod accounts;
pub mod bot_check;
pub mod mail;
pub mod oauth;
pub mod oauth_flow;
pub mod password;
pub mod routes;
pub mod session;
pub mod sign_in_pages;
pub mod throttle;

use actix_web::web;

/// The calls under `/lust/api`, inside the envelope.
pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/user/v1/getUserInfo", web::get().to(account_routes::get_user_info))
        .route("/user/v1/getOwnUserInfoDetail", web::get().to(account_routes::get_own_user_info_detail))
        .route("/user/v1/updateUserInfo", web::post().to(account_routes::update_user_info))
        .route("/user/v1/updateUserPassword", web::post().to(account_routes::update_user_password))
        .route("/user/v1/updateWebData", web::post().to(account_routes::update_web_data))
        .route("/user/v1/deleteUser", web::post().to(account_routes::delete_user))
        .route("/login/v1/sendRegisterUserEmail", web::post().to(routes::send_register_user_email))
        .route("/login/v1/userPasswordLogin", web::post().to(routes::user_password_login))
        .route("/login/v1/googleSignUp", web::post().to(routes::google_sign_up))
        .route("/login/v1/signOut", web::get().to(routes::sign_out));
}

/// The addresses reached by navigation (a mailed link, a provider's redirect), so outside
/// the envelope; mounted on the app before the `/lust/api` scope, which would take them.
pub fn configure_pages(app: &mut web::ServiceConfig) {
    app.route("/lust/api/login/v1/emailLoginBack", web::get().to(sign_in_pages::email_login_back))
        .route("/lust/api/googleLogin", web::get().to(sign_in_pages::google_login))
        .route("/lust/api/googleLoginBack", web::get().to(sign_in_pages::google_login_back))
        .route("/lust/api/discordLogin", web::get().to(sign_in_pages::discord_login))
        .route("/lust/api/discordLoginBack", web::get().to(sign_in_pages::discord_login_back));
}

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs() as i64)
}

/// A random URL-safe token of 32 bytes (256 bits).
pub fn random_token() -> String {
    use base64::Engine;
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The stored form of a token: hex SHA-256, so a copy of the database signs nobody in.
pub fn token_hash(token: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The `utm_source` header the browser sends (API.md §1.2), bounded. Here, beside the
/// sign-in routes and pages that both read it, so neither has to reach into the other.
pub fn utm_source(req: &actix_web::HttpRequest) -> String {
    let raw = req.headers().get("utm_source").and_then(|v| v.to_str().ok()).unwrap_or_default();
    amora_domain::text::truncate_chars(raw.trim(), 100).to_owned()
}
