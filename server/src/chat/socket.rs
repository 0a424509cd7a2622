//! `GET /lust/api/ws` (API.md §5): one task per socket. The socket carries the chat first
//! (sends, stops, regenerations and the streamed replies), so it lives with the chat; the
//! user's other live events (images, voice, balance, payments) ride on it too. It signs the
//! socket in by cookie or `voucher`, registers a bounded outgoing queue with the user's
//! actor, says `hello`, pings on a heartbeat, closes silent or slow sockets, and answers
//! client actions.
//!
//! The socket runs on the bare connection, outside actix-http's HTTP/1 dispatcher: the
//! server's upgrade service (`startup`) is handed the connection of every request asking
//! for a WebSocket, answers the handshake here, and the socket's task then reads and writes
//! frames itself with actix-http's frame codec. An idle socket so holds no read or write
//! buffer (they exist only while a frame is partly read or being written), no body channel
//! and no second task: about 35 KiB of server memory per idle socket inside the dispatcher
//! with actix-ws became a few KiB (BENCHMARKS.md "Memory per idle socket").
//!
//! Actions run on a second task, started on the socket's first action, one after another
//! in the order they came, so that an action that waits (a store on a slow day, the
//! model's queue) never stops this socket from reading pongs and writing events: a socket
//! blocked on an action used to miss its own liveness check and fall behind on events, and
//! was closed.
//!
//! A chat send the engine refuses (busy, model busy, no credit...) is counted against the
//! account and the client's address (`RefusalLimiter`); past `limits.refused_sends_*`, the
//! socket answers further sends `rateLimited` itself, without the session check, the
//! store or the engine, until the minute is over (issue 28: 93,564 refused sends in 50 s).

use std::convert::Infallible;
use std::io;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use actix_codec::{Decoder, Framed};
use actix_http::body::{BodySize, MessageBody};
use actix_http::header::{self, HeaderMap, HeaderValue};
use actix_http::ws::{self, CloseCode, CloseReason, Item, OpCode, Parser, ProtocolError};
use actix_http::{ConnectionType, Request, Response, StatusCode, h1};
use actix_web::{HttpRequest, HttpResponse, web};
use amora_actors::calls::CallHandle;
use amora_actors::user::{Connect, Disconnect, UserActor, UserError, is_session_check};
use amora_actors::wire::actions::ClientAction;
use amora_actors::wire::calls::{CallAction, CallEvent};
use amora_actors::wire::events::{Frame, ServerEvent};
use amora_domain::account::UserId;
use bytes::{Bytes, BytesMut};
use futures_util::SinkExt;
use serde::Deserialize;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;

use crate::api::ApiCode;
use crate::auth::session::{self, SignedIn};
use crate::state::AppState;
use crate::web::request_limits;

/// Where the socket is served.
pub const PATH: &str = "/lust/api/ws";
/// Largest client frame accepted, and largest message of continuation frames; actions are
/// small JSON objects.
const MAX_CLIENT_FRAME: usize = 16 * 1024;
/// Largest control frame payload (RFC 6455 §5.5).
const MAX_CONTROL_FRAME: u64 = 125;
/// Bytes read from the connection at a time, on the stack: what arrives is kept only until
/// its frame is whole.
const READ_CHUNK: usize = 4096;
/// After its close frame, how long the server reads (and discards) what the client still
/// sends, so that unread bytes do not turn the close into a reset that loses the close frame.
const LINGER: Duration = Duration::from_secs(2);
/// At most this much is discarded while lingering.
const LINGER_BYTES: usize = 256 * 1024;
/// Actions of one socket waiting to run; past it the client is told to slow down.
const PENDING_ACTIONS: usize = 16;
static NEXT_SOCKET_ID: AtomicU64 = AtomicU64::new(1);

#[derive(Deserialize)]
struct VoucherQuery {
    voucher: Option<String>,
}

/// Why a socket was refused before its handshake: the HTTP answer.
struct Refusal {
    status: StatusCode,
    text: &'static str,
}

/// The upgrade service of the HTTP server: every request that asks for a WebSocket (on
/// any path) arrives here with its connection, once its head is read. Errors are answered
/// on the connection, so this never fails.
pub async fn upgrade(
    state: Arc<AppState>,
    req: Request,
    framed: Framed<TcpStream, h1::Codec>,
) -> Result<(), Infallible> {
    if request_limits::headers_too_large(&req.head().headers, state.settings.http.max_header_bytes) {
        let too_large =
            Refusal { status: StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, text: "request headers too large" };
        respond(framed, too_large).await;
        return Ok(());
    }
    if req.path() != PATH {
        respond(framed, Refusal { status: StatusCode::NOT_FOUND, text: "not found" }).await;
        return Ok(());
    }
    let (signed_in, permit) = match admit(&req.head().headers, req.uri().query(), &state).await {
        Ok(admitted) => admitted,
        Err(refusal) => {
            respond(framed, refusal).await;
            return Ok(());
        }
    };
    let response = match ws::handshake(req.head()) {
        Ok(mut builder) => builder.message_body(()),
        Err(error) => {
            respond_with(framed, Response::from(error)).await;
            return Ok(());
        }
    };
    let Ok(mut response) = response else {
        return Ok(());
    };
    with_default_headers(&mut response);
    let mut framed = framed;
    if framed.send(h1::Message::Item((response, BodySize::None))).await.is_err() {
        return Ok(());
    }
    // What the client sent after its handshake stays; the dispatcher's buffers go.
    let parts = framed.into_parts();
    let early = if parts.read_buf.is_empty() { BytesMut::new() } else { BytesMut::from(&parts.read_buf[..]) };
    let socket = Socket { io: parts.io, reader: Reader::new(early) };
    let user_id = signed_in.user.user_id.clone();
    let session_hash = signed_in.session_hash;
    let address = client_address(&req, &socket.io, &state);
    let task = run(state, Client { user_id, session_hash, address }, socket, permit);
    log_task_size_once(std::mem::size_of_val(&task));
    actix_web::rt::spawn(task);
    Ok(())
}

