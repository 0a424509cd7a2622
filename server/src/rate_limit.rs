//! Keyed rate limits (per client address, per account, per email), so that one client
//! cannot flood the telemetry tables, guess passwords, mail-bomb an inbox or keep the chat
//! engine busy answering sends it refuses (`RefusalLimiter`). Kept in
//! memory per node: with N nodes a client spreading its requests gets at most N× the
//! budget, which still bounds every abuse above by a small constant.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix_web::HttpRequest;
use amora_domain::account::UserId;
use governor::clock::DefaultClock;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use crate::api::ApiError;
use crate::auth::throttle::{LoginThrottle, ThrottlePolicy};
use crate::client_address::TrustedProxies;

/// Past this many tracked keys, keys whose budget has refilled are forgotten.
const MAX_TRACKED_KEYS: usize = 100_000;

pub struct KeyedLimiter<K: Hash + Eq + Clone> {
    limiter: Arc<RateLimiter<K, DefaultKeyedStateStore<K>, DefaultClock>>,
}

impl<K: Hash + Eq + Clone> Clone for KeyedLimiter<K> {
    fn clone(&self) -> Self {
        Self { limiter: self.limiter.clone() }
    }
}

impl<K: Hash + Eq + Clone> KeyedLimiter<K> {
    /// `count` requests per `period` per key, all of which may come at once.
    pub fn new(count: u32, period: Duration) -> Self {
        let burst = NonZeroU32::new(count.max(1)).unwrap_or(NonZeroU32::MIN);
        let quota =
            Quota::with_period(period / burst.get()).unwrap_or_else(|| Quota::per_second(burst)).allow_burst(burst);
        Self { limiter: Arc::new(RateLimiter::keyed(quota)) }
    }

    /// Takes one unit for `key`, or answers `rateLimited`.
    pub fn check(&self, key: &K) -> Result<(), ApiError> {
        self.limiter.check_key(key).map_err(|_| ApiError::RateLimited)?;
        if self.limiter.len() > MAX_TRACKED_KEYS {
            self.limiter.retain_recent();
        }
        Ok(())
    }
}

/// Counts what was *refused* per key, and shuts the door on a key for the rest of its
/// window once it was refused `allowed` times (issue 28: twelve accounts resending refused
/// `chatSend`s 93,564 times in 50 s kept the engine, the store and the actors busy refusing
/// them, and none was rate-limited). A key's window opens at its first refusal; sends that
/// are accepted cost nothing here, so an honest user who sees "busy" once in a while never
/// meets the limit. Checking a shut key takes one map lookup.
pub struct RefusalLimiter<K: Hash + Eq + Clone> {
    allowed: u32,
    window: Duration,
    keys: Arc<Mutex<HashMap<K, Refusals>>>,
}

#[derive(Clone, Copy)]
struct Refusals {
    since: Instant,
    count: u32,
}

impl<K: Hash + Eq + Clone> Clone for RefusalLimiter<K> {
    fn clone(&self) -> Self {
        Self { allowed: self.allowed, window: self.window, keys: self.keys.clone() }
    }
}

impl<K: Hash + Eq + Clone> RefusalLimiter<K> {
    /// `allowed` refusals per key within `window` of the first.
    pub fn new(allowed: u32, window: Duration) -> Self {
        Self { allowed: allowed.max(1), window, keys: Arc::default() }
    }

    /// `rateLimited` while `key` used up its refusals in its current window.
    pub fn check(&self, key: &K, now: Instant) -> Result<(), ApiError> {
        let keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        match keys.get(key) {
            Some(refusals)
                if now.saturating_duration_since(refusals.since) < self.window && refusals.count >= self.allowed =>
            {
                Err(ApiError::RateLimited)
            }
            _ => Ok(()),
        }
    }

    /// Counts one refusal of `key`.
    pub fn refused(&self, key: &K, now: Instant) {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        if keys.len() >= MAX_TRACKED_KEYS {
            let window = self.window;
            keys.retain(|_, refusals| now.saturating_duration_since(refusals.since) < window);
        }
        let refusals = keys.entry(key.clone()).or_insert(Refusals { since: now, count: 0 });
        if now.saturating_duration_since(refusals.since) >= self.window {
            *refusals = Refusals { since: now, count: 0 };
        }
        refusals.count = refusals.count.saturating_add(1);
    }
}

/// The client's address: the peer, or what trusted proxies say it is (`client_address`).
pub fn client_address(req: &HttpRequest, proxies: &TrustedProxies) -> IpAddr {
    let peer = req.peer_addr().map_or(IpAddr::from([0, 0, 0, 0]), |addr| addr.ip());
    if proxies.is_empty() {
        return peer;
    }
    let forwarded: Vec<&str> =
        req.headers().get_all("x-forwarded-for").filter_map(|value| value.to_str().ok()).collect();
    proxies.client(peer, &forwarded)
}

