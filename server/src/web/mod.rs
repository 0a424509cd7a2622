//! Everything served outside the encrypted API: health probes, media, translations and
//! the built single-page app.

pub mod health;
pub mod media;
pub mod payment_callbacks;
pub mod request_limits;
pub mod seo;
pub mod sign_in;
pub mod socket;
pub mod spa;

/// Headers on every response, the socket's handshake included (`startup` wraps the app in
/// them; `socket` writes them into its handshake). No page of this site is meant to be
/// shown inside another's frame (the mobile app embeds pages in a web view, not a frame), so
/// none may be: clickjacking (the app's pages also send CSP `frame-ancestors`).
pub const DEFAULT_HEADERS: [(&str, &str); 3] = [
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "strict-origin-when-cross-origin"),
    ("X-Frame-Options", "DENY"),
];