/// The client's address, as every per-address limit reads it (`client_address`): the TCP
/// peer, or what trusted proxies in front of it say.
fn client_address(req: &Request, io: &TcpStream, state: &AppState) -> IpAddr {
    let peer = io.peer_addr().map_or(IpAddr::from([0, 0, 0, 0]), |addr| addr.ip());
    let proxies = &state.limits.trusted_proxies;
    if proxies.is_empty() {
        return peer;
    }
    let forwarded: Vec<&str> =
        req.head().headers.get_all(header::X_FORWARDED_FOR).filter_map(|value| value.to_str().ok()).collect();
    proxies.client(peer, &forwarded)
}

/// Who is on the other end of a socket.
#[derive(Clone)]
struct Client {
    user_id: UserId,
    session_hash: String,
    address: IpAddr,
}

/// The route of `GET /lust/api/ws` without an upgrade: the same checks, in the same order,
/// as an upgrade, then the handshake's own refusal.
pub async fn connect(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    if let Err(refusal) = admit(req.headers(), Some(req.query_string()), &state).await {
        return HttpResponse::build(refusal.status).body(refusal.text);
    }
    match ws::handshake(req.head()) {
        Err(error) => HttpResponse::from(Response::from(error)),
        Ok(_) => HttpResponse::BadRequest().body("open the socket with an upgrade"),
    }
}

/// The checks before the handshake: origin (403), sign-in (401), the node's socket
/// permit (503).
async fn admit(
    headers: &HeaderMap,
    query: Option<&str>,
    state: &AppState,
) -> Result<(SignedIn, OwnedSemaphorePermit), Refusal> {
    if !origin_allowed(headers, state) {
        return Err(Refusal { status: StatusCode::FORBIDDEN, text: "this origin may not open the socket" });
    }
    let Some(signed_in) = sign_in(headers, query, state).await else {
        return Err(Refusal { status: StatusCode::UNAUTHORIZED, text: "sign in first" });
    };
    let Ok(permit) = state.socket_permits.clone().try_acquire_owned() else {
        tracing::warn!("socket refused: this node holds its maximum");
        return Err(Refusal { status: StatusCode::SERVICE_UNAVAILABLE, text: "too many sockets on this node" });
    };
    Ok((signed_in, permit))
}

/// Browsers send the page's origin on every socket and cannot be made to lie about it, so a
/// page of another site cannot open a socket riding the visitor's session cookie
/// (cross-site WebSocket hijacking). Clients that are not browsers send no `Origin`; they
/// hold their voucher themselves and pass.
fn origin_allowed(headers: &HeaderMap, state: &AppState) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    state.settings.http.origin_allowed(origin)
}

/// Sockets cannot carry custom headers from a browser, so the voucher may come in the query;
/// as on every HTTP call, a live session cookie wins over it (`session::lookup_presented`).
async fn sign_in(headers: &HeaderMap, query: Option<&str>, state: &AppState) -> Option<SignedIn> {
    let mut presented = session::presented_in(headers);
    if let Ok(query) = web::Query::<VoucherQuery>::from_query(query.unwrap_or_default())
        && let Some(voucher) = query.into_inner().voucher
    {
        presented.voucher = Some(voucher);
    }
    session::lookup_presented(state, presented).await.ok().flatten()
}

/// Answers a refused upgrade with a short text and closes the connection.
async fn respond(framed: Framed<TcpStream, h1::Codec>, refusal: Refusal) {
    let mut response = Response::with_body(refusal.status, refusal.text);
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    respond_with(framed, response).await;
}

async fn respond_with<B: MessageBody>(mut framed: Framed<TcpStream, h1::Codec>, response: Response<B>) {
    let (mut head, body) = response.into_parts();
    let body = body.try_into_bytes().unwrap_or_default();
    head.head_mut().set_connection_type(ConnectionType::Close);
    with_default_headers(&mut head);
    let sent = async {
        framed.send(h1::Message::Item((head, BodySize::Sized(body.len() as u64)))).await?;
        if !body.is_empty() {
            framed.send(h1::Message::Chunk(Some(body))).await?;
        }
        framed.send(h1::Message::Chunk(None)).await?;
        SinkExt::<h1::Message<(Response<()>, BodySize)>>::close(&mut framed).await
    };
    if let Err(error) = tokio::time::timeout(LINGER, sent).await.unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into()))
    {
        tracing::debug!(%error, "a refused socket's answer was not delivered");
    }
}

