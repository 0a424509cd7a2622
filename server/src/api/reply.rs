//! A successful answer: `{"code":200,"msg":"success","success":true,"data":...}` in
//! plaintext; the envelope middleware encrypts it on the way out.

use actix_web::body::BoxBody;
use actix_web::{HttpRequest, HttpResponse, Responder};
use serde::Serialize;
use serde_json::json;

use super::ApiCode;

pub struct ApiReply<T>(pub T);

impl<T: Serialize> Responder for ApiReply<T> {
    type Body = BoxBody;

    fn respond_to(self, _req: &HttpRequest) -> HttpResponse<Self::Body> {
        match serde_json::to_value(&self.0) {
            Ok(data) => HttpResponse::Ok().json(json!({
                "code": ApiCode::Success.value(),
                "msg": ApiCode::Success.name(),
                "success": true,
                "data": data,
            })),
            Err(error) => actix_web::ResponseError::error_response(&super::ApiError::Internal(format!(
                "cannot serialise reply: {error}"
            ))),
        }
    }
}
