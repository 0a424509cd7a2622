//! Chat over HTTP and the WebSocket: conversations and their history (`routes`), the
//! memories panel (`memories`), the persona a user plays as (`persona`), and the socket
//! (`socket`), which carries the chat's sends and streamed replies first, and every other
//! live event of the user's (images, voice, balance) after. The rules live in the node's
//! `Conversations`; these modules parse and hand over.

pub mod memories;
pub mod persona;
pub mod routes;
pub mod socket;

use actix_web::web;

/// The calls under `/lust/api`, inside the envelope.
pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/user/v1/chat/getChatList", web::post().to(routes::get_chat_list))
        .route("/user/v1/chat/getMessageList", web::post().to(routes::get_message_list))
        .route("/user/v1/chat/deleteChat", web::post().to(routes::delete_chat))
        .route("/user/v1/chat/editMessage", web::post().to(routes::edit_message))
        .route("/user/v1/chat/deleteMessage", web::post().to(routes::delete_message))
        .route("/user/v1/chat/chooseGreeting", web::post().to(routes::choose_greeting))
        .route("/user/v1/memory/getMemoryList", web::post().to(memories::get_memory_list))
        .route("/user/v1/memory/addMemory", web::post().to(memories::add_memory))
        .route("/user/v1/memory/updateMemory", web::post().to(memories::update_memory))
        .route("/user/v1/memory/deleteMemory", web::post().to(memories::delete_memory))
        .route("/user/v1/memory/pinMemory", web::post().to(memories::pin_memory))
        .route("/user/v1/persona/getPersonaList", web::post().to(persona::get_persona_list))
        .route("/user/v1/persona/setPersona", web::post().to(persona::set_persona))
        .route("/user/v1/persona/deletePersona", web::post().to(persona::delete_persona));
}

/// The socket's address, outside the envelope (frames are not enveloped); mounted on the
/// app before the `/lust/api` scope. Upgrades themselves reach `socket::upgrade` from the
/// server's upgrade service (`startup::serve`); this route answers what is not one.
pub fn configure_socket(app: &mut web::ServiceConfig) {
    app.route(socket::PATH, web::get().to(socket::connect));
}
