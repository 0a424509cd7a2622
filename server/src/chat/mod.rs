//! Chat over HTTP and the WebSocket: conversations and their history (`routes`), the
//! memories panel (`memories`), the persona a user plays as (`persona`), group chats'
//! settings and members (`groups`, issue 31), and the socket
//! (`socket`), which carries the chat's sends and streamed replies first, and every other
//! live event of the user's (images, voice, balance) after. The rules live in the node's
//! `Conversations`; these modules parse and hand over.

pub mod groups;
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
        .route("/user/v1/persona/deletePersona", web::post().to(persona::delete_persona))
        .route("/user/v1/group/createGroup", web::post().to(groups::create_group))
        .route("/user/v1/group/getGroupList", web::post().to(groups::get_group_list))
        .route("/user/v1/group/getGroup", web::post().to(groups::get_group))
        .route("/user/v1/group/updateGroup", web::post().to(groups::update_group))
        .route("/user/v1/group/addMember", web::post().to(groups::add_member))
        .route("/user/v1/group/removeMember", web::post().to(groups::remove_member))
        .route("/user/v1/group/updateMember", web::post().to(groups::update_member))
        .route("/user/v1/group/deleteGroup", web::post().to(groups::delete_group))
        .route("/user/v1/group/getMessageList", web::post().to(groups::get_message_list))
        .route("/user/v1/group/editMessage", web::post().to(groups::edit_message))
        .route("/user/v1/group/deleteMessage", web::post().to(groups::delete_message))
        .route("/user/v1/group/importChat", web::post().to(groups::import_chat));
}

/// The socket's address, outside the envelope (frames are not enveloped); mounted on the
/// app before the `/lust/api` scope. Upgrades themselves reach `socket::upgrade` from the
/// server's upgrade service (`startup::serve`); this route answers what is not one.
pub fn configure_socket(app: &mut web::ServiceConfig) {
    app.route(socket::PATH, web::get().to(socket::connect));
}