/// The headers the application's middleware puts on every other response.
fn with_default_headers(response: &mut Response<()>) {
    for (name, value) in crate::web::DEFAULT_HEADERS {
        if let Ok(name) = header::HeaderName::from_bytes(name.as_bytes()) {
            response.headers_mut().insert(name, HeaderValue::from_static(value));
        }
    }
}

/// The size of a socket's task, logged once (debug) for the memory figures.
fn log_task_size_once(bytes: usize) {
    static LOGGED: AtomicBool = AtomicBool::new(false);
    if !LOGGED.swap(true, Ordering::Relaxed) {
        tracing::debug!(bytes, "socket task future size");
    }
}

/// The socket's actions: the queue to its action task and that task's answers. Started on
/// the first action, so an idle socket has neither.
struct Actions {
    queue: tokio::sync::mpsc::Sender<String>,
    answers: tokio::sync::mpsc::Receiver<Frame>,
}

async fn run(state: Arc<AppState>, client: Client, mut socket: Socket, permit: OwnedSemaphorePermit) {
    let user_id = &client.user_id;
    let realtime = &state.settings.realtime;
    let write_timeout = Duration::from_secs(realtime.write_timeout_secs);
    let client_timeout = Duration::from_secs(realtime.client_timeout_secs);
    let heartbeat = Duration::from_secs(realtime.heartbeat_secs.max(1));
    let socket_id = NEXT_SOCKET_ID.fetch_add(1, Ordering::Relaxed);

    // Rarely taken paths are boxed, so that their futures do not size every idle socket's task.
    let (actor, mut outgoing, hello) = match Box::pin(register(&state, user_id, socket_id)).await {
        Ok(registered) => registered,
        Err(reason) => {
            Box::pin(socket.close(reason, write_timeout)).await;
            drop(permit);
            return;
        }
    };
    let mut actions: Option<Box<Actions>> = None;
    let mut call: Option<Box<CallLine>> = None;
    let mut last_heard = Instant::now();
    let ping_due = tokio::time::sleep(heartbeat);
    tokio::pin!(ping_due);
    let mut open = Box::pin(socket.send(OpCode::Text, hello.as_str().as_bytes(), write_timeout)).await;
    drop(hello);
    // The close frame this side sends last: the client's own code echoed (RFC 6455 §5.5.1),
    // else a normal closure; clients treat a close without a code as an error.
    let mut closing = CloseReason { code: CloseCode::Normal, description: None };
    if open && !socket.reader.buf.is_empty() {
        // Frames the client sent right behind its handshake.
        open = Box::pin(on_frames(&state, &client, &mut socket, &mut actions, &mut call, &mut closing)).await;
    }

    while open {
        tokio::select! {
            ready = socket.io.readable() => {
                open = match ready.and_then(|()| socket.fill()) {
                    Ok(Some(0)) | Err(_) => false,
                    Ok(None) => true,
                    Ok(Some(_)) => {
                        last_heard = Instant::now();
                        Box::pin(on_frames(&state, &client, &mut socket, &mut actions, &mut call, &mut closing)).await
                    }
                };
            }
            reply = answer(&mut actions) => {
                open = match reply {
                    Some(reply) => {
                        Box::pin(forward(&state, user_id, &client.session_hash, &mut socket, &reply, &mut closing)).await
                    }
                    None => {
                        // The action task ended; a later action starts another.
                        actions = None;
                        true
                    }
                };
            }
            frame = outgoing.recv() => {
                open = match frame {
                    Some(frame) => {
                        let sent = Box::pin(forward(&state, user_id, &client.session_hash, &mut socket, &frame, &mut closing)).await;
                        // The call follows its reply in the chat events, after the client got them.
                        if let Some(handle) = call.as_ref().and_then(|line| line.handle.as_ref()) {
                            handle.observe(&frame);
                        }
                        sent
                    }
                    // The actor dropped this socket (too slow) or stopped.
                    None => false,
                };
            }
            event = call_event(&mut call) => {
                open = Box::pin(socket.send(OpCode::Text, event.as_str().as_bytes(), write_timeout)).await;
            }
            () = &mut ping_due => {
                open = last_heard.elapsed() < client_timeout
                    && Box::pin(socket.send(OpCode::Ping, b"", write_timeout)).await;
                ping_due.as_mut().reset(tokio::time::Instant::now() + heartbeat);
            }
        }
    }
    actor.do_send(Disconnect { socket_id });
    drop(outgoing);
    drop(actions);
    // A socket that closes ends its call silently.
    drop(call);
    Box::pin(socket.close(closing, write_timeout)).await;
    drop(permit);
}

