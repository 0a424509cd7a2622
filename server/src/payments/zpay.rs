//! zPay (z-pay.cn, Alipay and WeChat Pay wallets) by its published merchant protocol, which
//! is the "epay" (易支付) family's:
//!
//! - **Signature** (签名算法): take every parameter sent or received whose value is not
//!   empty, leave out `sign` and `sign_type`, sort by name in ASCII order, join as
//!   `k1=v1&k2=v2…`, append the merchant key directly (no separator), MD5, lower-case hex.
//!   The parameters arrive decoded (form or query), and the signature is over the decoded
//!   values. New parameters may appear and are signed like the others ("接口可能增加字段，
//!   验证签名时必须支持增加的扩展字段"), so a notification is checked over everything it
//!   carries, not a fixed list.
//! - **Order submission**: `POST {base}/mapi.php` (form) with `pid, type, out_trade_no,
//!   notify_url, name, money, clientip[, device, cid, param], sign, sign_type=MD5` answers
//!   JSON `{code: 1, trade_no, O_id, payurl | qrcode, img}` or `{code: "error", msg}`; the
//!   QR code shows `qrcode` (the wallet's payment link). Without the buyer's address
//!   (`clientip` is required there) the signed page form `{base}/submit.php?…` is the
//!   checkout, and its URL is what the QR code shows.
//! - **Asynchronous notification** (异步通知): GET to `notify_url` (a POSTed form is read
//!   the same way) with `pid, trade_no, out_trade_no, type, name, money, trade_status,
//!   param, sign, sign_type`; only `trade_status=TRADE_SUCCESS` is a payment. It must be
//!   answered with the seven characters `success`; anything else and zPay resends it for
//!   about a day, so the same notification can arrive many times.
//! - **Query and refund**: `GET {base}/api.php?act=order&pid&key&trade_no` (the key in the
//!   query, as their protocol has it) and `POST {base}/api.php?act=refund` (form, signed)
//!   with `pid, type, out_trade_no, money`.
//!
//! Where this was read: zPay's developer documentation (https://z-pay.cn/doc.html, the same
//! text served from zpayz.cn and mirrored by 8-pay.cn/doc), and zPay's PHP demo SDK
//! (`epay/config.php` `get_sign`, `notify.php`, `api.php`, as distributed with their test
//! merchant `20220726190052` pointing at https://z-pay.cn/). One discrepancy: the worked
//! example of the documentation puts `sign_type=MD5` into the signed string, while its own
//! rule and the SDK that merchants run (`get_sign` skips `sign` and `sign_type`) leave it
//! out; the SDK is followed here. The example's signature (`202cb962…`) is the MD5 of "123",
//! a placeholder, so it cannot settle the question; the vectors in the tests below are our
//! own, computed outside Rust.
//!
//! `money` is in yuan with at most two decimals, so orders on this route must be priced in
//! `currency` (CNY unless configured otherwise); others are refused rather than converted.
//! Plans are paid one period at a time (nothing renews at zPay).

use std::collections::BTreeMap;

use amora_domain::payment::{Currency, Money, OrderId, PaymentRoute};
use async_trait::async_trait;
use serde::Deserialize;

use super::signing::{md5_hex, same_hex};
use super::{
    Callback, CallbackAnswer, Checkout, CheckoutRequest, OrderRef, PaymentEvent, PaymentProvider, ProviderError,
    VerifiedCallback, processor_http,
};

/// What zPay's notifications must be answered with once handled.
pub const ACKNOWLEDGEMENT: &str = "success";
/// The one `trade_status` that means the money arrived.
const TRADE_SUCCESS: &str = "TRADE_SUCCESS";

/// `[payments.zpay]`: empty `pid` turns the route off.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZPaySettings {
    /// Merchant id (商户ID, PID).
    pub pid: String,
    /// Merchant key (商户密钥) the MD5 signatures are made with.
    pub key: String,
    /// The gateway, `https://zpayz.cn`.
    pub base_url: String,
    /// The wallet: `alipay` or `wxpay`.
    pub pay_type: String,
    /// A payment channel id (`cid`); empty lets zPay choose.
    pub channel_id: String,
    /// The currency `money` is in; orders priced otherwise are refused.
    pub currency: String,
}

impl std::fmt::Debug for ZPaySettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZPaySettings")
            .field("pid", &self.pid)
            .field("key", &super::signing::redacted(&self.key))
            .field("base_url", &self.base_url)
            .field("pay_type", &self.pay_type)
            .field("channel_id", &self.channel_id)
            .field("currency", &self.currency)
            .finish()
    }
}

