//! A character's voice over HTTP (docs/api.md "Voice"): the voices on offer and speaking a
//! reply (`routes`). Synthesis, its price and the clip cache live in the node's `Voices`;
//! the clips are served by `web::media` with every other media object.

pub mod routes;

use actix_web::web;

/// The calls under `/lust/api`, inside the envelope.
pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/user/v1/voice/getVoices", web::post().to(routes::get_voices))
        .route("/user/v1/voice/speak", web::post().to(routes::speak));
}