/// Registers the socket's outgoing queue with the user's actor: the actor, the queue and
/// the `hello` frame; else the close to send.
async fn register(
    state: &Arc<AppState>,
    user_id: &UserId,
    socket_id: u64,
) -> Result<(actix::Addr<UserActor>, tokio::sync::mpsc::Receiver<Frame>, Frame), CloseReason> {
    let error = CloseReason { code: CloseCode::Error, description: None };
    let actor: actix::Addr<UserActor> = match state.node.user(user_id).await {
        Ok(actor) => actor,
        Err(failure) => {
            tracing::error!(error = %failure, "no user actor for a socket");
            return Err(error);
        }
    };
    let (sender, outgoing) = tokio::sync::mpsc::channel::<Frame>(state.settings.realtime.outgoing_queue.max(1));
    match actor.send(Connect { socket_id, sender }).await {
        Ok(Ok(coin)) => {
            let hello = Frame::from(ServerEvent::Hello { user_id: user_id.clone(), coin });
            Ok((actor, outgoing, hello))
        }
        Ok(Err(UserError::TooManySockets)) => {
            Err(CloseReason { code: CloseCode::Policy, description: Some("too many sockets for this user".into()) })
        }
        other => {
            tracing::warn!(result = ?other.map(|r| r.map(|_| ())), "socket connect refused");
            Err(error)
        }
    }
}

/// The socket's call (issue 32): the one running, if any, and the events of its calls.
/// Made on the first `callStart`, so a socket that never calls holds none of it.
struct CallLine {
    handle: Option<CallHandle>,
    events_to: tokio::sync::mpsc::UnboundedSender<Frame>,
    events: tokio::sync::mpsc::UnboundedReceiver<Frame>,
}

/// The next event of the socket's call; pending while it has none.
async fn call_event(call: &mut Option<Box<CallLine>>) -> Frame {
    match call {
        // The line holds a sender itself, so its receiver never ends.
        Some(line) => match line.events.recv().await {
            Some(frame) => frame,
            None => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}

/// Runs a call action at once, on the socket's task (a call's own task does the work, so
/// nothing here waits): the frame to answer with, if any.
fn on_call_action(
    state: &AppState,
    client: &Client,
    call: &mut Option<Box<CallLine>>,
    action: Result<CallAction, String>,
) -> Option<Frame> {
    let action = match action {
        Ok(action) => action,
        Err(reason) => return Some(Frame::from(CallEvent::error(None, ApiCode::ParamError, reason))),
    };
    let running = call.as_ref().and_then(|line| line.handle.as_ref()).filter(|handle| handle.is_open());
    let refused = |code: ApiCode, msg: &str| Some(Frame::from(CallEvent::error(action.call_id(), code, msg)));
    let Some(call_id) = action.call_id() else {
        // callStart.
        if running.is_some() {
            return refused(ApiCode::RateLimited, "a call already runs on this socket");
        }
        let CallAction::CallStart { character_id } = action else { return None };
        let line = call.get_or_insert_with(|| {
            let (events_to, events) = tokio::sync::mpsc::unbounded_channel();
            Box::new(CallLine { handle: None, events_to, events })
        });
        line.handle = Some(state.calls.start(client.user_id.clone(), character_id, line.events_to.clone()));
        return None;
    };
    let Some(handle) = running.filter(|handle| handle.call_id() == call_id) else {
        return refused(ApiCode::ParamError, "no such call on this socket");
    };
    match &action {
        CallAction::CallAudio { seq, audio, .. } => match handle.audio(*seq, audio) {
            Ok(()) => None,
            Err(error) => refused(ApiCode::ParamError, &error.to_string()),
        },
        CallAction::CallInterrupt { .. } => {
            handle.interrupt();
            None
        }
        CallAction::CallEnd { .. } => {
            handle.end();
            None
        }
        CallAction::CallStart { .. } => None,
    }
}

/// The next answer of the socket's action task; pending while it has none.
async fn answer(actions: &mut Option<Box<Actions>>) -> Option<Frame> {
    match actions {
        Some(actions) => actions.answers.recv().await,
        None => std::future::pending().await,
    }
}

/// Handles every whole message read so far; false once the socket is to close.
async fn on_frames(
    state: &Arc<AppState>,
    client: &Client,
    socket: &mut Socket,
    actions: &mut Option<Box<Actions>>,
    call: &mut Option<Box<CallLine>>,
    closing: &mut CloseReason,
) -> bool {
    let write_timeout = Duration::from_secs(state.settings.realtime.write_timeout_secs);
    let mut open = true;
    while open {
        let message = match socket.reader.next_message() {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(code) => {
                *closing = CloseReason { code, description: None };
                return false;
            }
        };
        open = match message {
            Incoming::Text(text) => 'text: {
                // Call actions never wait in the action queue: audio comes ten times a second.
                if let Some(action) = CallAction::parse(&text) {
                    break 'text match on_call_action(state, client, call, action) {
                        Some(answer) => socket.send(OpCode::Text, answer.as_str().as_bytes(), write_timeout).await,
                        None => true,
                    };
                }
                let queue =
                    &actions.get_or_insert_with(|| Box::new(spawn_action_worker(state.clone(), client.clone()))).queue;
                match queue.try_send(text) {
                    Ok(()) => true,
                    Err(_) => {
                        let busy =
                            ServerEvent::error(ApiCode::RateLimited, "too many actions at once: wait for the answers");
                        socket.send(OpCode::Text, Frame::from(busy).as_str().as_bytes(), write_timeout).await
                    }
                }
            }
            Incoming::Binary => {
                let refused = ServerEvent::error(ApiCode::ParamError, "frames are JSON text");
                socket.send(OpCode::Text, Frame::from(refused).as_str().as_bytes(), write_timeout).await
            }
            Incoming::Ping(bytes) => socket.send(OpCode::Pong, &bytes, write_timeout).await,
            Incoming::Pong => true,
            Incoming::Close(code) => {
                if let Some(code) = code {
                    *closing = CloseReason { code, description: None };
                }
                false
            }
        };
    }
    socket.reader.release();
    open
}

