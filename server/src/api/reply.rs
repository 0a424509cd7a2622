//! A successful answer: `{"code":200,"msg":"success","success":true,"data":...}` in
//! plaintext; the envelope middleware encrypts it on the way out.

use actix_web::body::BoxBody;
use actix_web::http::header::ContentType;
use actix_web::{HttpRequest, HttpResponse, Responder};
use serde::Serialize;

use super::ApiCode;

pub struct ApiReply<T>(pub T);

/// The success answer, serialised straight from the handler's value. Going through a
/// `serde_json::Value` first built a map and a `String` per field of every item (30 cards:
/// hundreds of allocations) only to write them out again. The fields are in the order the
/// `Value` map wrote them (sorted), so the outer bytes are unchanged; inside `data` the
/// fields now come in their declaration order, which JSON readers do not see.
#[derive(Serialize, ts_rs::TS)]
#[ts(rename = "ApiEnvelope")]
pub(crate) struct Success<'a, T> {
    code: u32,
    data: &'a T,
    msg: &'static str,
    success: bool,
}

impl<T: Serialize> Responder for ApiReply<T> {
    type Body = BoxBody;

    fn respond_to(self, _req: &HttpRequest) -> HttpResponse<Self::Body> {
        let reply =
            Success { code: ApiCode::Success.value(), data: &self.0, msg: ApiCode::Success.name(), success: true };
        match serde_json::to_vec(&reply) {
            Ok(body) => HttpResponse::Ok().content_type(ContentType::json()).body(body),
            Err(error) => actix_web::ResponseError::error_response(&super::ApiError::Internal(format!(
                "cannot serialise reply: {error}"
            ))),
        }
    }
}
