//! Per-client-address rate limits, so that one browser (or one script) cannot flood the
//! telemetry tables. Kept in memory per node: a limit is a courtesy to the store, not a
//! security boundary, so a client spreading over nodes getting N× the rate is acceptable.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use actix_web::HttpRequest;
use governor::clock::DefaultClock;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use crate::api::ApiError;

#[derive(Clone)]
pub struct AddressLimiter {
    limiter: Arc<RateLimiter<IpAddr, DefaultKeyedStateStore<IpAddr>, DefaultClock>>,
    trust_forwarded_for: bool,
}

impl AddressLimiter {
    pub fn per_minute(per_minute: NonZeroU32, trust_forwarded_for: bool) -> Self {
        Self { limiter: Arc::new(RateLimiter::keyed(Quota::per_minute(per_minute))), trust_forwarded_for }
    }

    /// Takes one unit for the request's client address, or answers `rateLimited`.
    pub fn check(&self, req: &HttpRequest) -> Result<(), ApiError> {
        let address = client_address(req, self.trust_forwarded_for);
        self.limiter.check_key(&address).map_err(|_| ApiError::RateLimited)?;
        // Forget addresses whose budget has refilled so the map stays bounded.
        if self.limiter.len() > 100_000 {
            self.limiter.retain_recent();
        }
        Ok(())
    }
}

/// The client's address: the peer, or the first `X-Forwarded-For` hop behind a trusted proxy.
pub fn client_address(req: &HttpRequest, trust_forwarded_for: bool) -> IpAddr {
    let forwarded = trust_forwarded_for
        .then(|| req.connection_info().realip_remote_addr().and_then(|text| text.parse::<IpAddr>().ok()))
        .flatten();
    forwarded.or_else(|| req.peer_addr().map(|addr| addr.ip())).unwrap_or(IpAddr::from([0, 0, 0, 0]))
}
