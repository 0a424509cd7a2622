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
