//! Seeds the character catalogue with its pictures drawn by the embedded illustrator: the
//! store keeps the characters' data but draws nothing, the `ai` crate draws.

use amora_ai::image::illustrator::{SVG_CONTENT_TYPE, catalogue_svg};
use amora_domain::appearance::{Look, Shot};
use amora_domain::gender::Gender;
use amora_store::{MediaObject, Store, StoreResult};

/// A seeded character's portrait or second picture: SVG, small and crisp at any size.
pub fn catalogue_picture(look: &Look, gender: Gender, shot: Shot) -> MediaObject {
    MediaObject { content_type: SVG_CONTENT_TYPE.to_owned(), bytes: catalogue_svg(look, gender, shot).into_bytes() }
}

/// Seeds the catalogue when the store has none yet; returns how many characters were added.
pub async fn seed_catalogue(store: &Store) -> StoreResult<usize> {
    amora_store::seed::ensure_catalogue(store, &catalogue_picture).await
}