impl ZPaySettings {
    pub fn is_configured(&self) -> bool {
        !self.pid.trim().is_empty()
    }
}

pub struct ZPayProvider {
    pid: String,
    key: String,
    base_url: String,
    pay_type: String,
    channel_id: String,
    currency: Currency,
    http: reqwest::Client,
}

impl ZPayProvider {
    /// The provider, `None` when the route is off, or what is wrong with the settings.
    pub fn from_settings(settings: &ZPaySettings) -> Result<Option<Self>, String> {
        if !settings.is_configured() {
            return Ok(None);
        }
        if settings.key.trim().is_empty() {
            return Err("payments.zpay.key is required with a pid: notifications could not be verified".into());
        }
        let word = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !word(settings.pay_type.trim()) {
            return Err(format!("payments.zpay.pay_type must be alipay or wxpay, got {:?}", settings.pay_type));
        }
        let currency = Currency::parse(&settings.currency).map_err(|e| format!("payments.zpay.currency: {e}"))?;
        Ok(Some(Self {
            pid: settings.pid.trim().to_owned(),
            key: settings.key.trim().to_owned(),
            base_url: processor_http::base_url(&settings.base_url, "payments.zpay.base_url")?,
            pay_type: settings.pay_type.trim().to_owned(),
            channel_id: settings.channel_id.trim().to_owned(),
            currency,
            http: processor_http::client()?,
        }))
    }

    /// The parameters with `sign` and `sign_type` added.
    fn signed(&self, mut params: BTreeMap<String, String>) -> BTreeMap<String, String> {
        let sign = sign(&params, &self.key);
        params.insert("sign".into(), sign);
        params.insert("sign_type".into(), "MD5".into());
        params
    }

    /// A notification's (or a return's) parameters, checked: signed with our key, for our
    /// merchant id.
    fn verified_params(&self, params: &BTreeMap<String, String>) -> Result<(), ProviderError> {
        let bad = |what: &str| ProviderError::BadCallback(what.to_owned());
        let received =
            params.get("sign").filter(|sign| !sign.is_empty()).ok_or_else(|| bad("the notification is not signed"))?;
        if params.get("sign_type").is_some_and(|kind| !kind.is_empty() && !kind.eq_ignore_ascii_case("MD5")) {
            return Err(bad("sign_type is not MD5"));
        }
        if !same_hex(received, &sign(params, &self.key)) {
            return Err(bad("sign does not match the parameters"));
        }
        // Checked after the signature, so a forger learns nothing from which check failed.
        if params.get("pid").map(String::as_str) != Some(self.pid.as_str()) {
            return Err(bad("pid is not our merchant id"));
        }
        Ok(())
    }

    fn events(&self, params: &BTreeMap<String, String>) -> Result<Vec<PaymentEvent>, ProviderError> {
        let bad = |what: &str| ProviderError::BadCallback(what.to_owned());
        let field = |name: &str| params.get(name).filter(|value| !value.is_empty());
        let status = field("trade_status").map(String::as_str).unwrap_or("");
        if status != TRADE_SUCCESS {
            // zPay notifies payments only; anything else is acknowledged (retrying would
            // not change it) and changes nothing.
            tracing::warn!(status, "zPay notification with a trade_status other than TRADE_SUCCESS; ignored");
            return Ok(Vec::new());
        }
        let order = field("out_trade_no")
            .and_then(|id| OrderId::parse(id).ok())
            .ok_or_else(|| bad("out_trade_no is not an order of ours"))?;
        let trade_no = field("trade_no").ok_or_else(|| bad("trade_no is missing"))?;
        // `money` must be the exact decimal we asked for: "12.990000001" is not 12.99.
        let amount = field("money")
            .and_then(|money| Money::parse_decimal(money, self.currency.clone()).ok())
            .ok_or_else(|| bad("money is not an exact amount in cents"))?;
        Ok(vec![PaymentEvent::Paid { order: OrderRef::Ours(order), provider_txn_id: trade_no.clone(), amount }])
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url)
    }
}

/// zPay's signature of a parameter set (see the module documentation).
pub fn sign(params: &BTreeMap<String, String>, key: &str) -> String {
    // A BTreeMap of Strings iterates in byte order, which is ASCII order for the names.
    let joined = params
        .iter()
        .filter(|(name, value)| !value.is_empty() && name.as_str() != "sign" && name.as_str() != "sign_type")
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join("&");
    md5_hex(format!("{joined}{key}").as_bytes())
}

