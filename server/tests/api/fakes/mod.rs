//! Loopback stand-ins for the services that cannot run here, each an in-process HTTP server
//! on 127.0.0.1:0 following its published protocol: payment processors (signatures
//! included: PayPal, NOWPayments, zPay, the hosted adapter's bridge), OpenAI-compatible chat
//! models (`chat_api`, `held_model`) and speech services; and `CallbackReceiver`, the
//! stand-in for the server's callback route: it hands what arrives, untouched, to a real
//! provider's `verify_callback` and answers what the provider says.

pub mod chat_api;
pub mod held_model;
pub mod hosted;
pub mod nowpayments;
pub mod paypal;
pub mod speech;
pub mod transcription;
pub mod zpay;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use amora_domain::payment::{Currency, Money, OrderId, PlanPeriod, ProductId, SubscriptionId};
use amora_server::payments::{Callback, CheckoutRequest, PaymentEvent, PaymentProvider, SubscriptionCheckout};

/// A free loopback port to serve on, and its base URL.
pub fn loopback() -> (std::net::TcpListener, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, format!("http://127.0.0.1:{port}"))
}

pub fn random_letters(len: usize) -> String {
    use rand::Rng;
    rand::thread_rng().sample_iter(&rand::distributions::Alphanumeric).take(len).map(char::from).collect()
}

pub fn new_order_id() -> OrderId {
    OrderId::from_random(&random_letters(24)).unwrap()
}

pub fn new_subscription_id() -> SubscriptionId {
    SubscriptionId::from_random(&random_letters(24)).unwrap()
}

pub fn money(minor: u64, currency: &str) -> Money {
    Money::new(minor, Currency::parse(currency).unwrap())
}

/// A checkout for a coin package (or, with `plan`, a renewing plan) of `amount`.
pub fn checkout_request(notify_url: &str, amount: Money, plan: Option<PlanPeriod>) -> CheckoutRequest {
    let order_id = new_order_id();
    CheckoutRequest {
        product: plan.map_or(ProductId::Coins(1), ProductId::Plan),
        description: "Amora – test purchase".into(),
        amount,
        return_url: format!("http://amora.test/paymentResults/{order_id}"),
        cancel_url: "http://amora.test/pricing".into(),
        notify_url: notify_url.to_owned(),
        customer_email: None,
        client_ip: None,
        subscription: plan.map(|period| SubscriptionCheckout { subscription_id: new_subscription_id(), period }),
        order_id,
    }
}

/// The server's callback route in miniature, on loopback.
pub struct CallbackReceiver {
    /// Where processors send notifications (any path under it is accepted).
    pub url: String,
    state: web::Data<ReceiverState>,
}

struct ReceiverState {
    provider: Arc<dyn PaymentProvider>,
    events: Mutex<Vec<PaymentEvent>>,
    refusals: Mutex<Vec<String>>,
    fail_next: AtomicUsize,
    deliveries: AtomicUsize,
}

impl CallbackReceiver {
    pub async fn start(provider: Arc<dyn PaymentProvider>) -> Self {
        let state = web::Data::new(ReceiverState {
            provider,
            events: Mutex::new(Vec::new()),
            refusals: Mutex::new(Vec::new()),
            fail_next: AtomicUsize::new(0),
            deliveries: AtomicUsize::new(0),
        });
        let data = state.clone();
        let (listener, base) = loopback();
        let server = HttpServer::new(move || App::new().app_data(data.clone()).default_service(web::to(receive)))
            .workers(1)
            .listen(listener)
            .unwrap();
        actix_rt::spawn(server.run());
        Self { url: format!("{base}/notify"), state }
    }

    /// The events of every verified notification so far, in order.
    pub fn events(&self) -> Vec<PaymentEvent> {
        self.state.events.lock().unwrap().clone()
    }

    /// Why notifications were refused, in order.
    pub fn refusals(&self) -> Vec<String> {
        self.state.refusals.lock().unwrap().clone()
    }

    /// Notifications that reached the receiver at all.
    pub fn deliveries(&self) -> usize {
        self.state.deliveries.load(Ordering::SeqCst)
    }

    /// The next `count` deliveries are answered 500 unread, as a server that is down.
    pub fn fail_next(&self, count: usize) {
        self.state.fail_next.store(count, Ordering::SeqCst);
    }
}

async fn receive(state: web::Data<ReceiverState>, request: HttpRequest, body: web::Bytes) -> HttpResponse {
    state.deliveries.fetch_add(1, Ordering::SeqCst);
    if state.fail_next.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok() {
        return HttpResponse::InternalServerError().body("down");
    }
    let callback = Callback {
        headers: request
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str().to_ascii_lowercase(), value.to_str().unwrap_or("").to_owned()))
            .collect(),
        query: request.query_string().to_owned(),
        body: body.to_vec(),
    };
    match state.provider.verify_callback(&callback).await {
        Ok(verified) => {
            state.events.lock().unwrap().extend(verified.events);
            HttpResponse::build(actix_web::http::StatusCode::from_u16(verified.answer.status).unwrap())
                .content_type(verified.answer.content_type)
                .body(verified.answer.body)
        }
        Err(error) => {
            state.refusals.lock().unwrap().push(error.to_string());
            HttpResponse::BadRequest().body("refused")
        }
    }
}
