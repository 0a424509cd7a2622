//! NOWPayments (crypto) through its invoices: `POST /v1/invoice` with our `x-api-key` opens
//! a hosted invoice page the buyer pays in the coin they choose; NOWPayments then reports
//! each status change as an IPN to `ipn_callback_url`, signed in `x-nowpayments-sig` with
//! hex HMAC-SHA512, keyed by the store's IPN secret, over the notification's JSON with its
//! keys sorted.
//!
//! Reference: NOWPayments API documentation (Postman collection 7907941/S1a32n38, "Create
//! invoice" and "Instant payments notifications"), their help centre article "IPN and how
//! to setup": sort the parameters alphabetically, `JSON.stringify` them, HMAC-SHA512 with
//! the IPN secret, compare with `x-nowpayments-sig`. Their newer samples sort nested
//! objects too (`fee` is one), so sorting is recursive here.
//!
//! Plans bought through NOWPayments are paid one period at a time: an invoice is a single
//! payment and nothing renews by itself, so a plan ends at its period's end unless the
//! buyer pays a new invoice. `cancel_subscription` therefore has nothing to stop.

use amora_domain::payment::{Currency, Money, OrderId, PaymentRoute, ReversalKind};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::signing::{hmac_sha512_hex, same_hex};
use super::{
    Callback, CallbackAnswer, Checkout, CheckoutRequest, OrderRef, PaymentEvent, PaymentProvider, ProviderError,
    VerifiedCallback, processor_http,
};

/// `[payments.nowpayments]`: empty `api_key` turns the route off.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NowPaymentsSettings {
    /// The API key of the NOWPayments dashboard.
    pub api_key: String,
    /// The IPN secret key (Settings → Payments → Instant payment notifications).
    pub ipn_secret: String,
    /// `https://api.nowpayments.io`, or `https://api-sandbox.nowpayments.io` for their sandbox.
    pub base_url: String,
}

impl std::fmt::Debug for NowPaymentsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NowPaymentsSettings")
            .field("api_key", &super::signing::redacted(&self.api_key))
            .field("ipn_secret", &super::signing::redacted(&self.ipn_secret))
            .field("base_url", &self.base_url)
            .finish()
    }
}

impl NowPaymentsSettings {
    pub fn is_configured(&self) -> bool {
        !self.api_key.trim().is_empty()
    }
}

pub struct NowPaymentsProvider {
    api_key: String,
    ipn_secret: String,
    base_url: String,
    http: reqwest::Client,
}

impl NowPaymentsProvider {
    /// The provider, `None` when the route is off, or what is wrong with the settings.
    pub fn from_settings(settings: &NowPaymentsSettings) -> Result<Option<Self>, String> {
        if !settings.is_configured() {
            return Ok(None);
        }
        if settings.ipn_secret.trim().is_empty() {
            return Err(
                "payments.nowpayments.ipn_secret is required with an api_key: IPNs could not be verified".into()
            );
        }
        Ok(Some(Self {
            api_key: settings.api_key.trim().to_owned(),
            ipn_secret: settings.ipn_secret.trim().to_owned(),
            base_url: processor_http::base_url(&settings.base_url, "payments.nowpayments.base_url")?,
            http: processor_http::client()?,
        }))
    }
}

/// The part of `POST /v1/invoice`'s answer we use. NOWPayments writes `id` as a string in
/// answers and as a number in IPNs, so both are accepted.
#[derive(Deserialize)]
struct InvoiceAnswer {
    id: serde_json::Value,
    invoice_url: String,
}