/// Every limiter of the node, built from `limits.*`.
#[derive(Clone)]
pub struct Limiters {
    pub trusted_proxies: TrustedProxies,
    /// `/webError` and `/spm`, per address.
    pub reports: KeyedLimiter<IpAddr>,
    pub password_login_by_ip: KeyedLimiter<IpAddr>,
    /// Wrong passwords per (ID, address), with growing waits.
    pub password_guesses: LoginThrottle,
    pub sign_in_links_by_ip: KeyedLimiter<IpAddr>,
    pub sign_in_links_by_email: KeyedLimiter<String>,
    /// Reports of characters and replies, per account.
    pub content_reports_by_user: KeyedLimiter<String>,
    /// The character builder's portrait previews, per address.
    pub portrait_previews_by_ip: KeyedLimiter<IpAddr>,
    /// Refused chat sends (busy, queue full, no credit...) per account and per address:
    /// past them, sends are answered `rateLimited` without reaching the chat engine.
    pub refused_sends_by_user: RefusalLimiter<UserId>,
    pub refused_sends_by_ip: RefusalLimiter<IpAddr>,
    /// `importCard` calls, per account (each may decode a picture and ask moderation).
    pub card_imports_by_user: KeyedLimiter<String>,
    /// Card pictures decoding at once on this node (`creation::card_image`): each may take
    /// up to 128 MiB while it decodes.
    pub card_image_decodes: Arc<tokio::sync::Semaphore>,
}

/// Card pictures decoded at once on a node; more wait their turn.
pub const CARD_IMAGE_DECODES_AT_ONCE: usize = 2;

const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);

impl Limiters {
    pub fn from_settings(limits: &crate::settings::LimitSettings, trusted_proxies: TrustedProxies) -> Self {
        Self {
            trusted_proxies,
            reports: KeyedLimiter::new(limits.reports_per_minute, MINUTE),
            password_login_by_ip: KeyedLimiter::new(limits.password_login_per_ip_per_minute, MINUTE),
            password_guesses: LoginThrottle::new(ThrottlePolicy {
                free_failures: limits.password_login_free_failures,
                first_delay: Duration::from_secs(limits.password_login_first_delay_secs),
                max_delay: Duration::from_secs(limits.password_login_max_delay_secs),
            }),
            sign_in_links_by_ip: KeyedLimiter::new(limits.sign_in_links_per_ip_per_hour, HOUR),
            sign_in_links_by_email: KeyedLimiter::new(limits.sign_in_links_per_email_per_hour, HOUR),
            content_reports_by_user: KeyedLimiter::new(limits.content_reports_per_user_per_hour, HOUR),
            portrait_previews_by_ip: KeyedLimiter::new(limits.portrait_previews_per_minute, MINUTE),
            refused_sends_by_user: RefusalLimiter::new(limits.refused_sends_per_user_per_minute, MINUTE),
            refused_sends_by_ip: RefusalLimiter::new(limits.refused_sends_per_ip_per_minute, MINUTE),
            card_imports_by_user: KeyedLimiter::new(limits.card_imports_per_user_per_minute, MINUTE),
            card_image_decodes: Arc::new(tokio::sync::Semaphore::new(CARD_IMAGE_DECODES_AT_ONCE)),
        }
    }

    pub fn address(&self, req: &HttpRequest) -> IpAddr {
        client_address(req, &self.trusted_proxies)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_after_the_budget_is_refused() {
        let limiter = KeyedLimiter::new(3, HOUR);
        for _ in 0..3 {
            assert!(limiter.check(&"a").is_ok());
        }
        assert!(matches!(limiter.check(&"a"), Err(ApiError::RateLimited)));
        assert!(limiter.check(&"b").is_ok(), "keys have separate budgets");
    }

    #[test]
    fn a_key_refused_too_often_is_shut_until_its_window_ends() {
        let limiter = RefusalLimiter::new(3, MINUTE);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.check(&"a", t0).is_ok());
            limiter.refused(&"a", t0);
        }
        assert!(matches!(limiter.check(&"a", t0 + Duration::from_secs(59)), Err(ApiError::RateLimited)));
        assert!(limiter.check(&"b", t0).is_ok(), "keys have separate counts");
        assert!(limiter.check(&"a", t0 + MINUTE).is_ok(), "a new window opens");
        limiter.refused(&"a", t0 + MINUTE);
        assert!(limiter.check(&"a", t0 + MINUTE).is_ok(), "counted afresh");
    }
}
