//! Payment processors' notifications and the buyer's way back from a processor's page,
//! outside the envelope (docs/api.md "Payments"): each notification is handed, exactly as
//! it arrived, to the gateway (its provider checks the signature, billing applies it) and
//! answered as its processor expects; 400 when it is not believed, 503 when we cannot act
//! now (the processor retries). Also the sandbox's own checkout pages, when it runs.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use amora_domain::payment::{OrderId, PaymentRoute};

use crate::payments::Callback;
use crate::payments::gateway::CallbackError;
use crate::payments::sandbox::{self, SandboxPages};
use crate::state::AppState;

/// Largest notification read: processors send small JSON or form bodies.
const MAX_NOTIFICATION_BYTES: usize = 64 * 1024;

pub fn configure(config: &mut web::ServiceConfig, sandbox_pages: &Option<web::Data<SandboxPages>>) {
    config
        .route("/lust/pay/notify/{route}", web::post().to(notify))
        .route("/lust/pay/notify/{route}", web::get().to(notify))
        .route("/lust/pay/return/{route}/{order_id}", web::get().to(returned))
        .route("/lust/pay/cancel/{route}/{order_id}", web::get().to(cancelled));
    if let Some(pages) = sandbox_pages {
        config.app_data(pages.clone()).configure(sandbox::configure);
    }
}

/// `/lust/pay/notify/{route}`: one processor notification.
async fn notify(
    req: HttpRequest,
    state: web::Data<AppState>,
    route: web::Path<String>,
    body: web::Bytes,
) -> HttpResponse {
    let Ok(route) = PaymentRoute::from_code(&route.into_inner()) else {
        return HttpResponse::NotFound().finish();
    };
    if body.len() > MAX_NOTIFICATION_BYTES {
        return HttpResponse::PayloadTooLarge().finish();
    }
    let callback = Callback {
        headers: req
            .headers()
            .iter()
            .filter_map(|(name, value)| value.to_str().ok().map(|v| (name.as_str().to_ascii_lowercase(), v.to_owned())))
            .collect(),
        query: req.query_string().to_owned(),
        body: body.to_vec(),
    };
    match state.payments.callback(route, callback).await {
        Ok(answer) => HttpResponse::build(actix_web::http::StatusCode::from_u16(answer.status).unwrap_or_default())
            .content_type(answer.content_type)
            .body(answer.body),
        Err(CallbackError::NoRoute) => HttpResponse::NotFound().finish(),
        Err(CallbackError::Refused(reason)) => {
            // Logged without the body: it may carry the buyer's details.
            tracing::warn!(route = route.code(), %reason, "a payment notification was refused");
            HttpResponse::BadRequest().content_type("text/plain; charset=utf-8").body("refused")
        }
        Err(CallbackError::Unavailable(reason)) => {
            tracing::error!(route = route.code(), %reason, "a payment notification could not be applied now");
            HttpResponse::ServiceUnavailable().content_type("text/plain; charset=utf-8").body("try again")
        }
    }
}

fn results_page(order_id: &str, cancelled: bool) -> HttpResponse {
    let query = if cancelled { "?cancelled=1" } else { "" };
    HttpResponse::Found().insert_header((header::LOCATION, format!("/paymentResults/{order_id}{query}"))).finish()
}

/// `/lust/pay/return/{route}/{orderId}`: the buyer is back; routes that act now do so.
async fn returned(req: HttpRequest, state: web::Data<AppState>, path: web::Path<(String, String)>) -> HttpResponse {
    let (route, order_id) = path.into_inner();
    let (Ok(route), Ok(order_id)) = (PaymentRoute::from_code(&route), OrderId::parse(&order_id)) else {
        return HttpResponse::Found().insert_header((header::LOCATION, "/")).finish();
    };
    state.payments.returned(route, &order_id, req.query_string()).await;
    results_page(order_id.as_str(), false)
}

/// `/lust/pay/cancel/{route}/{orderId}`: the buyer gave up at the processor.
async fn cancelled(path: web::Path<(String, String)>) -> HttpResponse {
    let (_, order_id) = path.into_inner();
    match OrderId::parse(&order_id) {
        Ok(order_id) => results_page(order_id.as_str(), true),
        Err(_) => HttpResponse::Found().insert_header((header::LOCATION, "/")).finish(),
    }
}