#[async_trait]
impl PaymentProvider for NowPaymentsProvider {
    fn route(&self) -> PaymentRoute {
        PaymentRoute::NowPayments
    }

    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        // `price_amount` is a JSON number in their API. Our decimal text ("12.99") read as
        // a double is written back as the same shortest text, so no cent is lost.
        let price_amount: serde_json::Number = serde_json::from_str(&request.amount.decimal())
            .map_err(|_| ProviderError::Refused("the amount cannot be written as a number".into()))?;
        let body = json!({
            "price_amount": price_amount,
            "price_currency": request.amount.currency.as_str().to_ascii_lowercase(),
            "order_id": request.order_id.as_str(),
            "order_description": request.description,
            "ipn_callback_url": request.notify_url,
            "success_url": request.return_url,
            "cancel_url": request.cancel_url,
        });
        let response = self
            .http
            .post(format!("{}/v1/invoice", self.base_url))
            .header("x-api-key", &self.api_key)
            .json(&body)
            .send()
            .await
            .map_err(processor_http::unavailable)?;
        let (status, answer) = processor_http::read_json(response).await?;
        if !(200..300).contains(&status) {
            return Err(refusal(status, &answer));
        }
        let invoice: InvoiceAnswer = serde_json::from_value(answer)
            .map_err(|_| ProviderError::Unavailable("the invoice answer has no id or invoice_url".into()))?;
        let id = match invoice.id {
            serde_json::Value::String(id) => id,
            serde_json::Value::Number(id) => id.to_string(),
            _ => return Err(ProviderError::Unavailable("the invoice id is neither text nor a number".into())),
        };
        Ok(Checkout { provider_ref: id, approve_url: invoice.invoice_url, qr_payload: None })
    }

    /// The buyer's return (`success_url`) proves nothing; the IPN decides.
    async fn on_return(&self, _provider_ref: &str, _query: &str) -> Result<Vec<PaymentEvent>, ProviderError> {
        Ok(Vec::new())
    }

    async fn verify_callback(&self, callback: &Callback) -> Result<VerifiedCallback, ProviderError> {
        let signature = callback
            .header("x-nowpayments-sig")
            .filter(|sig| !sig.trim().is_empty())
            .ok_or_else(|| ProviderError::BadCallback("no x-nowpayments-sig header".into()))?;
        let text = std::str::from_utf8(&callback.body)
            .map_err(|_| ProviderError::BadCallback("the IPN body is not UTF-8".into()))?;
        let document = sorted_json::Document::parse(text).map_err(ProviderError::BadCallback)?;
        let expected = hmac_sha512_hex(self.ipn_secret.as_bytes(), document.sorted_compact().as_bytes());
        if !same_hex(signature, &expected) {
            return Err(ProviderError::BadCallback("x-nowpayments-sig does not match the body".into()));
        }
        let events = ipn_events(&document)?;
        Ok(VerifiedCallback { events, answer: CallbackAnswer::ok_empty() })
    }

    /// Nothing renews at NOWPayments (see the module documentation), so nothing is stopped.
    async fn cancel_subscription(&self, _provider_ref: &str, _reason: &str) -> Result<(), ProviderError> {
        Ok(())
    }

    async fn refund(&self, _provider_txn_id: &str, _amount: &Money) -> Result<String, ProviderError> {
        Err(ProviderError::Unsupported(
            "NOWPayments has no refund API for invoice payments: refund from the NOWPayments dashboard".into(),
        ))
    }
}

/// A refusal in NOWPayments' error shape (`{"statusCode":403,"code":"INVALID_API_KEY",
/// "message":"Invalid api key"}`), naming their code and message, never our key.
fn refusal(status: u16, answer: &serde_json::Value) -> ProviderError {
    let field = |name: &str| answer.get(name).and_then(serde_json::Value::as_str).unwrap_or("").to_owned();
    let (code, message) = (field("code"), field("message"));
    let what = format!("HTTP {status} {code} {message}").trim().to_owned();
    if status >= 500 { ProviderError::Unavailable(what) } else { ProviderError::Refused(what) }
}

