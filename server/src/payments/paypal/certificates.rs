//! Webhook signatures, checked offline by PayPal's published scheme: the certificate URL a
//! notification names is fetched only from PayPal's hosts at its certificate path, the chain
//! must reach a trusted CA, the signature must cover the transmission, the webhook id and
//! the body, and the transmission must be fresh (no replays).

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, SignatureVerificationAlgorithm, TrustAnchor, UnixTime};
use url::Url;

use super::types::parse_time;
use super::{PaypalProvider, bad};
use crate::payments::{Callback, ProviderError};

/// Where on those hosts the certificates live (`/v1/notifications/certs/CERT-…`): any other
/// path of PayPal's API is not a certificate, so it is not fetched.
const CERT_PATH_PREFIX: &str = "/v1/notifications/certs/";
/// The only signature algorithm PayPal publishes for webhooks.
const AUTH_ALGO: &str = "SHA256withRSA";
/// Certificates kept by URL; PayPal rotates them rarely, so a handful is plenty, and the
/// bound keeps a stream of made-up URLs on an allowed host from growing the cache.
const CERT_CACHE_MAX: usize = 32;
/// A certificate chain is a few kilobytes; anything far larger is not one.
const CERT_MAX_BYTES: usize = 64 * 1024;

/// The algorithms a certificate chain may be signed with (PayPal's is issued by DigiCert).
static CHAIN_ALGORITHMS: &[&dyn SignatureVerificationAlgorithm] = &[
    webpki::ring::RSA_PKCS1_2048_8192_SHA256,
    webpki::ring::RSA_PKCS1_2048_8192_SHA384,
    webpki::ring::RSA_PKCS1_2048_8192_SHA512,
    webpki::ring::RSA_PKCS1_3072_8192_SHA384,
    webpki::ring::RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
    webpki::ring::RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
    webpki::ring::RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
    webpki::ring::ECDSA_P256_SHA256,
    webpki::ring::ECDSA_P256_SHA384,
    webpki::ring::ECDSA_P384_SHA256,
    webpki::ring::ECDSA_P384_SHA384,
    webpki::ring::ED25519,
];

/// One origin webhook certificates may come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CertOrigin {
    scheme: String,
    host: String,
    port: u16,
}

impl CertOrigin {
    /// `api.paypal.com` (https, port 443) or `http://127.0.0.1:8080` (an explicit origin).
    pub(super) fn parse(entry: &str) -> anyhow::Result<Self> {
        let entry = entry.trim();
        if !entry.contains("://") {
            anyhow::ensure!(
                !entry.is_empty() && entry.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'),
                "cert_hosts: {entry:?} is neither a host name nor an origin"
            );
            return Ok(Self { scheme: "https".into(), host: entry.to_ascii_lowercase(), port: 443 });
        }
        let url = Url::parse(entry).with_context(|| format!("cert_hosts: {entry:?} is not an origin"))?;
        anyhow::ensure!(
            matches!(url.scheme(), "https" | "http")
                && url.username().is_empty()
                && url.password().is_none()
                && url.path() == "/"
                && url.query().is_none()
                && url.fragment().is_none(),
            "cert_hosts: {entry:?} must be scheme://host[:port] with nothing after it"
        );
        let host = url.host_str().context("cert_hosts: an origin needs a host")?.to_ascii_lowercase();
        let port = url.port_or_known_default().context("cert_hosts: an origin needs a port")?;
        Ok(Self { scheme: url.scheme().to_owned(), host, port })
    }

    fn admits(&self, url: &Url) -> bool {
        url.scheme() == self.scheme
            && url.host_str().is_some_and(|host| host.eq_ignore_ascii_case(&self.host))
            && url.port_or_known_default() == Some(self.port)
    }
}

fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// The message PayPal signs for a webhook: `<transmission id>|<transmission time>|<webhook
/// id>|<CRC-32 of the raw body as an unsigned decimal>`.
fn signed_message(transmission_id: &str, transmission_time: &str, webhook_id: &str, body: &[u8]) -> String {
    format!("{transmission_id}|{transmission_time}|{webhook_id}|{}", crc32fast::hash(body))
}

