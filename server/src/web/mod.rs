//! What every feature's routes share outside the encrypted API: health probes, the media
//! store's objects (portraits, generated images, voice clips), the bounds on how a request
//! is sent, the built single-page app, and the headers on every response. A feature's own
//! pages, callbacks and socket live in its folder (`auth`, `payments`, `chat`).

pub mod health;
pub mod media;
pub mod raster;
pub mod request_limits;
pub mod spa;

use actix_web::{Route, guard, web};

/// Headers on every response, the socket's handshake included (`startup` wraps the app in
/// them; `chat::socket` writes them into its handshake). No page of this site is meant to be
/// shown inside another's frame (the mobile app embeds pages in a web view, not a frame), so
/// none may be: clickjacking (the app's pages also send CSP `frame-ancestors`).
pub const DEFAULT_HEADERS: [(&str, &str); 3] = [
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "strict-origin-when-cross-origin"),
    ("X-Frame-Options", "DENY"),
];

/// The shared routes of the app, outside the envelope: probes, media, translations, the
/// sitemap and robots.txt. The app itself answers every other path (`spa::static_or_index`,
/// `startup`'s default service).
///
/// What a crawler or link preview may fetch answers `HEAD` as it answers `GET` (issue 34):
/// the same handler, whose body actix leaves out of a HEAD response while keeping its
/// headers (Content-Length included). Without the HEAD route such a request fell through
/// to the app's default service and was a 404.
pub fn configure(app: &mut web::ServiceConfig) {
    app.route("/healthz", web::get().to(health::healthz))
        .route("/readyz", web::get().to(health::readyz))
        .route("/media/{id}", get_or_head().to(media::get_media))
        .route("/locales/{lng}/{file}", get_or_head().to(spa::locale))
        .route("/sitemap.xml", get_or_head().to(spa::sitemap))
        .route("/robots.txt", get_or_head().to(spa::robots));
}

/// A route for `GET` and `HEAD` alike.
fn get_or_head() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}
