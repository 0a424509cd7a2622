//! Buying (docs/api.md "Payments"), inside the envelope: the price list (`plans`), an
//! order per route's endpoint, the member's plans and their cancellation, and the state of
//! a payment for the results page. Each handler parses
//! its payload and hands it to the payment gateway and the node's billing.

use actix_web::{HttpRequest, web};
use amora_domain::payment::{
    Money, Order, OrderId, OrderState, PaymentRoute, ProductId, Subscription, SubscriptionId, SubscriptionState,
};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::plans::{self, ENDPOINTS};
use crate::api::{ApiReply, ApiResult, Payload};
use crate::auth::session::SignedIn;
use crate::state::AppState;

pub fn configure(scope: &mut web::ServiceConfig) {
    for (route, endpoint) in ENDPOINTS {
        scope.route(
            &format!("/user/v1/pay/{endpoint}"),
            web::post().to(
                move |req: HttpRequest,
                      state: web::Data<AppState>,
                      signed_in: SignedIn,
                      payload: Payload<CreateOrderRequest>| {
                    create_order(req, state, signed_in, payload, route)
                },
            ),
        );
    }
    scope
        .route("/user/v1/getVipData", web::post().to(plans::get_vip_data))
        .route("/user/v1/pay/unSubscription", web::post().to(un_subscription))
        .route("/user/v1/pay/getUserSubscriptionList", web::get().to(get_user_subscription_list))
        .route("/user/v1/payment/getUserLastFlowId", web::post().to(get_user_last_flow_id))
        .route("/user/v1/payment/getUserOrderList", web::post().to(get_user_order_list));
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CreateOrderRequest {
    product_id: String,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "CheckoutOrder")]
pub struct CreatedOrder {
    #[ts(type = "string")]
    order_id: OrderId,
    /// Where the browser goes to pay.
    approve_url: String,
    /// What a wallet QR code shows (zPay), else null.
    qr_payload: Option<String>,
}

/// `pay/<route>CreateOrder {productId}` → `{orderId, approveUrl, qrPayload}`.
async fn create_order(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<CreateOrderRequest>,
    route: PaymentRoute,
) -> ApiResult<CreatedOrder> {
    let product = ProductId::parse(&payload.into_inner().product_id)?;
    let client_ip = Some(state.limits.address(&req).to_string());
    let opened = state.payments.open_checkout(&signed_in.user, product, route, client_ip).await?;
    Ok(ApiReply(CreatedOrder {
        order_id: opened.order_id,
        approve_url: opened.approve_url,
        qr_payload: opened.qr_payload,
    }))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionRequest {
    subscription_id: String,
}

/// `pay/unSubscription {subscriptionId}` → `true`: renewal stops; access stays until the end.
async fn un_subscription(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<SubscriptionRequest>,
) -> ApiResult<bool> {
    let id = SubscriptionId::parse(&payload.into_inner().subscription_id)?;
    state.payments.unsubscribe(&signed_in.user.user_id, &id).await?;
    Ok(ApiReply(true))
}

/// A plan as the subscription screen shows it.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Subscription")]
pub struct SubscriptionView {
    #[ts(type = "string")]
    subscription_id: SubscriptionId,
    #[ts(type = "PlanId")]
    product_id: ProductId,
    route: PaymentRoute,
    state: SubscriptionState,
    /// Seconds since the epoch.
    #[ts(type = "number")]
    started_at: i64,
    /// Seconds since the epoch: access and coins paid for last until then.
    #[ts(type = "number")]
    current_period_end: i64,
    /// It renews at `currentPeriodEnd` (else it ends then).
    renews: bool,
}

impl From<Subscription> for SubscriptionView {
    fn from(subscription: Subscription) -> Self {
        Self {
            renews: subscription.state == SubscriptionState::Active,
            subscription_id: subscription.subscription_id,
            product_id: ProductId::Plan(subscription.period),
            route: subscription.route,
            state: subscription.state,
            started_at: subscription.started_at,
            current_period_end: subscription.current_period_end,
        }
    }
}

/// `pay/getUserSubscriptionList` → `Subscription[]`, newest first (plans never paid left out).
async fn get_user_subscription_list(
    state: web::Data<AppState>,
    signed_in: SignedIn,
) -> ApiResult<Vec<SubscriptionView>> {
    let subscriptions = state.node.billing.subscriptions(&signed_in.user.user_id).await?;
    Ok(ApiReply(subscriptions.into_iter().filter(|s| s.started_at > 0).map(SubscriptionView::from).collect()))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct LastFlowRequest {
    order_id: Option<String>,
}

/// A payment as the results page shows it.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Payment")]
pub struct PaymentView {
    #[ts(type = "string")]
    flow_id: OrderId,
    product_id: ProductId,
    route: PaymentRoute,
    #[ts(as = "amora_actors::wire::events::PaymentStatus")]
    status: OrderState,
    /// Decimal string, e.g. "12.99".
    amount: String,
    currency: String,
    #[ts(type = "number")]
    created_at: i64,
    #[ts(type = "number")]
    updated_at: i64,
    /// No processor news is awaited: the page stops polling.
    #[serde(rename = "final")]
    is_final: bool,
}

impl From<Order> for PaymentView {
    fn from(order: Order) -> Self {
        Self {
            flow_id: order.order_id,
            product_id: order.product,
            route: order.route,
            status: order.state,
            amount: order.amount.decimal(),
            currency: order.amount.currency.to_string(),
            created_at: order.created_at,
            updated_at: order.updated_at,
            is_final: order.state.is_final(),
        }
    }
}

/// `payment/getUserLastFlowId {orderId?}` → `Payment | null`: the newest order, or the one named.
async fn get_user_last_flow_id(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<LastFlowRequest>,
) -> ApiResult<Option<PaymentView>> {
    let order_id = payload.into_inner().order_id.as_deref().map(OrderId::parse).transpose()?;
    let order = state.node.billing.payment(&signed_in.user.user_id, order_id.as_ref()).await?;
    Ok(ApiReply(order.map(PaymentView::from)))
}

/// How many orders the order history lists: the newest ones.
pub const ORDER_HISTORY_LIMIT: u32 = 100;

/// An order as the order history shows it: the payment, and what refunds and chargebacks
/// gave back of it (an order stays `paid` after a partial refund).
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "OrderEntry")]
pub struct OrderEntryView {
    #[serde(flatten)]
    payment: PaymentView,
    /// Money given back so far, a decimal string in the order's currency; "0.00" when none.
    refunded: String,
}

/// `payment/getUserOrderList {}` → `OrderEntry[]`: the user's orders, newest first, at most
/// [`ORDER_HISTORY_LIMIT`] (issue 30: the app had no order history).
async fn get_user_order_list(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    _empty: Payload<serde_json::Value>,
) -> ApiResult<Vec<OrderEntryView>> {
    let history = state.node.billing.order_history(&signed_in.user.user_id, ORDER_HISTORY_LIMIT).await?;
    let entries = history
        .into_iter()
        .map(|(order, refunded_minor)| {
            let refunded = Money::new(refunded_minor.max(0) as u64, order.amount.currency.clone()).decimal();
            OrderEntryView { payment: PaymentView::from(order), refunded }
        })
        .collect();
    Ok(ApiReply(entries))
}
