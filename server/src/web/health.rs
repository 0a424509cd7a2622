//! Liveness and readiness probes for load balancers and orchestrators.

use std::time::Duration;

use actix_web::{HttpResponse, web};

use crate::state::AppState;

/// How long `/readyz` waits for the store's answer. The bus's PING is asked at the same
/// time and waits less (`amora_actors::bus::PING_TIMEOUT`), so the probe answers within
/// this: well inside the 1–5 s a load balancer gives a probe.
pub const STORE_CHECK_TIMEOUT: Duration = Duration::from_millis(500);

/// `/healthz`: the process is up and serving.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// `/readyz`: 200 `ready` when the event bus answers a PING and the store a cheap query,
/// each asked now with a short timeout; otherwise 503 naming what failed, so traffic is
/// only routed to a node that can serve it. Causes go to the log, not to the prober.
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    let (bus, store) = futures_util::future::join(
        state.node.bus.check(),
        tokio::time::timeout(STORE_CHECK_TIMEOUT, state.store.health.ping()),
    )
    .await;
    let mut failed = Vec::new();
    if let Err(error) = bus {
        tracing::warn!(%error, "not ready: event bus");
        failed.push("event bus (Redis) unavailable");
    }
    match store {
        Ok(Ok(())) => {}
        Ok(Err(error)) => {
            tracing::warn!(%error, "not ready: store");
            failed.push("store unavailable");
        }
        Err(_) => {
            tracing::warn!(timeout_ms = STORE_CHECK_TIMEOUT.as_millis() as u64, "not ready: store did not answer");
            failed.push("store unavailable");
        }
    }
    if failed.is_empty() {
        HttpResponse::Ok().content_type("text/plain").body("ready")
    } else {
        HttpResponse::ServiceUnavailable().content_type("text/plain").body(failed.join("; "))
    }
}