/// Refuses replays. A notification's signature covers its transmission time, so an old
/// notification sent again verifies as well as it did the first time; what gives it away is
/// the time. PayPal sends each notification at once and retries a failed one later (25 times
/// over three days), each delivery a fresh transmission signed at its own time, so an
/// honest delivery is seconds old and one older than the window (default five minutes,
/// generous for clock skew and queueing) is somebody replaying a captured request.
/// Replays inside the window are harmless: every event is keyed by PayPal's id of the
/// payment or refund, which credits once. Times in the future beyond the window are refused
/// too (a skewed or forged clock). If PayPal's retries were ever to keep their first time,
/// the only loss is the retry: on_return and PayPal's next event still arrive.
pub(super) fn check_fresh(sent_at: i64, now: i64, window_secs: u64) -> Result<(), String> {
    let window = i64::try_from(window_secs).unwrap_or(i64::MAX);
    let age = now.saturating_sub(sent_at);
    if age > window {
        return Err(format!("transmission time is {age} s old (window {window} s): refused as a replay"));
    }
    if age < -window {
        return Err(format!("transmission time is {} s in the future", age.unsigned_abs()));
    }
    Ok(())
}

/// Checks the certificate chain (to a trusted CA, every certificate inside its validity
/// dates at `now`) and the signature of `message` by the end certificate's key.
fn verify_with_chain(
    chain: &[CertificateDer<'static>],
    anchors: &[TrustAnchor<'static>],
    now: UnixTime,
    message: &[u8],
    signature: &[u8],
) -> Result<(), String> {
    let (leaf, intermediates) = chain.split_first().ok_or("the certificate URL served no certificate")?;
    let certificate =
        webpki::EndEntityCert::try_from(leaf).map_err(|e| format!("the certificate cannot be read: {e}"))?;
    certificate
        .verify_for_usage(CHAIN_ALGORITHMS, anchors, intermediates, now, webpki::KeyUsage::server_auth(), None, None)
        .map_err(|e| format!("the certificate is not trusted: {e}"))?;
    certificate
        .verify_signature(webpki::ring::RSA_PKCS1_2048_8192_SHA256, message, signature)
        .map_err(|_| "the signature does not match".to_owned())
}

pub(super) fn read_trust_anchors(path: &str) -> anyhow::Result<Vec<TrustAnchor<'static>>> {
    let pem = std::fs::read(path).with_context(|| format!("payments.paypal: cert_ca_file {path}"))?;
    let certificates = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("payments.paypal: cert_ca_file {path} is not PEM"))?;
    anyhow::ensure!(!certificates.is_empty(), "payments.paypal: cert_ca_file {path} holds no certificate");
    certificates
        .iter()
        .map(|der| {
            webpki::anchor_from_trusted_cert(der)
                .map(|anchor| anchor.to_owned())
                .map_err(|e| anyhow::anyhow!("payments.paypal: cert_ca_file {path}: {e}"))
        })
        .collect()
}

