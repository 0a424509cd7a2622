//! Generated images over HTTP (docs/api.md "Images"): the options, generating and
//! cancelling a picture, a chat's picture request, the gallery, sharing to the public feed
//! and the feed (`routes`). The queue, prices and refunds live in the node's image jobs;
//! the bytes are served by `web::media` with every other media object; creation's
//! portraits are `creation::portrait`.

pub mod routes;

use actix_web::web;

/// The calls under `/lust/api`, inside the envelope.
pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/user/v1/chat/requestPicture", web::post().to(routes::request_picture))
        .route("/user/v1/image/getImageOptions", web::post().to(routes::get_image_options))
        .route("/user/v1/image/generate", web::post().to(routes::generate))
        .route("/user/v1/image/cancel", web::post().to(routes::cancel))
        .route("/user/v1/image/getGallery", web::post().to(routes::get_gallery))
        .route("/user/v1/image/getGalleryCharacters", web::post().to(routes::get_gallery_characters))
        .route("/user/v1/image/deleteImage", web::post().to(routes::delete_image))
        .route("/user/v1/image/shareImage", web::post().to(routes::share_image))
        .route("/user/v1/image/getFeed", web::post().to(routes::get_feed));
}