/// Form or query parameters, each name once: a name given twice could be read differently
/// by the signature check and by the code after it.
fn form_params(raw: &[u8]) -> Result<BTreeMap<String, String>, ProviderError> {
    let mut params = BTreeMap::new();
    for (name, value) in url::form_urlencoded::parse(raw) {
        if params.insert(name.to_string(), value.to_string()).is_some() {
            return Err(ProviderError::BadCallback(format!("the parameter {name:?} appears twice")));
        }
    }
    Ok(params)
}

/// A product name as zPay takes it: at most 100 characters and 127 bytes.
fn product_name(description: &str) -> String {
    let mut name = String::new();
    for (count, ch) in description.chars().enumerate() {
        if count == 100 || name.len() + ch.len_utf8() > 127 {
            break;
        }
        name.push(ch);
    }
    name
}

fn text_field(answer: &serde_json::Value, name: &str) -> Option<String> {
    match answer.get(name)? {
        serde_json::Value::String(text) if !text.is_empty() => Some(text.clone()),
        serde_json::Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// Whether an answer says `code: 1` (written as a number or as text).
fn answered_ok(answer: &serde_json::Value) -> bool {
    text_field(answer, "code").as_deref() == Some("1")
}

fn refusal(status: u16, answer: &serde_json::Value) -> ProviderError {
    let message = text_field(answer, "msg").unwrap_or_default();
    if status >= 500 {
        ProviderError::Unavailable(format!("HTTP {status} {message}").trim().to_owned())
    } else {
        ProviderError::Refused(format!("zPay: {message}").trim().to_owned())
    }
}

#[async_trait]
impl PaymentProvider for ZPayProvider {
    fn route(&self) -> PaymentRoute {
        PaymentRoute::ZPay
    }

    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        if request.amount.currency != self.currency {
            return Err(ProviderError::Unsupported(format!(
                "zPay takes {} only; the order is in {}",
                self.currency, request.amount.currency
            )));
        }
        let mut params = BTreeMap::from([
            ("pid".to_owned(), self.pid.clone()),
            ("type".to_owned(), self.pay_type.clone()),
            ("out_trade_no".to_owned(), request.order_id.to_string()),
            ("notify_url".to_owned(), request.notify_url.clone()),
            ("return_url".to_owned(), request.return_url.clone()),
            ("name".to_owned(), product_name(&request.description)),
            ("money".to_owned(), request.amount.decimal()),
        ]);
        if !self.channel_id.is_empty() {
            params.insert("cid".into(), self.channel_id.clone());
        }

        let Some(client_ip) = request.client_ip.as_deref().filter(|ip| !ip.is_empty()) else {
            // The page form: the buyer's browser (or phone, from the QR code) opens zPay's
            // cashier with the signed parameters.
            let query: String =
                url::form_urlencoded::Serializer::new(String::new()).extend_pairs(self.signed(params).iter()).finish();
            let approve_url = format!("{}?{query}", self.url("submit.php"));
            return Ok(Checkout {
                provider_ref: request.order_id.to_string(),
                approve_url: approve_url.clone(),
                qr_payload: Some(approve_url),
            });
        };

        params.insert("clientip".into(), client_ip.to_owned());
        params.insert("device".into(), "pc".into());
        let response = self
            .http
            .post(self.url("mapi.php"))
            .form(&self.signed(params))
            .send()
            .await
            .map_err(processor_http::unavailable)?;
        let (status, answer) = processor_http::read_json(response).await?;
        if !(200..300).contains(&status) || !answered_ok(&answer) {
            return Err(refusal(status, &answer));
        }
        let payurl = text_field(&answer, "payurl");
        let qrcode = text_field(&answer, "qrcode");
        let approve_url = payurl
            .clone()
            .or_else(|| qrcode.clone())
            .ok_or_else(|| ProviderError::Unavailable("zPay's answer has neither payurl nor qrcode".into()))?;
        Ok(Checkout {
            provider_ref: text_field(&answer, "trade_no").unwrap_or_else(|| request.order_id.to_string()),
            approve_url,
            qr_payload: qrcode.or(payurl),
        })
    }

    /// The buyer's return carries the notification's parameters, signed the same way; a
    /// valid one is believed (the notification may still be on its way), one without a
    /// signature says nothing, and a forged one is refused.
    async fn on_return(&self, _provider_ref: &str, query: &str) -> Result<Vec<PaymentEvent>, ProviderError> {
        let params = form_params(query.as_bytes())?;
        if !params.contains_key("sign") {
            return Ok(Vec::new());
        }
        self.verified_params(&params)?;
        self.events(&params)
    }

    async fn verify_callback(&self, callback: &Callback) -> Result<VerifiedCallback, ProviderError> {
        let from_query = form_params(callback.query.as_bytes())?;
        let params = if from_query.contains_key("sign") || callback.body.is_empty() {
            from_query
        } else {
            form_params(&callback.body)?
        };
        self.verified_params(&params)?;
        let events = self.events(&params)?;
        Ok(VerifiedCallback { events, answer: CallbackAnswer::text(ACKNOWLEDGEMENT) })
    }

    /// Nothing renews at zPay, so nothing is stopped.
    async fn cancel_subscription(&self, _provider_ref: &str, _reason: &str) -> Result<(), ProviderError> {
        Ok(())
    }

    /// Looks the payment up (the refund API wants our order number and the wallet), then
    /// asks for the refund. zPay names no refund id, so the payment's `trade_no` is answered.
    async fn refund(&self, provider_txn_id: &str, amount: &Money) -> Result<String, ProviderError> {
        if amount.currency != self.currency {
            return Err(ProviderError::Unsupported(format!("zPay refunds {} only", self.currency)));
        }
        let response = self
            .http
            .get(self.url("api.php"))
            .query(&[("act", "order"), ("pid", &self.pid), ("key", &self.key), ("trade_no", provider_txn_id)])
            .send()
            .await
            .map_err(processor_http::unavailable)?;
        let (status, order) = processor_http::read_json(response).await?;
        if !(200..300).contains(&status) || !answered_ok(&order) {
            return Err(refusal(status, &order));
        }
        let out_trade_no = text_field(&order, "out_trade_no")
            .ok_or_else(|| ProviderError::Unavailable("zPay's order answer has no out_trade_no".into()))?;
        let pay_type = text_field(&order, "type").unwrap_or_else(|| self.pay_type.clone());
        let params = BTreeMap::from([
            ("pid".to_owned(), self.pid.clone()),
            ("type".to_owned(), pay_type),
            ("out_trade_no".to_owned(), out_trade_no),
            ("money".to_owned(), amount.decimal()),
        ]);
        let response = self
            .http
            .post(self.url("api.php?act=refund"))
            .form(&self.signed(params))
            .send()
            .await
            .map_err(processor_http::unavailable)?;
        let (status, answer) = processor_http::read_json(response).await?;
        if !(200..300).contains(&status) || !answered_ok(&answer) {
            return Err(refusal(status, &answer));
        }
        Ok(provider_txn_id.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// The signed string is `money=1.00&name=VIP会员&notify_url=…&out_trade_no=…&pid=1001&type=alipay`
    /// followed by the key (empty `param`, `sign` and `sign_type` left out); its MD5 was
    /// computed outside Rust (Python's `hashlib.md5(text.encode()).hexdigest()`).
    #[test]
    fn the_signature_is_the_md5_of_the_sorted_non_empty_parameters_and_the_key() {
        let submitted = params(&[
            ("pid", "1001"),
            ("type", "alipay"),
            ("out_trade_no", "20160806151343349"),
            ("notify_url", "http://www.pay.com/notify_url.php"),
            ("name", "VIP会员"),
            ("money", "1.00"),
            ("param", ""),
            ("sign_type", "MD5"),
            ("sign", "whatever was there"),
        ]);
        assert_eq!(sign(&submitted, "89unJUB8HZ54Hj7x4nUj56HN4nUzUJ8i"), "bf6d59131ec03c13288b5cb41314f38a");
    }

    #[test]
    fn names_are_cut_to_what_zpay_takes() {
        assert_eq!(product_name("Amora – 1 month plan"), "Amora – 1 month plan");
        assert_eq!(product_name(&"x".repeat(300)).len(), 100);
        let long = product_name(&"会".repeat(100));
        assert!(long.len() <= 127 && long.chars().all(|c| c == '会'));
    }

    #[test]
    fn a_parameter_twice_is_refused() {
        assert!(form_params(b"a=1&b=2").is_ok());
        assert!(form_params(b"a=1&a=2").is_err());
    }
}
