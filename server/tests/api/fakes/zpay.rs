//! zPay on loopback, by its merchant protocol: `submit.php` (page form, GET or POST) and
//! `mapi.php` (API, form POST) check the MD5 signature and merchant id and answer as zPay
//! does (`{"code":"error","msg":…}` when refused); `api.php?act=order` and `act=refund`;
//! and signed notifications to `notify_url`, resent until the merchant answers `success`.
//! The signature is computed here independently of the provider's.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use amora_server::payments::zpay::ZPaySettings;
use md5::{Digest, Md5};
use serde_json::json;

use super::loopback;

pub const PID: &str = "20240101000001";
pub const KEY: &str = "zpay-merchant-key-for-tests-0001";
/// Resends after the first notification; zPay's own schedule is 15 s, 15 s, 30 s, 3 min, …
/// over a day, compressed here.
pub const MAX_ATTEMPTS: usize = 8;

#[derive(Debug, Clone)]
pub struct Order {
    pub trade_no: String,
    pub out_trade_no: String,
    pub pay_type: String,
    pub name: String,
    pub money: String,
    pub notify_url: String,
    pub param: String,
    /// `submit.php` or `mapi.php`.
    pub via: String,
    pub client_ip: Option<String>,
    pub paid: bool,
}

struct State {
    orders: Mutex<HashMap<String, Order>>,
    refunds: Mutex<Vec<(String, String)>>,
    next: AtomicU64,
    base: String,
}

pub struct ZPayFake {
    pub base: String,
    state: web::Data<State>,
    http: reqwest::Client,
}

/// What a notification round came to.
#[derive(Debug)]
pub struct Delivery {
    pub attempts: usize,
    pub last_status: u16,
    pub last_body: String,
}

/// zPay's signature: non-empty parameters but `sign`/`sign_type`, sorted by name, joined
/// `k=v&…`, the key appended, MD5 in lower-case hex.
pub fn sign(params: &BTreeMap<String, String>, key: &str) -> String {
    let mut text = String::new();
    for (name, value) in params {
        if value.is_empty() || name == "sign" || name == "sign_type" {
            continue;
        }
        if !text.is_empty() {
            text.push('&');
        }
        text.push_str(&format!("{name}={value}"));
    }
    text.push_str(key);
    Md5::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

fn refused(message: &str) -> HttpResponse {
    HttpResponse::Ok().json(json!({"code": "error", "msg": message}))
}

fn params_of(raw: &[u8]) -> BTreeMap<String, String> {
    url::form_urlencoded::parse(raw).map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
}

/// The checks zPay makes on a submission: merchant, signature, the required fields, and
/// money with at most two decimals.
fn check_submission(params: &BTreeMap<String, String>, required: &[&str]) -> Result<(), &'static str> {
    if params.get("pid").map(String::as_str) != Some(PID) {
        return Err("商户不存在");
    }
    if params.get("sign").map(String::as_str) != Some(sign(params, KEY).as_str()) {
        return Err("签名校验失败");
    }
    if required.iter().any(|field| params.get(*field).is_none_or(|v| v.is_empty())) {
        return Err("参数不完整");
    }
    let money = &params["money"];
    let (whole, cents) = money.split_once('.').unwrap_or((money, ""));
    if whole.is_empty() || cents.len() > 2 || !format!("{whole}{cents}").bytes().all(|b| b.is_ascii_digit()) {
        return Err("金额不合法");
    }
    Ok(())
}

impl ZPayFake {
    pub async fn start() -> Self {
        let (listener, base) = loopback();
        let state = web::Data::new(State {
            orders: Mutex::new(HashMap::new()),
            refunds: Mutex::new(Vec::new()),
            next: AtomicU64::new(2024_0101_0000_0001),
            base: base.clone(),
        });
        let data = state.clone();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .route("/submit.php", web::get().to(submit))
                .route("/submit.php", web::post().to(submit))
                .route("/mapi.php", web::post().to(mapi))
                .route("/api.php", web::get().to(api))
                .route("/api.php", web::post().to(api))
        })
        .workers(1)
        .listen(listener)
        .unwrap();
        actix_rt::spawn(server.run());
        Self { base, state, http: reqwest::Client::new() }
    }

    pub fn settings(&self) -> ZPaySettings {
        ZPaySettings {
            pid: PID.into(),
            key: KEY.into(),
            base_url: self.base.clone(),
            pay_type: "alipay".into(),
            channel_id: String::new(),
            currency: "CNY".into(),
        }
    }

    pub fn order(&self, out_trade_no: &str) -> Order {
        self.state.orders.lock().unwrap().get(out_trade_no).cloned().expect("no such zPay order")
    }

    pub fn refunds(&self) -> Vec<(String, String)> {
        self.state.refunds.lock().unwrap().clone()
    }

    /// A notification's parameters for the order, signed with `key`.
    pub fn notification(&self, out_trade_no: &str, trade_status: &str, key: &str) -> BTreeMap<String, String> {
        let order = self.order(out_trade_no);
        let mut params = BTreeMap::from([
            ("pid".to_owned(), PID.to_owned()),
            ("trade_no".to_owned(), order.trade_no),
            ("out_trade_no".to_owned(), order.out_trade_no),
            ("type".to_owned(), order.pay_type),
            ("name".to_owned(), order.name),
            ("money".to_owned(), order.money),
            ("trade_status".to_owned(), trade_status.to_owned()),
            ("param".to_owned(), order.param),
        ]);
        let signature = sign(&params, key);
        params.insert("sign".into(), signature);
        params.insert("sign_type".into(), "MD5".into());
        params
    }

    /// The buyer paid: zPay notifies (GET, as it does) and resends until it hears `success`.
    pub async fn pay(&self, out_trade_no: &str) -> Delivery {
        self.state.orders.lock().unwrap().get_mut(out_trade_no).expect("no such zPay order").paid = true;
        let params = self.notification(out_trade_no, "TRADE_SUCCESS", KEY);
        let url = self.order(out_trade_no).notify_url;
        let mut delivery = Delivery { attempts: 0, last_status: 0, last_body: String::new() };
        while delivery.attempts < MAX_ATTEMPTS {
            delivery.attempts += 1;
            let (status, body) = self.get(&url, &params).await;
            delivery.last_status = status;
            delivery.last_body = body;
            if delivery.last_body == "success" {
                break;
            }
            actix_rt::time::sleep(Duration::from_millis(20)).await;
        }
        delivery
    }

    /// Sends parameters to `url` as a GET query, once.
    pub async fn get(&self, url: &str, params: &BTreeMap<String, String>) -> (u16, String) {
        let query: String = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(params.iter()).finish();
        let response = self.http.get(format!("{url}?{query}")).send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    /// Sends parameters to `url` as a POSTed form, once.
    pub async fn post(&self, url: &str, params: &BTreeMap<String, String>) -> (u16, String) {
        let response = self.http.post(url).form(params).send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }
}

