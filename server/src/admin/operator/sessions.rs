//! A user's sessions on the Users desk: listed on the user's page (`desks::user_page`) and
//! ended one by one (`user/endSession`), through the path every ending of a session takes
//! (`auth::session::end`: the store, then every node's sockets of the user check their
//! own and the ended one closes). A session is known by what the store keeps of it: when
//! it was made and when it expires (no address, agent or last use is stored); the console
//! names it by the start of its token's hash, never the token.

use actix_web::{HttpResponse, web};
use amora_domain::account::User;
use amora_store::SessionRecord;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::admin::{AdminError, find_user, internal};
use crate::auth::session::{Ending, end};
use crate::state::AppState;

/// Hex digits of the token's hash that name a session: 64 bits, unique among one user's.
const SESSION_ID_LEN: usize = 16;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope.route("/user/endSession", web::post().to(end_session));
}

fn session_id(session: &SessionRecord) -> &str {
    session.token_hash.get(..SESSION_ID_LEN).unwrap_or(&session.token_hash)
}

/// The user's live sessions, oldest first, as `{sessionId, createdAt, expiresAt}`.
pub(crate) async fn list(state: &AppState, user: &User) -> Result<Vec<Value>, AdminError> {
    let sessions = state.store.sessions.live_sessions(&user.user_id, crate::auth::now()).await.map_err(internal)?;
    Ok(sessions
        .iter()
        .map(|s| json!({ "sessionId": session_id(s), "createdAt": s.created_at, "expiresAt": s.expires_at }))
        .collect())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndSessionRequest {
    user: String,
    /// A `sessionId` of the user's page.
    session: String,
}

/// `POST user/endSession {user, session}`: that one session ends, on every node, as when
/// the user signs out of it; the user's other sessions go on. 404 when the user has no
/// such live session.
async fn end_session(
    state: web::Data<AppState>,
    body: web::Json<EndSessionRequest>,
) -> Result<HttpResponse, AdminError> {
    let request = body.into_inner();
    let user = find_user(&state, request.user.trim()).await?;
    let wanted = request.session.trim();
    let sessions = state.store.sessions.live_sessions(&user.user_id, crate::auth::now()).await.map_err(internal)?;
    let session = sessions
        .iter()
        .find(|s| wanted.len() == SESSION_ID_LEN && session_id(s) == wanted)
        .ok_or_else(|| AdminError::NotFound(format!("no live session {wanted} of that user")))?;
    end(&state, &user.user_id, Ending::One(&session.token_hash)).await.map_err(internal)?;
    Ok(HttpResponse::Ok().json(json!({
        "userId": user.user_id.to_string(),
        "sessionId": session_id(session),
        "outcome": "sessionEnded",
    })))
}
