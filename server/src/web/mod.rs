//! What every feature's routes share outside the encrypted API: health probes, the media
//! store's objects (portraits, generated images, voice clips), the bounds on how a request
//! is sent, the built single-page app, and the headers on every response. A feature's own
//! pages, callbacks and socket live in its folder (`auth`, `payments`, `chat`).

pub mod health;
pub mod media;
pub mod request_limits;
pub mod spa;

use actix_web::web;

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
pub fn configure(app: &mut web::ServiceConfig) {
    app.route("/healthz", web::get().to(health::healthz))
        .route("/readyz", web::get().to(health::readyz))
        .route("/media/{id}", web::get().to(media::get_media))
        .route("/locales/{lng}/{file}", web::get().to(spa::locale))
        .route("/sitemap.xml", web::get().to(spa::sitemap))
        .route("/robots.txt", web::get().to(spa::robots));
}