/// What one verified IPN says, by `payment_status`.
fn ipn_events(ipn: &sorted_json::Document) -> Result<Vec<PaymentEvent>, ProviderError> {
    let bad = |what: &str| ProviderError::BadCallback(what.to_owned());
    let order = match ipn.text("order_id").filter(|id| !id.is_empty()) {
        Some(id) => OrderRef::Ours(OrderId::parse(&id).map_err(|_| bad("order_id is not an order of ours"))?),
        None => {
            OrderRef::Provider(ipn.text("invoice_id").ok_or_else(|| bad("the IPN names no order_id or invoice_id"))?)
        }
    };
    let status = ipn.text("payment_status").ok_or_else(|| bad("the IPN has no payment_status"))?;
    // What is compared with the order is the invoice's own price (`price_amount` in
    // `price_currency`), which NOWPayments echoes in every IPN: it is what the buyer was
    // asked to pay, in our currency, so it must equal the catalogue price of the order.
    // `actually_paid` is in the coin paid with (`pay_currency`) at a moving rate and never
    // equals a price in cents; NOWPayments itself decides that the invoice was paid in full
    // (`finished`) or not (`partially_paid`).
    let price = || -> Result<Money, ProviderError> {
        let currency = ipn
            .text("price_currency")
            .and_then(|code| Currency::parse(&code).ok())
            .ok_or_else(|| bad("price_currency is missing or not a currency"))?;
        let amount = ipn.text("price_amount").ok_or_else(|| bad("price_amount is missing"))?;
        Money::parse_decimal(&amount, currency).map_err(|_| bad("price_amount is not an exact amount in cents"))
    };
    let payment_id = || ipn.text("payment_id").filter(|id| !id.is_empty()).ok_or_else(|| bad("payment_id is missing"));
    let event = match status.as_str() {
        "waiting" | "confirming" | "confirmed" | "sending" => PaymentEvent::Pending { order },
        "partially_paid" => {
            // What arrived so far, in the invoice's currency as NOWPayments values it,
            // rounded down to the cent: for showing, never for crediting.
            let currency = price()?.currency;
            let minor = ipn
                .text("actually_paid_at_fiat")
                .and_then(|text| cents_rounded_down(&text))
                .and_then(|text| Money::parse_decimal(&text, currency.clone()).ok())
                .map_or(0, |money| money.minor);
            PaymentEvent::PartiallyPaid { order, amount: Money::new(minor, currency) }
        }
        "finished" => PaymentEvent::Paid { order, provider_txn_id: payment_id()?, amount: price()? },
        "failed" => PaymentEvent::Failed { order, reason: "the crypto payment failed".into() },
        "expired" => PaymentEvent::Expired { order },
        // Crypto has no chargebacks: a refund is the merchant sending coins back.
        "refunded" => PaymentEvent::Refunded {
            order,
            provider_txn_id: payment_id()?,
            amount: price()?,
            kind: ReversalKind::Refund,
        },
        other => {
            // A status NOWPayments may add later: acknowledged (so it is not resent for a
            // day) and logged, but it changes nothing.
            tracing::warn!(status = other, "NOWPayments IPN with an unknown payment_status; ignored");
            return Ok(Vec::new());
        }
    };
    Ok(vec![event])
}

/// `"5.123456"` → `"5.12"`; `None` for anything that is not a plain decimal.
fn cents_rounded_down(text: &str) -> Option<String> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) {
        return None;
    }
    Some(format!("{whole}.{:0<2}", &fraction[..fraction.len().min(2)]))
}

/// NOWPayments' signing form of a JSON document: its object keys sorted (recursively) and
/// everything else exactly as received — string escapes and number texts are kept as the
/// sender wrote them, since re-encoding them (a double's digits, `\u00e9` against `é`)
/// would sign a different text from theirs. Whitespace between tokens is dropped, as
/// `JSON.stringify` writes none.
mod sorted_json {
    /// Deeper nesting than any notification has is refused rather than recursed into.
    const MAX_DEPTH: usize = 32;

    enum Node<'a> {
        /// Members with their decoded keys (for sorting and lookup) and raw key texts.
        Object(Vec<(String, &'a str, Node<'a>)>),
        Array(Vec<Node<'a>>),
        /// A string (with its quotes), a number, `true`, `false` or `null`, as written.
        Scalar(&'a str),
    }

    pub struct Document<'a> {
        root: Vec<(String, &'a str, Node<'a>)>,
    }

    impl<'a> Document<'a> {
        /// A JSON object; anything else, or an object with a key twice (which two readers
        /// could take differently), is refused.
        pub fn parse(text: &'a str) -> Result<Self, String> {
            // serde_json checks it is JSON at all, so the scanner below only splits tokens.
            serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|_| "the body is not JSON".to_owned())?;
            let mut scanner = Scanner { text, pos: 0 };
            match scanner.value(0)? {
                Node::Object(members) => Ok(Self { root: members }),
                _ => Err("the body is not a JSON object".into()),
            }
        }

        /// The text NOWPayments signs.
        pub fn sorted_compact(&self) -> String {
            let mut out = String::new();
            write_object(&self.root, &mut out);
            out
        }