fn record(state: &State, params: &BTreeMap<String, String>, via: &str) -> Order {
    let trade_no = state.next.fetch_add(1, Ordering::SeqCst).to_string();
    let order = Order {
        trade_no,
        out_trade_no: params["out_trade_no"].clone(),
        pay_type: params["type"].clone(),
        name: params["name"].clone(),
        money: params["money"].clone(),
        notify_url: params["notify_url"].clone(),
        param: params.get("param").cloned().unwrap_or_default(),
        via: via.to_owned(),
        client_ip: params.get("clientip").cloned(),
        paid: false,
    };
    state.orders.lock().unwrap().insert(order.out_trade_no.clone(), order.clone());
    order
}

async fn submit(state: web::Data<State>, request: HttpRequest, body: web::Bytes) -> HttpResponse {
    let params = if request.method() == actix_web::http::Method::GET {
        params_of(request.query_string().as_bytes())
    } else {
        params_of(&body)
    };
    if let Err(message) = check_submission(&params, &["type", "out_trade_no", "notify_url", "name", "money"]) {
        return refused(message);
    }
    let order = record(&state, &params, "submit.php");
    // The cashier page.
    HttpResponse::Found().insert_header(("Location", format!("{}/cashier/{}", state.base, order.trade_no))).finish()
}

async fn mapi(state: web::Data<State>, body: web::Bytes) -> HttpResponse {
    let params = params_of(&body);
    if let Err(message) =
        check_submission(&params, &["type", "out_trade_no", "notify_url", "name", "money", "clientip"])
    {
        return refused(message);
    }
    let order = record(&state, &params, "mapi.php");
    HttpResponse::Ok().json(json!({
        "code": 1,
        "msg": "success",
        "trade_no": order.trade_no,
        "O_id": "123456",
        "payurl": format!("{}/cashier/{}", state.base, order.trade_no),
        "qrcode": format!("https://qr.alipay.com/bax{}", order.trade_no),
        "img": format!("{}/qrcode/{}.jpg", state.base, order.trade_no),
    }))
}

async fn api(state: web::Data<State>, request: HttpRequest, body: web::Bytes) -> HttpResponse {
    let query = params_of(request.query_string().as_bytes());
    match query.get("act").map(String::as_str) {
        Some("order") => {
            if query.get("pid").map(String::as_str) != Some(PID) || query.get("key").map(String::as_str) != Some(KEY) {
                return refused("商户密钥错误");
            }
            let orders = state.orders.lock().unwrap();
            let found = orders.values().find(|order| {
                query.get("trade_no") == Some(&order.trade_no) || query.get("out_trade_no") == Some(&order.out_trade_no)
            });
            match found {
                Some(order) => HttpResponse::Ok().json(json!({
                    "code": 1,
                    "msg": "查询订单号成功！",
                    "trade_no": order.trade_no,
                    "out_trade_no": order.out_trade_no,
                    "type": order.pay_type,
                    "pid": PID,
                    "name": order.name,
                    "money": order.money,
                    "status": i32::from(order.paid),
                    "param": order.param,
                })),
                None => refused("订单不存在"),
            }
        }
        Some("refund") => {
            let params = params_of(&body);
            if params.get("pid").map(String::as_str) != Some(PID)
                || params.get("sign").map(String::as_str) != Some(sign(&params, KEY).as_str())
            {
                return refused("签名校验失败");
            }
            let (Some(out_trade_no), Some(money)) = (params.get("out_trade_no"), params.get("money")) else {
                return refused("参数不完整");
            };
            let paid = state.orders.lock().unwrap().get(out_trade_no).is_some_and(|order| order.paid);
            if !paid {
                return refused("订单未支付");
            }
            state.refunds.lock().unwrap().push((out_trade_no.clone(), money.clone()));
            HttpResponse::Ok().json(json!({"code": 1, "msg": "提交退款订单成功！"}))
        }
        _ => refused("act 不存在"),
    }
}
