//! The API endpoints under `/lust/api`, one module per feature. `configure` mounts them
//! inside the envelope middleware; anything unmatched answers `notFound` in an envelope.

pub(crate) mod blog;
pub(crate) mod cards;
pub(crate) mod characters;
pub(crate) mod chat;
pub(crate) mod creation;
pub(crate) mod images;
pub mod login;
pub mod pay;
pub(crate) mod persona;
pub(crate) mod reports;
pub(crate) mod telemetry;
pub(crate) mod user;
pub(crate) mod voice;
pub(crate) mod web_config;

use actix_web::web;

use crate::api::ApiError;

pub fn configure(scope: &mut web::ServiceConfig) {
    pay::configure(scope);
    scope
        .route("/user/v1/character/getCharacterList", web::post().to(characters::get_character_list))
        .route("/user/v1/character/getCharacterInfo", web::post().to(characters::get_character_info))
        .route("/user/v1/character/getCreateOptions", web::post().to(creation::get_create_options))
        .route("/user/v1/character/previewPortrait", web::post().to(creation::preview_portrait))
        .route("/user/v1/character/create", web::post().to(creation::create))
        .route("/user/v1/character/update", web::post().to(creation::update))
        .route("/user/v1/character/delete", web::post().to(creation::delete))
        .route("/user/v1/character/duplicate", web::post().to(creation::duplicate))
        .route("/user/v1/character/setVisibility", web::post().to(creation::set_visibility))
        .route("/user/v1/character/getMyCharacters", web::post().to(creation::get_my_characters))
        .route("/user/v1/character/importCard", web::post().to(cards::import_card))
        .route("/user/v1/character/exportCard", web::post().to(cards::export_card))
        .route("/user/v1/config/getWebConfig", web::post().to(web_config::get_web_config))
        .route("/user/v1/getVipData", web::post().to(web_config::get_vip_data))
        .route("/user/v1/getUserInfo", web::get().to(user::get_user_info))
        .route("/user/v1/getOwnUserInfoDetail", web::get().to(user::get_own_user_info_detail))
        .route("/user/v1/updateUserInfo", web::post().to(user::update_user_info))
        .route("/user/v1/updateUserPassword", web::post().to(user::update_user_password))
        .route("/user/v1/updateWebData", web::post().to(user::update_web_data))
        .route("/user/v1/deleteUser", web::post().to(user::delete_user))
        .route("/login/v1/sendRegisterUserEmail", web::post().to(login::send_register_user_email))
        .route("/login/v1/userPasswordLogin", web::post().to(login::user_password_login))
        .route("/login/v1/googleSignUp", web::post().to(login::google_sign_up))
        .route("/login/v1/signOut", web::get().to(login::sign_out))
        .route("/user/v1/chat/getChatList", web::post().to(chat::get_chat_list))
        .route("/user/v1/chat/getMessageList", web::post().to(chat::get_message_list))
        .route("/user/v1/chat/deleteChat", web::post().to(chat::delete_chat))
        .route("/user/v1/chat/editMessage", web::post().to(chat::edit_message))
        .route("/user/v1/chat/deleteMessage", web::post().to(chat::delete_message))
        .route("/user/v1/chat/chooseGreeting", web::post().to(chat::choose_greeting))
        .route("/user/v1/chat/requestPicture", web::post().to(images::request_picture))
        .route("/user/v1/image/getImageOptions", web::post().to(images::get_image_options))
        .route("/user/v1/image/generate", web::post().to(images::generate))
        .route("/user/v1/image/cancel", web::post().to(images::cancel))
        .route("/user/v1/image/getGallery", web::post().to(images::get_gallery))
        .route("/user/v1/image/getGalleryCharacters", web::post().to(images::get_gallery_characters))
        .route("/user/v1/image/deleteImage", web::post().to(images::delete_image))
        .route("/user/v1/image/shareImage", web::post().to(images::share_image))
        .route("/user/v1/image/getFeed", web::post().to(images::get_feed))
        .route("/user/v1/memory/getMemoryList", web::post().to(chat::get_memory_list))
        .route("/user/v1/memory/addMemory", web::post().to(chat::add_memory))
        .route("/user/v1/memory/updateMemory", web::post().to(chat::update_memory))
        .route("/user/v1/memory/deleteMemory", web::post().to(chat::delete_memory))
        .route("/user/v1/persona/getPersonaList", web::post().to(persona::get_persona_list))
        .route("/user/v1/persona/setPersona", web::post().to(persona::set_persona))
        .route("/user/v1/persona/deletePersona", web::post().to(persona::delete_persona))
        .route("/user/v1/memory/pinMemory", web::post().to(chat::pin_memory))
        .route("/user/v1/blog/getBlogList", web::post().to(blog::get_blog_list))
        .route("/user/v1/blog/getBlogInfo", web::post().to(blog::get_blog_info))
        .route("/user/v1/report/reportContent", web::post().to(reports::report_content))
        .route("/user/v1/voice/getVoices", web::post().to(voice::get_voices))
        .route("/user/v1/voice/speak", web::post().to(voice::speak))
        .route("/spm", web::get().to(telemetry::spm))
        .route("/webError", web::post().to(telemetry::web_error))
        .default_service(web::to(unknown_endpoint));
}

async fn unknown_endpoint(req: actix_web::HttpRequest) -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!("no endpoint {} {}", req.method(), req.path())))
}