        /// A top-level string's value, or a number's text; `None` when absent or null.
        pub fn text(&self, key: &str) -> Option<String> {
            match self.root.iter().find(|(name, _, _)| name == key).map(|(_, _, node)| node)? {
                Node::Scalar(raw) if raw.starts_with('"') => serde_json::from_str::<String>(raw).ok(),
                Node::Scalar(raw) if *raw != "null" => Some((*raw).to_owned()),
                _ => None,
            }
        }
    }

    fn write_object(members: &[(String, &str, Node<'_>)], out: &mut String) {
        // JavaScript sorts keys by UTF-16 code units; for the ASCII keys of IPNs this is
        // byte order, and for others it is what `Object.keys(…).sort()` does.
        let mut sorted: Vec<&(String, &str, Node<'_>)> = members.iter().collect();
        sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
        out.push('{');
        for (index, (_, raw_key, node)) in sorted.into_iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            out.push_str(raw_key);
            out.push(':');
            write_node(node, out);
        }
        out.push('}');
    }

    fn write_node(node: &Node<'_>, out: &mut String) {
        match node {
            Node::Object(members) => write_object(members, out),
            Node::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    write_node(item, out);
                }
                out.push(']');
            }
            Node::Scalar(raw) => out.push_str(raw),
        }
    }

    struct Scanner<'a> {
        text: &'a str,
        pos: usize,
    }

    impl<'a> Scanner<'a> {
        fn skip_space(&mut self) {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.as_bytes().get(self.pos) {
                self.pos += 1;
            }
        }

        fn peek(&self) -> Option<u8> {
            self.text.as_bytes().get(self.pos).copied()
        }

        fn expect(&mut self, byte: u8) -> Result<(), String> {
            self.skip_space();
            if self.peek() != Some(byte) {
                return Err("the body is not JSON".into());
            }
            self.pos += 1;
            Ok(())
        }

        fn value(&mut self, depth: usize) -> Result<Node<'a>, String> {
            if depth > MAX_DEPTH {
                return Err("the body nests too deeply".into());
            }
            self.skip_space();
            match self.peek() {
                Some(b'{') => self.object(depth),
                Some(b'[') => self.array(depth),
                Some(b'"') => Ok(Node::Scalar(self.string()?)),
                Some(_) => {
                    let start = self.pos;
                    while let Some(byte) = self.peek() {
                        if matches!(byte, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                            break;
                        }
                        self.pos += 1;
                    }
                    Ok(Node::Scalar(&self.text[start..self.pos]))
                }
                None => Err("the body is not JSON".into()),
            }
        }

        /// A string token with its quotes, as written.
        fn string(&mut self) -> Result<&'a str, String> {
            let start = self.pos;
            self.pos += 1;
            loop {
                match self.peek() {
                    Some(b'\\') => self.pos += 2,
                    Some(b'"') => {
                        self.pos += 1;
                        return Ok(&self.text[start..self.pos]);
                    }
                    Some(_) => self.pos += 1,
                    None => return Err("the body is not JSON".into()),
                }
            }
        }

        fn object(&mut self, depth: usize) -> Result<Node<'a>, String> {
            self.pos += 1;
            let mut members: Vec<(String, &'a str, Node<'a>)> = Vec::new();
            self.skip_space();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                return Ok(Node::Object(members));
            }
            loop {
                self.skip_space();
                let raw_key = self.string()?;
                let key: String = serde_json::from_str(raw_key).map_err(|_| "the body is not JSON".to_owned())?;
                if members.iter().any(|(name, _, _)| *name == key) {
                    return Err(format!("the key {key:?} appears twice"));
                }
                self.expect(b':')?;
                let node = self.value(depth + 1)?;
                members.push((key, raw_key, node));
                self.skip_space();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b'}') => {
                        self.pos += 1;
                        return Ok(Node::Object(members));
                    }
                    _ => return Err("the body is not JSON".into()),
                }
            }
        }

        fn array(&mut self, depth: usize) -> Result<Node<'a>, String> {
            self.pos += 1;
            let mut items = Vec::new();
            self.skip_space();
            if self.peek() == Some(b']') {
                self.pos += 1;
                return Ok(Node::Array(items));
            }
            loop {
                items.push(self.value(depth + 1)?);
                self.skip_space();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b']') => {
                        self.pos += 1;
                        return Ok(Node::Array(items));
                    }
                    _ => return Err("the body is not JSON".into()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An invoice IPN as NOWPayments sends it: keys in their order, nested `fee`.
    const IPN: &str = r#"{"payment_id":5077125051,"invoice_id":4522625843,"payment_status":"finished",
        "pay_address":"0xd1cDE08A07cD25adEbEd35c3867a59228C09B606","price_amount":12.99,"price_currency":"usd",
        "pay_amount":0.00027,"actually_paid":0.00027,"actually_paid_at_fiat":12.991,"pay_currency":"btc",
        "order_id":"ord_abcdefghijklmnopqrstuvwx","order_description":"Amora \u2013 1 month plan",
        "purchase_id":"5837122679","outcome_amount":0.000265,"outcome_currency":"btc",
        "fee":{"currency":"btc","depositFee":0,"withdrawalFee":0,"serviceFee":0.0000013},
        "updated_at":1700000000000}"#;

    const SORTED: &str = r#"{"actually_paid":0.00027,"actually_paid_at_fiat":12.991,"fee":{"currency":"btc","depositFee":0,"serviceFee":0.0000013,"withdrawalFee":0},"invoice_id":4522625843,"order_description":"Amora \u2013 1 month plan","order_id":"ord_abcdefghijklmnopqrstuvwx","outcome_amount":0.000265,"outcome_currency":"btc","pay_address":"0xd1cDE08A07cD25adEbEd35c3867a59228C09B606","pay_amount":0.00027,"pay_currency":"btc","payment_id":5077125051,"payment_status":"finished","price_amount":12.99,"price_currency":"usd","purchase_id":"5837122679","updated_at":1700000000000}"#;

    /// HMAC-SHA512 of `SORTED` keyed by "ipn-secret-for-tests", computed outside Rust
    /// (Python's `hmac.new(key, sorted, hashlib.sha512).hexdigest()`). Python's own
    /// `json.dumps(sort_keys=True)` would write `serviceFee` as `1.3e-06` where the sender
    /// (JavaScript) wrote `0.0000013`: why number texts are kept as received.
    const SIGNATURE: &str = "4e01af3f7e6d122e251b3362b123f4722a0ee26c588a4b9e56627db84f40aa01587519324f02558cd0e3d003d0ee7e03648bdb661b7d17192046fcf8d81580ba";

    #[test]
    fn an_ipn_is_signed_over_its_keys_sorted_recursively_and_its_texts_as_received() {
        let document = sorted_json::Document::parse(IPN).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(document.sorted_compact(), SORTED);
        assert_eq!(hmac_sha512_hex(b"ipn-secret-for-tests", SORTED.as_bytes()), SIGNATURE);
    }

    #[test]
    fn a_key_twice_or_a_body_that_is_not_an_object_is_refused() {
        assert!(sorted_json::Document::parse(r#"{"a":1,"a":2}"#).is_err());
        assert!(sorted_json::Document::parse(r#"[1,2]"#).is_err());
        assert!(sorted_json::Document::parse(r#"{"a":1"#).is_err());
        assert!(
            sorted_json::Document::parse(r#"{"a":{"b":[1,{"d":2,"c":"x\"y"}]}}"#)
                .is_ok_and(|d| d.sorted_compact() == r#"{"a":{"b":[1,{"c":"x\"y","d":2}]}}"#)
        );
    }

    #[test]
    fn a_finished_ipn_is_paid_at_the_invoice_price_under_the_payment_id() {
        let document = sorted_json::Document::parse(IPN).unwrap_or_else(|e| panic!("{e}"));
        let events = ipn_events(&document).unwrap_or_else(|e| panic!("{e}"));
        let usd = Currency::parse("USD").unwrap_or_else(|e| panic!("{e}"));
        let order = OrderId::parse("ord_abcdefghijklmnopqrstuvwx").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            events,
            vec![PaymentEvent::Paid {
                order: OrderRef::Ours(order),
                provider_txn_id: "5077125051".into(),
                amount: Money::new(1299, usd)
            }]
        );
    }

    #[test]
    fn fiat_values_are_rounded_down_to_the_cent_as_text() {
        assert_eq!(cents_rounded_down("12.991").as_deref(), Some("12.99"));
        assert_eq!(cents_rounded_down("5").as_deref(), Some("5.00"));
        assert_eq!(cents_rounded_down("1e3"), None);
    }
}
