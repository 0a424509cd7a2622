//! The API endpoints under `/lust/api`, one module per feature. `configure` mounts them
//! inside the envelope middleware; anything unmatched answers `notFound` in an envelope.

mod characters;
mod telemetry;
mod user;
mod web_config;

use actix_web::web;

use crate::api::ApiError;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/user/v1/character/getCharacterList", web::post().to(characters::get_character_list))
        .route("/user/v1/character/getCharacterInfo", web::post().to(characters::get_character_info))
        .route("/user/v1/config/getWebConfig", web::post().to(web_config::get_web_config))
        .route("/user/v1/getVipData", web::post().to(web_config::get_vip_data))
        .route("/user/v1/getUserInfo", web::get().to(user::get_user_info))
        .route("/spm", web::get().to(telemetry::spm))
        .route("/webError", web::post().to(telemetry::web_error))
        .default_service(web::to(unknown_endpoint));
}

async fn unknown_endpoint(req: actix_web::HttpRequest) -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!("no endpoint {} {}", req.method(), req.path())))
}
