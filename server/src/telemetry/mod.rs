//! What browsers report about themselves (`routes`: page events and error reports). The
//! server's own logs are `observability` (set-up) and `request_log` (what a request's
//! span records), shared by every route.

pub mod routes;

use actix_web::web;

/// The calls under `/lust/api`, inside the envelope.
pub fn configure(scope: &mut web::ServiceConfig) {
    scope.route("/spm", web::get().to(routes::spm)).route("/webError", web::post().to(routes::web_error));
}
