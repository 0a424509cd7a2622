//! The API under `/lust/api`, inside the envelope middleware: each feature mounts its own
//! calls (`configure` of its folder), and anything unmatched answers `notFound` in an
//! envelope. What a feature serves outside the envelope (pages, callbacks, the socket) is
//! mounted by `startup` through the same features.

use actix_web::web;

use crate::api::ApiError;

pub fn configure(scope: &mut web::ServiceConfig) {
    crate::payments::routes::configure(scope);
    crate::content::configure(scope);
    crate::creation::configure(scope);
    crate::auth::configure(scope);
    crate::chat::configure(scope);
    crate::images::configure(scope);
    crate::voice::configure(scope);
    crate::telemetry::configure(scope);
    scope.default_service(web::to(unknown_endpoint));
}

async fn unknown_endpoint(req: actix_web::HttpRequest) -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!("no endpoint {} {}", req.method(), req.path())))
}