/// Sends an event to the client; the in-process session check is not sent but answered:
/// if this socket's own session ended, the socket closes (1008, "signed out").
async fn forward(
    state: &AppState,
    user_id: &UserId,
    session_hash: &str,
    socket: &mut Socket,
    frame: &Frame,
    closing: &mut CloseReason,
) -> bool {
    let write_timeout = Duration::from_secs(state.settings.realtime.write_timeout_secs);
    if !is_session_check(frame) {
        return socket.send(OpCode::Text, frame.as_str().as_bytes(), write_timeout).await;
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

/// Starts the task that runs this socket's actions in order. It ends once the socket drops
/// the queue, after the action it is running.
fn spawn_action_worker(state: Arc<AppState>, client: Client) -> Actions {
    let (actions, mut queued) = tokio::sync::mpsc::channel::<String>(PENDING_ACTIONS);
    let (answer_to, answers) = tokio::sync::mpsc::channel::<Frame>(PENDING_ACTIONS);
    let Client { user_id, session_hash, address } = client;
    actix_web::rt::spawn(async move {
        while let Some(text) = queued.recv().await {
            let action = ClientAction::parse(&text);
            // A send from an account or address refused too often is answered here.
            if let Ok(action) = &action
                && let Some(refused) = sends_shut(&state, &user_id, address, action)
            {
                if answer_to.send(Frame::from(refused)).await.is_err() {
                    break;
                }
                continue;
            }
            // No action runs for a session that ended (on any node), even before the
            // socket hears of it: the socket is told to check, and closes.
            match state.node.session_live(&user_id, &session_hash).await {
                Ok(true) => {}
                Ok(false) => {
                    let _ = answer_to.send(amora_actors::user::session_check_frame()).await;
                    break;
                }
                Err(error) => {
                    let refused = unchecked_answer(action.as_ref().ok(), &error);
                    if answer_to.send(Frame::from(refused)).await.is_err() {
                        break;
                    }
                    continue;
                }
            }
            let answer = match action {
                Ok(action) => {
                    let starts_reply = starts_reply(&action);
                    let answer = state.node.run_action(&user_id, action).await;
                    if starts_reply && answer.as_ref().is_some_and(is_refusal) {
                        let now = Instant::now();
                        state.limits.refused_sends_by_user.refused(&user_id, now);
                        state.limits.refused_sends_by_ip.refused(&address, now);
                    }
                    answer
                }
                Err(refused) => Some(refused.answer()),
            };
            if let Some(answer) = answer
                && answer_to.send(Frame::from(answer)).await.is_err()
            {
                break;
            }
        }
    });
    Actions { queue: actions, answers }
}

/// The chat actions that ask the engine for a reply (a group's among them).
fn starts_reply(action: &ClientAction) -> bool {
    matches!(
        action,
        ClientAction::ChatSend { .. }
            | ClientAction::ChatRegenerate { .. }
            | ClientAction::ChatContinue { .. }
            | ClientAction::GroupSend { .. }
            | ClientAction::GroupTalk { .. }
            | ClientAction::GroupPick { .. }
    )
}

/// An answer refusing a send for the user's (or the load's) sake: busy, no credit, refused
/// content... A fault of ours (`serverError`) is not held against the user.
fn is_refusal(answer: &ServerEvent) -> bool {
    matches!(
        answer,
        ServerEvent::ChatError { code, .. } | ServerEvent::GroupError { code, .. }
            if *code != ApiCode::ServerError.value()
    )
}

/// The answer to an action whose session could not be checked. A store briefly away (or
/// the user's actor waiting on it past its deadline) answers "try again", as the envelope
/// API does (docs/api.md "Try again"); a fault the generic text. An action about a
/// conversation is answered with that conversation's `chatError`.
fn unchecked_answer(action: Option<&ClientAction>, error: &amora_actors::NodeError) -> ServerEvent {
    let msg = if error.is_temporary() {
        tracing::warn!(%error, "socket action: the session could not be checked; answered 'try again'");
        amora_actors::TRY_AGAIN
    } else {
        tracing::error!(%error, "socket action: the session could not be checked");
        ApiCode::ServerError.default_message()
    };
    match action.and_then(ClientAction::character_id) {
        Some(character_id) => ServerEvent::ChatError {
            character_id: character_id.clone(),
            reply_id: None,
            code: ApiCode::ServerError.value(),
            msg: msg.to_owned(),
        },
        None => ServerEvent::error(ApiCode::ServerError, msg),
    }
}

/// The `rateLimited` answer to a send while its account or address used up its refusals
/// (`limits.refused_sends_*`), else `None`.
fn sends_shut(state: &AppState, user_id: &UserId, address: IpAddr, action: &ClientAction) -> Option<ServerEvent> {
    if !starts_reply(action) {
        return None;
    }
    let now = Instant::now();
    let limits = &state.limits;
    let shut = limits.refused_sends_by_user.check(user_id, now).is_err()
        || limits.refused_sends_by_ip.check(&address, now).is_err();
    if !shut {
        return None;
    }
    let msg = "too many messages were refused: wait a minute before sending again".to_owned();
    let code = ApiCode::RateLimited.value();
    match action {
        ClientAction::ChatSend { character_id, .. }
        | ClientAction::ChatRegenerate { character_id }
        | ClientAction::ChatContinue { character_id } => {
            Some(ServerEvent::ChatError { character_id: character_id.clone(), reply_id: None, code, msg })
        }
        ClientAction::GroupSend { group_id, .. }
        | ClientAction::GroupTalk { group_id }
        | ClientAction::GroupPick { group_id, .. } => {
            Some(ServerEvent::GroupError { group_id: group_id.clone(), character_id: None, reply_id: None, code, msg })
        }
        _ => None,
    }
}

/// One socket's connection: the TCP stream and what has been read of its frames.
struct Socket {
    io: TcpStream,
    reader: Reader,
}

impl Socket {
    /// Reads what the connection has now: `Some(0)` at its end, `None` when nothing is
    /// there after all. The chunk lives on the stack, not in the socket.
    fn fill(&mut self) -> io::Result<Option<usize>> {
        let mut chunk = [0u8; READ_CHUNK];
        match self.io.try_read(&mut chunk) {
            Ok(read) => {
                self.reader.buf.extend_from_slice(&chunk[..read]);
                Ok(Some(read))
            }
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Writes one unfragmented frame within the write timeout; false when the connection
    /// failed or the client stopped reading. The frame's buffer lives only while it is written.
    async fn send(&mut self, opcode: OpCode, payload: &[u8], write_timeout: Duration) -> bool {
        let mut out = BytesMut::with_capacity(payload.len() + 10);
        Parser::write_message(&mut out, payload, opcode, true, false);
        matches!(tokio::time::timeout(write_timeout, self.io.write_all(&out)).await, Ok(Ok(())))
    }

    /// Sends the close frame, ends the writing side, and reads what the client still sends
    /// for a moment (up to its own close), so the close frame is not lost to a reset.
    async fn close(mut self, reason: CloseReason, write_timeout: Duration) {
        let mut out = BytesMut::new();
        Parser::write_close(&mut out, Some(reason), false);
        let written = tokio::time::timeout(write_timeout, async {
            self.io.write_all(&out).await?;
            self.io.shutdown().await
        })
        .await;
        if !matches!(written, Ok(Ok(()))) {
            return;
        }
        let _ = tokio::time::timeout(LINGER, async {
            let mut discarded = 0;
            while discarded < LINGER_BYTES {
                if self.io.readable().await.is_err() {
                    return;
                }
                self.reader.buf.clear();
                match self.fill() {
                    Ok(Some(0)) | Err(_) => return,
                    Ok(Some(read)) => discarded += read,
                    Ok(None) => {}
                }
            }
        })
        .await;
    }
}

/// A whole message from the client.
#[derive(Debug, PartialEq)]
enum Incoming {
    Text(String),
    Binary,
    Ping(Bytes),
    Pong,
    Close(Option<CloseCode>),
}

/// The first frame of a message of continuations, and what followed so far.
struct Partial {
    text: bool,
    data: Vec<u8>,
}

/// Decodes the client's frames and joins continuations, within the size limits.
struct Reader {
    codec: ws::Codec,
    /// Bytes read but not yet a whole frame; empty (and unallocated) while the socket is idle.
    buf: BytesMut,
    partial: Option<Partial>,
}

impl Reader {
    fn new(buf: BytesMut) -> Self {
        Self { codec: ws::Codec::new().max_size(MAX_CLIENT_FRAME), buf, partial: None }
    }

    /// The next whole message in what was read, if any; a close code when the client broke
    /// a rule: 1009 for a frame or message over the size limit, 1007 for text that is not
    /// UTF-8, else 1002 (RFC 6455 §7.4.1).
    fn next_message(&mut self) -> Result<Option<Incoming>, CloseCode> {
        loop {
            // A frame announcing more than the limit is refused on its header, before its
            // payload is read into memory.
            if let Some((opcode, length)) = frame_header(&self.buf) {
                if opcode & 0x08 != 0 && length > MAX_CONTROL_FRAME {
                    return Err(CloseCode::Protocol);
                }
                if length > MAX_CLIENT_FRAME as u64 {
                    return Err(CloseCode::Size);
                }
            }
            let frame = match self.codec.decode(&mut self.buf) {
                Ok(Some(frame)) => frame,
                Ok(None) => return Ok(None),
                Err(error) => return Err(close_code_for(&error)),
            };
            let message = match frame {
                ws::Frame::Text(bytes) => text(bytes.to_vec())?,
                ws::Frame::Binary(_) => Incoming::Binary,
                ws::Frame::Ping(bytes) => Incoming::Ping(bytes),
                ws::Frame::Pong(_) => Incoming::Pong,
                ws::Frame::Close(reason) => Incoming::Close(reason.map(|r| r.code)),
                ws::Frame::Continuation(item) => match self.continuation(item)? {
                    Some(message) => message,
                    None => continue,
                },
            };
            return Ok(Some(message));
        }
    }

    /// Adds a continuation frame; the whole message once its last frame came.
    fn continuation(&mut self, item: Item) -> Result<Option<Incoming>, CloseCode> {
        let (bytes, last) = match item {
            Item::FirstText(bytes) => {
                self.partial = Some(Partial { text: true, data: Vec::new() });
                (bytes, false)
            }
            Item::FirstBinary(bytes) => {
                self.partial = Some(Partial { text: false, data: Vec::new() });
                (bytes, false)
            }
            Item::Continue(bytes) => (bytes, false),
            Item::Last(bytes) => (bytes, true),
        };
        let Some(partial) = self.partial.as_mut() else {
            return Err(CloseCode::Protocol);
        };
        if partial.data.len() + bytes.len() > MAX_CLIENT_FRAME {
            self.partial = None;
            return Err(CloseCode::Size);
        }
        partial.data.extend_from_slice(&bytes);
        if !last {
            return Ok(None);
        }
        let Some(Partial { text: is_text, data }) = self.partial.take() else {
            return Err(CloseCode::Protocol);
        };
        if is_text { text(data).map(Some) } else { Ok(Some(Incoming::Binary)) }
    }

    /// Lets go of the read buffer once it holds nothing, so an idle socket keeps none.
    fn release(&mut self) {
        if self.buf.is_empty() && self.buf.capacity() > 0 {
            self.buf = BytesMut::new();
        }
    }
}

fn text(bytes: Vec<u8>) -> Result<Incoming, CloseCode> {
    String::from_utf8(bytes).map(Incoming::Text).map_err(|_| CloseCode::Invalid)
}

/// The opcode and payload length a frame's header announces, once its header is read.
fn frame_header(buf: &[u8]) -> Option<(u8, u64)> {
    let (&first, &second) = (buf.first()?, buf.get(1)?);
    let opcode = first & 0x0f;
    let length = match second & 0x7f {
        126 => u64::from(u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?])),
        127 => u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?),
        short => u64::from(short),
    };
    Some((opcode, length))
}

/// The close code for a frame the codec could not accept.
fn close_code_for(error: &ProtocolError) -> CloseCode {
    match error {
        ProtocolError::Overflow => CloseCode::Size,
        ProtocolError::Io(io) if io.kind() == io::ErrorKind::InvalidData => CloseCode::Invalid,
        _ => CloseCode::Protocol,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client frame: masked, as clients must send them.
    pub(super) fn framed(fin: bool, opcode: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
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

    const MASK: [u8; 4] = [1, 2, 3, 4];
    const TEXT: u8 = 1;
    const BINARY: u8 = 2;
    const CONTINUE: u8 = 0;

    fn reader_of(frames: &[Vec<u8>]) -> Reader {
        Reader::new(BytesMut::from(&frames.concat()[..]))
    }

    #[test]
    fn whole_frames_become_messages_and_the_buffer_is_released() {
        let mut reader = reader_of(&[
            framed(true, TEXT, br#"{"action":"ping"}"#, MASK),
            framed(true, BINARY, b"\x00\x01", MASK),
            framed(true, 9, b"hi", MASK),
            framed(true, 10, b"", MASK),
        ]);
        assert_eq!(reader.next_message(), Ok(Some(Incoming::Text(r#"{"action":"ping"}"#.into()))));
        assert_eq!(reader.next_message(), Ok(Some(Incoming::Binary)));
        assert_eq!(reader.next_message(), Ok(Some(Incoming::Ping(Bytes::from_static(b"hi")))));
        assert_eq!(reader.next_message(), Ok(Some(Incoming::Pong)));
        assert_eq!(reader.next_message(), Ok(None));
        reader.release();
        assert_eq!(reader.buf.capacity(), 0, "an idle socket keeps no read buffer");
    }

    #[test]
    fn a_frame_arriving_in_pieces_is_read_once_whole() {
        let frame = framed(true, TEXT, &[b'a'; 300], MASK);
        let mut reader = Reader::new(BytesMut::new());
        for piece in frame.chunks(7) {
            assert_eq!(reader.next_message(), Ok(None));
            reader.buf.extend_from_slice(piece);
        }
        assert_eq!(reader.next_message(), Ok(Some(Incoming::Text("a".repeat(300)))));
    }

    #[test]
    fn continuations_are_joined_into_one_message() {
        let mut reader = reader_of(&[
            framed(false, TEXT, b"{\"action\":", MASK),
            framed(true, 9, b"", MASK),
            framed(false, CONTINUE, b"\"pi", MASK),
            framed(true, CONTINUE, b"ng\"}", MASK),
        ]);
        // A control frame may come between the parts of a message (RFC 6455 §5.4).
        assert_eq!(reader.next_message(), Ok(Some(Incoming::Ping(Bytes::new()))));
        assert_eq!(reader.next_message(), Ok(Some(Incoming::Text(r#"{"action":"ping"}"#.into()))));
        let mut reader = reader_of(&[framed(false, BINARY, b"ab", MASK), framed(true, CONTINUE, b"cd", MASK)]);
        assert_eq!(reader.next_message(), Ok(Some(Incoming::Binary)));
    }

    #[test]
    fn continuations_past_the_limit_close_with_1009() {
        let part = vec![b'x'; MAX_CLIENT_FRAME / 2];
        let mut reader = reader_of(&[
            framed(false, TEXT, &part, MASK),
            framed(false, CONTINUE, &part, MASK),
            framed(true, CONTINUE, b"!", MASK),
        ]);
        assert_eq!(reader.next_message(), Err(CloseCode::Size));
        // Up to the limit is fine.
        let mut reader = reader_of(&[framed(false, TEXT, &part, MASK), framed(true, CONTINUE, &part, MASK)]);
        assert_eq!(reader.next_message(), Ok(Some(Incoming::Text("x".repeat(MAX_CLIENT_FRAME)))));
    }

    #[test]
    fn an_oversized_frame_closes_with_1009_on_its_header_alone() {
        let frame = framed(true, TEXT, &vec![b'x'; MAX_CLIENT_FRAME + 1], MASK);
        // Only the header and a little of the payload have arrived.
        let mut reader = Reader::new(BytesMut::from(&frame[..20]));
        assert_eq!(reader.next_message(), Err(CloseCode::Size));
        // A length near u64::MAX, with no payload at all.
        let mut huge = vec![0x81, 0x80 | 127];
        huge.extend_from_slice(&(u64::MAX >> 1).to_be_bytes());
        assert_eq!(Reader::new(BytesMut::from(&huge[..])).next_message(), Err(CloseCode::Size));
    }

    #[test]
    fn each_kind_of_bad_frame_has_its_close_code() {
        let close = |frames: &[Vec<u8>]| reader_of(frames).next_message();
        assert_eq!(close(&[framed(true, TEXT, &[b'{', 0xff, 0xfe, b'}'], MASK)]), Err(CloseCode::Invalid));
        assert_eq!(
            close(&[framed(false, TEXT, &[b'{', 0xc3], MASK), framed(true, CONTINUE, b"(}", MASK)]),
            Err(CloseCode::Invalid),
            "a message of continuations that is not UTF-8"
        );
        assert_eq!(close(&[framed(true, CONTINUE, b"tail", MASK)]), Err(CloseCode::Protocol), "never started");
        assert_eq!(close(&[framed(true, 3, b"", MASK)]), Err(CloseCode::Protocol), "a reserved opcode");
        assert_eq!(close(&[framed(true, 9, &[0; 126], MASK)]), Err(CloseCode::Protocol), "a long ping");
        let mut unmasked = framed(true, TEXT, b"hi", MASK);
        unmasked[1] &= 0x7f;
        assert_eq!(close(&[unmasked]), Err(CloseCode::Protocol), "an unmasked client frame");
        assert_eq!(close_code_for(&ProtocolError::Overflow), CloseCode::Size);
    }

    #[test]
    fn a_close_frame_carries_the_clients_code() {
        let mut payload = 4000u16.to_be_bytes().to_vec();
        payload.extend_from_slice(b"bye");
        assert_eq!(
            reader_of(&[framed(true, 8, &payload, MASK)]).next_message(),
            Ok(Some(Incoming::Close(Some(4000.into()))))
        );
        assert_eq!(reader_of(&[framed(true, 8, b"", MASK)]).next_message(), Ok(Some(Incoming::Close(None))));
    }
}

/// Fuzzing WebSocket frames (issue 12): the socket's frame reader with its limits, and the
/// action parsing `answer` and `chat_action` do, on arbitrary input, end in a message or an
/// error, never a panic.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::tests::framed;
    use super::*;

    /// Cases per property; three properties.
    const CASES: u32 = 2_000;

    /// What the socket does with one text frame, short of running it.
    fn parse_action(text: &str) -> Result<ClientAction, String> {
        ClientAction::parse(text).map_err(|e| e.to_string())
    }

    /// Reads every message in `bytes` as the socket does; stops at the first error.
    fn decode_all(bytes: &[u8]) {
        let mut reader = Reader::new(BytesMut::from(bytes));
        while let Ok(Some(_)) = reader.next_message() {}
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