impl PaypalProvider {
    /// Only `https` (or an origin the settings name) on an allowed host, at PayPal's
    /// certificate path: the URL arrives in the request, so it is the attacker's choice.
    fn allowed_cert_url(&self, raw: &str) -> Result<Url, ProviderError> {
        let url = Url::parse(raw).map_err(|_| bad("paypal-cert-url is not a URL"))?;
        if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
            return Err(bad("paypal-cert-url carries credentials or a fragment"));
        }
        if !self.cert_origins.iter().any(|origin| origin.admits(&url)) {
            return Err(bad(format!(
                "paypal-cert-url {}://{} is not an allowed certificate host",
                url.scheme(),
                url.host_str().unwrap_or("")
            )));
        }
        if !url.path().starts_with(CERT_PATH_PREFIX) || url.query().is_some() {
            return Err(bad("paypal-cert-url is not a PayPal certificate path"));
        }
        Ok(url)
    }

    /// The certificate chain at `url`, fetched once and kept (it is re-checked at every use).
    async fn certificate_chain(&self, url: &Url) -> Result<Arc<Vec<CertificateDer<'static>>>, ProviderError> {
        if let Some(chain) = self.cached_chain(url.as_str()) {
            return Ok(chain);
        }
        let mut response = self
            .http
            .get(url.clone())
            .send()
            .await
            .map_err(|e| ProviderError::Unavailable(format!("the webhook certificate cannot be fetched: {e}")))?;
        let status = response.status();
        if status.is_server_error() {
            // PayPal's trouble, not the notification's: answered with an error, so PayPal
            // sends it again later.
            return Err(ProviderError::Unavailable(format!("the certificate URL answered {}", status.as_u16())));
        }
        if !status.is_success() {
            return Err(bad(format!("the certificate URL answered {}", status.as_u16())));
        }
        let mut pem = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| ProviderError::Unavailable(format!("the webhook certificate cannot be fetched: {e}")))?
        {
            pem.extend_from_slice(&chunk);
            if pem.len() > CERT_MAX_BYTES {
                return Err(bad("the certificate URL served more than a certificate chain"));
            }
        }
        let chain = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(format!("the certificate URL served no PEM certificate: {e}")))?;
        if chain.is_empty() {
            return Err(bad("the certificate URL served no certificate"));
        }
        let chain = Arc::new(chain);
        if let Ok(mut cache) = self.certificates.lock() {
            if cache.len() >= CERT_CACHE_MAX {
                cache.clear();
            }
            cache.insert(url.as_str().to_owned(), chain.clone());
        }
        Ok(chain)
    }

    fn cached_chain(&self, url: &str) -> Option<Arc<Vec<CertificateDer<'static>>>> {
        self.certificates.lock().ok()?.get(url).cloned()
    }

    /// PayPal's published scheme: the headers name the transmission, its time, the
    /// certificate and the algorithm; the signature covers `signed_message`.
    pub(super) async fn verify_signature(&self, callback: &Callback) -> Result<(), ProviderError> {
        let header = |name: &str| {
            callback
                .header(name)
                .map(str::trim)
                .filter(|value| !value.is_empty())
                .ok_or_else(|| bad(format!("the {name} header is missing")))
        };
        let transmission_id = header("paypal-transmission-id")?;
        let transmission_time = header("paypal-transmission-time")?;
        let signature = header("paypal-transmission-sig")?;
        let cert_url = header("paypal-cert-url")?;
        let algorithm = header("paypal-auth-algo")?;
        if algorithm != AUTH_ALGO {
            return Err(bad(format!("paypal-auth-algo {algorithm:?} is not {AUTH_ALGO}")));
        }
        let sent_at = parse_time(transmission_time).ok_or_else(|| bad("paypal-transmission-time is not a time"))?;
        check_fresh(sent_at, now_secs(), self.settings.replay_window_secs).map_err(bad)?;
        let url = self.allowed_cert_url(cert_url)?;
        let signature = BASE64.decode(signature).map_err(|_| bad("paypal-transmission-sig is not Base64"))?;
        let chain = self.certificate_chain(&url).await?;
        let message = signed_message(transmission_id, transmission_time, &self.settings.webhook_id, &callback.body);
        verify_with_chain(&chain, &self.trust_anchors, UnixTime::now(), message.as_bytes(), &signature).map_err(bad)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::payments::paypal::{PAYPAL_CERT_HOSTS, PaypalSettings};

    #[test]
    fn the_signed_message_joins_the_headers_the_webhook_id_and_the_body_crc32() {
        // CRC-32 (IEEE) of "123456789" is the published check value 0xCBF43926.
        assert_eq!(
            signed_message(
                "69cd13f0-d67a-11e5-baa3-778b53f4ae55",
                "2016-02-18T20:01:35Z",
                "1JE4291016473214C",
                b"123456789"
            ),
            "69cd13f0-d67a-11e5-baa3-778b53f4ae55|2016-02-18T20:01:35Z|1JE4291016473214C|3421780262"
        );
        // Unsigned decimal, even when the top bit is set; and the empty body's CRC is 0.
        assert_eq!(signed_message("a", "t", "w", b"{}"), "a|t|w|2745614147");
        assert_eq!(signed_message("a", "t", "w", b""), "a|t|w|0");
        // One byte more changes the message (the body is covered).
        assert_ne!(signed_message("a", "t", "w", b"{} "), signed_message("a", "t", "w", b"{}"));
    }

    #[test]
    fn a_transmission_outside_the_window_is_a_replay() {
        assert!(check_fresh(1_000, 1_000, 300).is_ok());
        assert!(check_fresh(700, 1_000, 300).is_ok());
        assert!(check_fresh(699, 1_000, 300).is_err(), "older than five minutes");
        assert!(check_fresh(1_300, 1_000, 300).is_ok());
        assert!(check_fresh(1_301, 1_000, 300).is_err(), "too far in the future");
        assert!(check_fresh(i64::MIN, 1_000, 300).is_err() && check_fresh(i64::MAX, 1_000, 300).is_err());
        assert!(check_fresh(0, 1_000, u64::MAX).is_ok(), "a window too large for i64 is all of time");
    }

    fn provider(cert_hosts: &[&str]) -> PaypalProvider {
        let settings = PaypalSettings {
            client_id: "id".into(),
            client_secret: "secret".into(),
            webhook_id: "WH1".into(),
            cert_hosts: cert_hosts.iter().map(|h| (*h).to_owned()).collect(),
            ..PaypalSettings::default()
        };
        PaypalProvider::new(settings).unwrap().unwrap()
    }

    #[test]
    fn certificates_come_only_from_allowed_hosts_over_https_at_the_certificate_path() {
        let paypal = provider(&PAYPAL_CERT_HOSTS);
        let good = "https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77";
        assert!(paypal.allowed_cert_url(good).is_ok());
        assert!(paypal.allowed_cert_url("https://api.sandbox.paypal.com/v1/notifications/certs/CERT-1").is_ok());
        assert!(paypal.allowed_cert_url("https://API.PayPal.com:443/v1/notifications/certs/CERT-1").is_ok());
        for refused in [
            "http://api.paypal.com/v1/notifications/certs/CERT-1",
            "https://api.paypal.com:8443/v1/notifications/certs/CERT-1",
            "https://api.paypal.com.evil.example/v1/notifications/certs/CERT-1",
            "https://evil.example/v1/notifications/certs/CERT-1",
            "https://user:pw@api.paypal.com/v1/notifications/certs/CERT-1",
            "https://api.paypal.com/v1/oauth2/token",
            "https://api.paypal.com/v1/notifications/certs/../../oauth2/token",
            "https://api.paypal.com/v1/notifications/certs/CERT-1?x=1",
            "https://127.0.0.1/v1/notifications/certs/CERT-1",
            "not a url",
        ] {
            assert!(matches!(paypal.allowed_cert_url(refused), Err(ProviderError::BadCallback(_))), "{refused}");
        }
    }

    #[test]
    fn a_loopback_origin_is_allowed_only_when_named_with_its_scheme_and_port() {
        let paypal = provider(&["http://127.0.0.1:8123"]);
        assert!(paypal.allowed_cert_url("http://127.0.0.1:8123/v1/notifications/certs/CERT-1").is_ok());
        assert!(paypal.allowed_cert_url("http://127.0.0.1:8124/v1/notifications/certs/CERT-1").is_err());
        assert!(paypal.allowed_cert_url("https://127.0.0.1:8123/v1/notifications/certs/CERT-1").is_err());
        assert!(paypal.allowed_cert_url("https://api.paypal.com/v1/notifications/certs/CERT-1").is_err());
        for bad_entry in ["", "ftp://x", "http://h/path", "host/path", "http://u@h"] {
            assert!(CertOrigin::parse(bad_entry).is_err(), "{bad_entry:?}");
        }
    }
}
