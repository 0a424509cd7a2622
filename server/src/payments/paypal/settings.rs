//! PayPal's settings (`[payments.paypal]`): the REST app's keys, the webhook id, the plan
//! ids the operator made, where webhook certificates may come from, and timeouts.

use amora_domain::payment::PlanPeriod;
use serde::Deserialize;

/// PayPal's live REST API.
pub const LIVE_API_BASE: &str = "https://api-m.paypal.com";
/// PayPal's sandbox REST API (test accounts, no money moves).
pub const SANDBOX_API_BASE: &str = "https://api-m.sandbox.paypal.com";
/// The hosts PayPal serves its webhook-signing certificates from, live and sandbox.
pub const PAYPAL_CERT_HOSTS: [&str; 4] =
    ["api.paypal.com", "api.sandbox.paypal.com", "api-m.paypal.com", "api-m.sandbox.paypal.com"];

/// `[payments.paypal]`. An empty `client_id` turns PayPal off.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PaypalSettings {
    /// The REST app's client id; empty = PayPal is off.
    pub client_id: String,
    /// The REST app's secret. Never logged, never in an error.
    pub client_secret: String,
    /// The id of the webhook registered for Amora's notification URL; PayPal signs it into
    /// every notification, so a notification meant for another webhook does not verify.
    pub webhook_id: String,
    /// `https://api-m.paypal.com` (live, the default) or `https://api-m.sandbox.paypal.com`.
    pub api_base: String,
    /// PayPal billing plan ids (`P-…`) per plan period, made by the operator (module docs).
    pub plan_ids: PaypalPlanIds,
    /// Where webhook certificates may be fetched from: a host name (https on port 443) or an
    /// origin `scheme://host[:port]`. Defaults to PayPal's four API hosts, https only; tests
    /// name their loopback origin here, which is never a default.
    pub cert_hosts: Vec<String>,
    /// A PEM file of the CAs a webhook certificate must chain to; empty = the Mozilla root
    /// set bundled in the binary (PayPal's certificates are issued by DigiCert).
    pub cert_ca_file: String,
    /// The name the buyer sees on PayPal's pages.
    pub brand_name: String,
    /// How old a notification's `paypal-transmission-time` may be, in seconds (also how far
    /// in the future, for clock skew). See `check_fresh` for why.
    pub replay_window_secs: u64,
    /// Every call to PayPal (and every certificate fetch) gives up after this long.
    pub timeout_secs: u64,
}

impl Default for PaypalSettings {
    fn default() -> Self {
        Self {
            client_id: String::new(),
            client_secret: String::new(),
            webhook_id: String::new(),
            api_base: LIVE_API_BASE.to_owned(),
            plan_ids: PaypalPlanIds::default(),
            cert_hosts: PAYPAL_CERT_HOSTS.iter().map(|host| (*host).to_owned()).collect(),
            cert_ca_file: String::new(),
            brand_name: "Amora".to_owned(),
            // PayPal retries a webhook for up to three days; a replay inside that window is
            // harmless (a payment is claimed once by its id), so only older ones are refused.
            replay_window_secs: 3 * 86_400,
            timeout_secs: 20,
        }
    }
}

impl PaypalSettings {
    pub fn is_configured(&self) -> bool {
        !self.client_id.trim().is_empty()
    }
}

/// The secret stays out of `{:?}` (settings are logged at start-up).
impl std::fmt::Debug for PaypalSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaypalSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &if self.client_secret.is_empty() { "" } else { "[redacted]" })
            .field("webhook_id", &self.webhook_id)
            .field("api_base", &self.api_base)
            .field("plan_ids", &self.plan_ids)
            .field("cert_hosts", &self.cert_hosts)
            .field("cert_ca_file", &self.cert_ca_file)
            .field("brand_name", &self.brand_name)
            .field("replay_window_secs", &self.replay_window_secs)
            .field("timeout_secs", &self.timeout_secs)
            .finish()
    }
}

/// PayPal billing plan ids per period; empty = that period is not sold through PayPal.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PaypalPlanIds {
    pub month: String,
    pub quarter: String,
    pub year: String,
}

impl PaypalPlanIds {
    pub fn for_period(&self, period: PlanPeriod) -> &str {
        match period {
            PlanPeriod::Month => &self.month,
            PlanPeriod::Quarter => &self.quarter,
            PlanPeriod::Year => &self.year,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_stays_out_of_debug_output() {
        let settings = PaypalSettings { client_secret: "EKm-very-secret".into(), ..PaypalSettings::default() };
        let shown = format!("{settings:?}");
        assert!(!shown.contains("EKm-very-secret") && shown.contains("[redacted]"), "{shown}");
    }
}
