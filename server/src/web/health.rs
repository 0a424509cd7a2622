//! Liveness and readiness probes for load balancers and orchestrators.

use actix_web::{HttpResponse, web};

use crate::state::AppState;

/// `/healthz`: the process is up and serving.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// `/readyz`: 503 until the store and the event bus answer, so traffic is only routed to a node that can serve it.
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    if !state.node.bus.is_healthy() {
        return HttpResponse::ServiceUnavailable().content_type("text/plain").body("event bus (Redis) unavailable");
    }
    match state.store.health.ping().await {
        Ok(()) => HttpResponse::Ok().content_type("text/plain").body("ready"),
        Err(error) => {
            tracing::warn!(%error, "not ready: store");
            HttpResponse::ServiceUnavailable().content_type("text/plain").body("store unavailable")
        }
    }
}
