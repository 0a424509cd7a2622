//! Bounds on how a client may send a request, around every route. actix-web bounds the
//! time to read a request head (`client_request_timeout`) and its size (431 past 128 KiB),
//! but not the body: a client sending one byte a second held a connection, and a worker's
//! attention, indefinitely. Here:
//! - headers larger than `http.max_header_bytes` in total are answered 431 at once;
//! - the body must arrive within `http.request_timeout_secs` of the head: reading it past
//!   that fails, the handler answers 408, and the connection is closed;
//! - a response sent before its request's body was read whole closes the connection, so a
//!   handler that ignores the body cannot leave a trickling client attached.
//!
//! WebSocket upgrades are left alone: their "body" is the socket, with its own liveness rules.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::ConnectionType;
use actix_web::http::header::{CONTENT_LENGTH, TRANSFER_ENCODING, UPGRADE};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpResponse, web};
use futures_util::StreamExt;

use crate::state::AppState;

/// A request body as actix-http takes it (its `BoxedPayloadStream`).
type BoxedPayloadStream =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = Result<actix_web::web::Bytes, PayloadError>>>>;

/// The message a body read past its deadline fails with; `api::payload` answers 408 on it.
pub const BODY_DEADLINE_PASSED: &str = "the request body did not arrive in time";

pub async fn bound_request(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let http = &state.settings.http;
    if headers_too_large(req.headers(), http.max_header_bytes) {
        let response = HttpResponse::build(actix_web::http::StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE)
            .force_close()
            .body("request headers too large");
        return Ok(req.into_response(response));
    }
    if req.headers().contains_key(UPGRADE) || !has_body(&req) {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let finished = Rc::new(Cell::new(false));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(http.request_timeout_secs);
    let body = req.take_payload();
    req.set_payload(Payload::from(with_deadline(body, deadline, finished.clone())));

    let mut response = next.call(req).await?.map_into_boxed_body();
    if !finished.get() {
        // Whatever of the body is still coming would otherwise keep the connection busy.
        response.response_mut().head_mut().set_connection_type(ConnectionType::Close);
    }
    Ok(response)
}

/// Whether a request's headers take more than `max` bytes in total (431); the socket's
/// upgrade, outside these middlewares, asks too.
pub fn headers_too_large(headers: &actix_web::http::header::HeaderMap, max: usize) -> bool {
    headers.iter().map(|(name, value)| name.as_str().len() + value.len() + 4).sum::<usize>() > max
}

/// A request announces a body by its length or by chunked transfer encoding.
fn has_body(req: &ServiceRequest) -> bool {
    let length = req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    length.is_some_and(|n| n > 0) || req.headers().contains_key(TRANSFER_ENCODING)
}

/// The body as it arrives, ending in an error once `deadline` passes; `finished` turns
/// true when the body was read to its end.
fn with_deadline(body: Payload, deadline: tokio::time::Instant, finished: Rc<Cell<bool>>) -> BoxedPayloadStream {
    let stream = futures_util::stream::unfold(Some(body), move |state| {
        let finished = finished.clone();
        async move {
            let mut body = state?;
            match tokio::time::timeout_at(deadline, body.next()).await {
                Ok(Some(Ok(chunk))) => Some((Ok(chunk), Some(body))),
                Ok(Some(Err(error))) => Some((Err(error), None)),
                Ok(None) => {
                    finished.set(true);
                    None
                }
                Err(_) => {
                    let timed_out = std::io::Error::new(std::io::ErrorKind::TimedOut, BODY_DEADLINE_PASSED);
                    Some((Err(PayloadError::Io(timed_out)), None))
                }
            }
        }
    });
    Box::pin(stream)
}
