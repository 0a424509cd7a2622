//! `GET /lust/api/ws` (API.md §5): one task per socket. It signs the socket in by cookie or
//! `voucher`, registers a bounded outgoing queue with the user's actor, says `hello`,
//! pings on a heartbeat, closes silent or slow sockets, and answers client actions.
//!
//! Actions run on a second task, one after another in the order they came, so that an
//! action that waits (a store on a slow day, the model's queue) never stops this socket
//! from reading pongs and writing events: a socket blocked on an action used to miss its
//! own liveness check and fall behind on events, and was closed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use actix_web::{HttpRequest, HttpResponse, web};
use actix_ws::{CloseCode, CloseReason, Session};
use amora_actors::actions::ClientAction;
use amora_actors::events::{Frame, ServerEvent};
use amora_actors::user::{Connect, Disconnect, UserActor, UserError, is_session_check};
use futures_util::StreamExt;
use serde::Deserialize;

use crate::api::ApiCode;
use crate::auth::session::{self, SignedIn};
use crate::state::AppState;

/// Largest client frame accepted; actions are small JSON objects.
const MAX_CLIENT_FRAME: usize = 16 * 1024;
/// Actions of one socket waiting to run; past it the client is told to slow down.
const PENDING_ACTIONS: usize = 16;
static NEXT_SOCKET_ID: AtomicU64 = AtomicU64::new(1);

#[derive(Deserialize)]
struct VoucherQuery {
    voucher: Option<String>,
}

pub async fn connect(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<AppState>,
) -> actix_web::Result<HttpResponse> {
    if !origin_allowed(&req, &state) {
        return Ok(HttpResponse::Forbidden().body("this origin may not open the socket"));
    }
    let Some(signed_in) = sign_in(&req, &state).await else {
        return Ok(HttpResponse::Unauthorized().body("sign in first"));
    };
    let Ok(permit) = state.socket_permits.clone().try_acquire_owned() else {
        tracing::warn!("socket refused: this node holds its maximum");
        return Ok(HttpResponse::ServiceUnavailable().body("too many sockets on this node"));
    };
    let (response, session, stream) = actix_ws::handle(&req, body)?;
    let stream =
        stream.max_frame_size(MAX_CLIENT_FRAME).aggregate_continuations().max_continuation_size(MAX_CLIENT_FRAME);
    let state = state.into_inner();
    actix_web::rt::spawn(async move {
        run(state, signed_in, session, stream).await;
        drop(permit);
    });
    Ok(response)
}

