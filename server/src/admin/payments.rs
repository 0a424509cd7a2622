//! The operator's payment calls under `/lust/admin` (plain JSON, token first): a user's
//! orders, refunding one, and ending a user's plans. Granting a plan is `setVip` (the
//! operator's grant, which the user's actor weighs against the plans in force).

use actix_web::{HttpRequest, HttpResponse, web};
use amora_domain::payment::{Order, OrderId};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::admin::{AdminError, authorised, find_user, internal};
use crate::state::AppState;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/orders", web::post().to(orders))
        .route("/refund", web::post().to(refund))
        .route("/endPlan", web::post().to(end_plan));
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserRequest {
    /// A `userNo` or an email address.
    pub user: String,
    pub limit: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OrderView {
    order_id: OrderId,
    product_id: String,
    route: &'static str,
    state: &'static str,
    amount: String,
    currency: String,
    provider_ref: Option<String>,
    subscription_id: Option<String>,
    created_at: i64,
    updated_at: i64,
}

impl From<Order> for OrderView {
    fn from(order: Order) -> Self {
        Self {
            product_id: order.product.to_string(),
            route: order.route.code(),
            state: order.state.code(),
            amount: order.amount.decimal(),
            currency: order.amount.currency.to_string(),
            provider_ref: order.provider_ref,
            subscription_id: order.subscription_id.map(|id| id.to_string()),
            created_at: order.created_at,
            updated_at: order.updated_at,
            order_id: order.order_id,
        }
    }
}

/// `POST /lust/admin/orders {user, limit?}` → the user's orders, newest first.
async fn orders(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<UserRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let request = body.into_inner();
    let user = find_user(&state, &request.user).await?;
    let limit = request.limit.unwrap_or(50).clamp(1, 500);
    let orders = state.node.billing.orders(&user.user_id, limit).await.map_err(internal)?;
    Ok(HttpResponse::Ok().json(json!({ "orders": orders.into_iter().map(OrderView::from).collect::<Vec<_>>() })))
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefundRequest {
    pub order_id: String,
}

/// `POST /lust/admin/refund {orderId}`: gives the money back at the processor and takes the
/// order's coins back (a compensating ledger row).
async fn refund(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<RefundRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let order_id = OrderId::parse(&body.into_inner().order_id).map_err(|e| AdminError::BadRequest(e.to_string()))?;
    let order = state
        .node
        .billing
        .order_by_id(&order_id)
        .await
        .map_err(internal)?
        .ok_or_else(|| AdminError::NotFound(format!("no order {order_id}")))?;
    if order.state != amora_domain::payment::OrderState::Paid {
        return Err(AdminError::Conflict(format!("order {order_id} is {}, not paid", order.state.code())));
    }
    tracing::info!(target: "admin", order = %order_id, route = order.route.code(), "admin refund");
    let refund_id = state.payments.refund(&order).await.map_err(|e| match e {
        crate::api::ApiError::NotFound(reason) => AdminError::NotFound(reason),
        crate::api::ApiError::Param(reason) => AdminError::Conflict(reason),
        other => internal(other),
    })?;
    Ok(HttpResponse::Ok().json(json!({ "orderId": order_id, "refundId": refund_id, "outcome": "refunded" })))
}

/// `POST /lust/admin/endPlan {user}`: ends the user's plans now (access stops at once).
async fn end_plan(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<UserRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let user = find_user(&state, &body.into_inner().user).await?;
    let ended = state.node.billing.end_plans(&user.user_id).await.map_err(internal)?;
    tracing::info!(target: "admin", user = %user.user_id, ended, "admin end-plan");
    Ok(HttpResponse::Ok().json(json!({ "ended": ended })))
}
