//! Password guessing is slowed per (account, client address), with delays that grow, and
//! never by account alone: a hard per-account lock-out let anyone who knew a user's 8-digit
//! ID lock its owner out for an hour. Now a guesser's address waits longer after each wrong
//! password, while the owner, from an address of their own, signs in as usual. Kept in
//! memory per node like the other limits (`rate_limit`); the address-wide budget there
//! (`limits.password_login_per_ip_per_minute`) still bounds one address trying many IDs.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::api::ApiError;

/// Past this many tracked pairs, pairs with nothing left to wait are forgotten.
const MAX_TRACKED: usize = 100_000;
/// Failures older than this are forgotten on the next tidy-up, however many there were.
const FORGET_AFTER: Duration = Duration::from_secs(24 * 3600);

#[derive(Debug, Clone, Copy)]
pub struct ThrottlePolicy {
    /// Wrong passwords a pair may send before any delay.
    pub free_failures: u32,
    /// The wait after the first failure past the free ones; it doubles with each further one.
    pub first_delay: Duration,
    pub max_delay: Duration,
}

impl ThrottlePolicy {
    /// The wait after `failures` wrong passwords in a row.
    pub fn delay_after(&self, failures: u32) -> Duration {
        if failures < self.free_failures {
            return Duration::ZERO;
        }
        let doublings = (failures - self.free_failures).min(30);
        self.first_delay.saturating_mul(1u32 << doublings).min(self.max_delay)
    }
}

struct Pair {
    failures: u32,
    wait_until: Instant,
    last_failure: Instant,
}

/// One account as tried from one address.
pub type PairKey = (String, IpAddr);

#[derive(Clone)]
pub struct LoginThrottle {
    policy: ThrottlePolicy,
    pairs: Arc<Mutex<HashMap<PairKey, Pair>>>,
}

impl LoginThrottle {
    pub fn new(policy: ThrottlePolicy) -> Self {
        Self { policy, pairs: Arc::default() }
    }

    /// `rateLimited` while this pair must still wait; checked before the password is.
    pub fn check(&self, key: &PairKey) -> Result<(), ApiError> {
        let pairs = self.pairs.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match pairs.get(key) {
            Some(pair) if Instant::now() < pair.wait_until => Err(ApiError::RateLimited),
            _ => Ok(()),
        }
    }

    /// A wrong password from this pair: the next attempt waits `policy.delay_after(failures)`.
    pub fn failed(&self, key: &PairKey) {
        let now = Instant::now();
        let mut pairs = self.pairs.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if pairs.len() >= MAX_TRACKED {
            pairs.retain(|_, pair| pair.wait_until > now && now.duration_since(pair.last_failure) < FORGET_AFTER);
        }
        let pair = pairs.entry(key.clone()).or_insert(Pair { failures: 0, wait_until: now, last_failure: now });
        pair.failures = pair.failures.saturating_add(1);
        pair.last_failure = now;
        pair.wait_until = now + self.policy.delay_after(pair.failures);
    }

    /// The right password: this pair starts afresh.
    pub fn succeeded(&self, key: &PairKey) {
        self.pairs.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> ThrottlePolicy {
        ThrottlePolicy { free_failures: 3, first_delay: Duration::from_secs(2), max_delay: Duration::from_secs(60) }
    }

    #[test]
    fn delays_start_after_the_free_failures_and_double_up_to_the_cap() {
        let delays: Vec<u64> = (0..12).map(|n| policy().delay_after(n).as_secs()).collect();
        assert_eq!(delays, [0, 0, 0, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
        assert_eq!(policy().delay_after(u32::MAX), Duration::from_secs(60));
    }

    #[test]
    fn a_pair_waits_while_other_addresses_of_the_account_do_not() {
        let throttle = LoginThrottle::new(policy());
        let guesser = ("12345678".to_owned(), IpAddr::from([203, 0, 113, 66]));
        let owner = ("12345678".to_owned(), IpAddr::from([198, 51, 100, 1]));
        for _ in 0..3 {
            assert!(throttle.check(&guesser).is_ok());
            throttle.failed(&guesser);
        }
        assert!(matches!(throttle.check(&guesser), Err(ApiError::RateLimited)));
        assert!(throttle.check(&owner).is_ok());
        throttle.succeeded(&guesser);
        assert!(throttle.check(&guesser).is_ok(), "the right password clears the pair");
    }
}