/// Browsers send the page's origin on every socket and cannot be made to lie about it, so a
/// page of another site cannot open a socket riding the visitor's session cookie
/// (cross-site WebSocket hijacking). Clients that are not browsers send no `Origin`; they
/// hold their voucher themselves and pass.
fn origin_allowed(req: &HttpRequest, state: &AppState) -> bool {
    let Some(origin) = req.headers().get(actix_web::http::header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    state.settings.http.origin_allowed(origin)
}

/// The close code for a frame the socket could not accept (RFC 6455 §7.4.1): 1009 for a
/// frame or message over the size limit, 1007 for text that is not UTF-8, else 1002.
fn close_code_for(error: &actix_ws::ProtocolError) -> CloseCode {
    use actix_ws::ProtocolError;
    match error {
        ProtocolError::Overflow => CloseCode::Size,
        ProtocolError::Io(io) if io.kind() == std::io::ErrorKind::InvalidData => CloseCode::Invalid,
        // actix-ws reports a message of continuations over the limit as an I/O error of this text.
        ProtocolError::Io(io) if io.to_string().contains("maximum continuation size") => CloseCode::Size,
        _ => CloseCode::Protocol,
    }
}

/// Sockets cannot carry custom headers from a browser, so the voucher may come in the query.
async fn sign_in(req: &HttpRequest, state: &AppState) -> Option<SignedIn> {
    if let Ok(query) = web::Query::<VoucherQuery>::from_query(req.query_string())
        && let Some(voucher) = query.into_inner().voucher
    {
        return session::lookup_token(state, &voucher).await.ok().flatten();
    }
    session::lookup(state, req).await.ok().flatten()
}

async fn run(
    state: std::sync::Arc<AppState>,
    signed_in: SignedIn,
    mut session: Session,
    mut stream: actix_ws::AggregatedMessageStream,
) {
    let realtime = &state.settings.realtime;
    let write_timeout = Duration::from_secs(realtime.write_timeout_secs);
    let client_timeout = Duration::from_secs(realtime.client_timeout_secs);
    let socket_id = NEXT_SOCKET_ID.fetch_add(1, Ordering::Relaxed);
    let user_id = signed_in.user.user_id.clone();

    let actor: actix::Addr<UserActor> = match state.node.user(&user_id).await {
        Ok(actor) => actor,
        Err(error) => {
            tracing::error!(%error, "no user actor for a socket");
            let _ = session.close(Some(CloseReason { code: CloseCode::Error, description: None })).await;
            return;
        }
    };
    let (sender, mut outgoing) = tokio::sync::mpsc::channel::<Frame>(realtime.outgoing_queue.max(1));
    let coin = match actor.send(Connect { socket_id, sender }).await {
        Ok(Ok(coin)) => coin,
        Ok(Err(UserError::TooManySockets)) => {
            let reason =
                CloseReason { code: CloseCode::Policy, description: Some("too many sockets for this user".into()) };
            let _ = session.close(Some(reason)).await;
            return;
        }
        other => {
            tracing::warn!(result = ?other.map(|r| r.map(|_| ())), "socket connect refused");
            let _ = session.close(Some(CloseReason { code: CloseCode::Error, description: None })).await;
            return;
        }
    };

    let session_hash = signed_in.session_hash.clone();
    let (actions, mut answers) = spawn_action_worker(state.clone(), signed_in);
    let mut heartbeat = tokio::time::interval(Duration::from_secs(realtime.heartbeat_secs.max(1)));
    heartbeat.tick().await;
    let mut last_heard = Instant::now();
    let hello = Frame::from(ServerEvent::Hello { user_id: user_id.clone(), coin });
    let mut open = send(&mut session, &hello, write_timeout).await;
    // The close frame this side sends last: the client's own code echoed (RFC 6455 §5.5.1),
    // else a normal closure; clients treat a close without a code as an error.
    let mut closing = CloseReason { code: CloseCode::Normal, description: None };

    while open {
        tokio::select! {
            message = stream.next() => {
                last_heard = Instant::now();
                open = match message {
                    Some(Ok(actix_ws::AggregatedMessage::Text(text))) => match actions.try_send(text.to_string()) {
                        Ok(()) => true,
                        Err(_) => {
                            let busy = ServerEvent::error(ApiCode::RateLimited, "too many actions at once: wait for the answers");
                            send(&mut session, &Frame::from(busy), write_timeout).await
                        }
                    },
                    Some(Ok(actix_ws::AggregatedMessage::Binary(_))) => {
                        let refused = ServerEvent::error(ApiCode::ParamError, "frames are JSON text");
                        send(&mut session, &Frame::from(refused), write_timeout).await
                    }
                    Some(Ok(actix_ws::AggregatedMessage::Ping(bytes))) => session.pong(&bytes).await.is_ok(),
                    Some(Ok(actix_ws::AggregatedMessage::Pong(_))) => true,
                    Some(Ok(actix_ws::AggregatedMessage::Close(reason))) => {
                        if let Some(reason) = reason {
                            closing = CloseReason { code: reason.code, description: None };
                        }
                        false
                    }
                    Some(Err(error)) => {
                        closing = CloseReason { code: close_code_for(&error), description: None };
                        false
                    }
                    None => false,
                };
            }
            Some(reply) = answers.recv() => {
                open = forward(&state, &user_id, &session_hash, &mut session, &reply, &mut closing).await;
            }
            frame = outgoing.recv() => {
                open = match frame {
                    Some(frame) => forward(&state, &user_id, &session_hash, &mut session, &frame, &mut closing).await,
                    // The actor dropped this socket (too slow) or stopped.
                    None => false,
                };
            }
            _ = heartbeat.tick() => {
                open = last_heard.elapsed() < client_timeout
                    && tokio::time::timeout(write_timeout, session.ping(b"")).await.is_ok_and(|r| r.is_ok());
            }
        }
    }
    actor.do_send(Disconnect { socket_id });
    let _ = tokio::time::timeout(write_timeout, session.close(Some(closing))).await;
}

/// Sends an event to the client; the in-process session check is not sent but answered:
/// if this socket's own session ended, the socket closes (1008, "signed out").
async fn forward(
    state: &AppState,
    user_id: &amora_domain::account::UserId,
    session_hash: &str,
    session: &mut Session,
    frame: &Frame,
    closing: &mut CloseReason,
) -> bool {
    let write_timeout = Duration::from_secs(state.settings.realtime.write_timeout_secs);
    if !is_session_check(frame) {
        return send(session, frame, write_timeout).await;
    }
    match state.node.session_live(user_id, session_hash).await {
        Ok(false) => {
            *closing = CloseReason { code: CloseCode::Policy, description: Some("signed out".into()) };
            false
        }
        // A store that cannot answer now is not a sign-out; the next action checks again.
        Ok(true) | Err(_) => true,
    }
}

/// Starts the task that runs this socket's actions in order: answers `(actions, answers)`.
/// It ends once the socket drops `actions`, after the action it is running.
fn spawn_action_worker(
    state: std::sync::Arc<AppState>,
    signed_in: SignedIn,
) -> (tokio::sync::mpsc::Sender<String>, tokio::sync::mpsc::Receiver<Frame>) {
    let (actions, mut queued) = tokio::sync::mpsc::channel::<String>(PENDING_ACTIONS);
    let (answer_to, answers) = tokio::sync::mpsc::channel::<Frame>(PENDING_ACTIONS);
    let user_id = signed_in.user.user_id.clone();
    actix_web::rt::spawn(async move {
        while let Some(text) = queued.recv().await {
            // No action runs for a session that ended (on any node), even before the
            // socket hears of it: the socket is told to check, and closes.
            match state.node.session_live(&user_id, &signed_in.session_hash).await {
                Ok(true) => {}
                Ok(false) => {
                    let _ = answer_to.send(amora_actors::user::session_check_frame()).await;
                    break;
                }
                Err(error) => {
                    tracing::error!(%error, "socket action: the session could not be checked");
                    let refused = ServerEvent::error(ApiCode::ServerError, ApiCode::ServerError.default_message());
                    if answer_to.send(Frame::from(refused)).await.is_err() {
                        break;
                    }
                    continue;
                }
            }
            let answer = match ClientAction::parse(&text) {
                Ok(action) => state.node.conversations.run_action(&user_id, action).await,
                Err(refused) => Some(refused.answer()),
            };
            if let Some(answer) = answer
                && answer_to.send(Frame::from(answer)).await.is_err()
            {
                break;
            }
        }
    });
    (actions, answers)
}

/// Sends one frame; false when the socket is gone or the client stopped reading.
async fn send(session: &mut Session, frame: &Frame, write_timeout: Duration) -> bool {
    matches!(tokio::time::timeout(write_timeout, session.text(frame.as_str().to_owned())).await, Ok(Ok(())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_bad_frame_has_its_close_code() {
        use actix_ws::ProtocolError;
        let io = |kind, text: &str| ProtocolError::Io(std::io::Error::new(kind, text.to_owned()));
        assert_eq!(close_code_for(&ProtocolError::Overflow), CloseCode::Size);
        assert_eq!(close_code_for(&io(std::io::ErrorKind::InvalidData, "invalid utf-8")), CloseCode::Invalid);
        assert_eq!(
            close_code_for(&io(std::io::ErrorKind::Other, "Exceeded maximum continuation size")),
            CloseCode::Size
        );
        assert_eq!(close_code_for(&ProtocolError::ContinuationNotStarted), CloseCode::Protocol);
        assert_eq!(close_code_for(&ProtocolError::BadOpCode), CloseCode::Protocol);
    }
}

/// Fuzzing WebSocket frames (issue 12): the frame decoder with this socket's limit, and the
/// action parsing `answer` and `chat_action` do, on arbitrary input, end in a message or an
/// error, never a panic.
#[cfg(test)]
mod fuzz {
    use actix_codec::Decoder;
    use proptest::prelude::*;

    use super::*;

    /// Cases per property; three properties.
    const CASES: u32 = 2_000;

    /// What the socket does with one text frame, short of running it.
    fn parse_action(text: &str) -> Result<ClientAction, String> {
        ClientAction::parse(text).map_err(|e| e.to_string())
    }

    /// Decodes every frame in `bytes` as the server does; stops at the first error.
    fn decode_all(bytes: &[u8]) {
        let mut codec = actix_http::ws::Codec::new().max_size(MAX_CLIENT_FRAME);
        let mut buffer = bytes::BytesMut::from(bytes);
        while let Ok(Some(_)) = codec.decode(&mut buffer) {}
    }

    /// A client frame header (FIN, opcode, masked length) in front of arbitrary bytes.
    fn framed(fin: bool, opcode: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
        let mut out = vec![(u8::from(fin) << 7) | (opcode & 0x0f)];
        match payload.len() {
            n if n < 126 => out.push(0x80 | n as u8),
            n if n <= u16::MAX as usize => {
                out.push(0x80 | 126);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                out.push(0x80 | 127);
                out.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        out.extend_from_slice(&mask);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_bytes_never_panic_the_frame_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            decode_all(&bytes);
        }

        #[test]
        fn well_framed_arbitrary_payloads_never_panic(
            fin in any::<bool>(),
            opcode in 0u8..16,
            payload in proptest::collection::vec(any::<u8>(), 0..300),
            mask in any::<[u8; 4]>(),
        ) {
            decode_all(&framed(fin, opcode, &payload, mask));
        }

        #[test]
        fn arbitrary_action_texts_parse_or_fail(
            text in "\\PC{0,200}|\\{\"action\":\"chatSend\",\"data\":\\{\"characterId\":\"\\PC{0,50}\",\"content\":\\PC{0,50}\\}\\}",
        ) {
            let _ = parse_action(&text);
        }
    }
}
