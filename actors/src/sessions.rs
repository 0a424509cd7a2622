//! Sessions this node has seen live, so that a request signs in without a store read and,
//! for the catalogue, without a message to the user's actor (issue 35: the encrypted API
//! made ~7 context switches a request against ~5 for a plain handler, the session's read
//! and the account's round trip through the registry and the user's actor among them).
//!
//! What is kept never outlives what ends a session (docs/security.md "Sessions held in
//! memory"):
//!
//! - Ending sessions (`auth::session::end`: sign-out, a password change, suspension,
//!   deletion) writes the store first, then forgets the user's sessions here at once and
//!   tells every node (`UserNotice::SessionsEnded`), whose registry forgets them on
//!   delivery; a changed account (`UserNotice::AccountChanged`) is forgotten too.
//! - News may be missed while the bus is down: nothing is answered from here while the bus
//!   says it is unhealthy, everything is forgotten when it comes back (`Delivery::Resync`),
//!   and an entry is read from the store again [`RECHECK_AFTER`] after it was read
//!   whatever the bus says, which bounds a revocation a silently lost notice would hide.
//! - An entry ends at its session's expiry.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use amora_domain::account::UserId;

/// How long an entry answers before the session is read from the store again.
pub const RECHECK_AFTER: Duration = Duration::from_secs(30);

/// At most this many sessions are kept; past it everything is forgotten (a node this busy
/// reads each active session once more, which is what it did for every request before).
const MAX_SESSIONS: usize = 100_000;

/// A live session as this node last read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownSession {
    pub user_id: UserId,
    /// When the account was created (seconds): how the catalogue treats its viewer. It
    /// never changes.
    pub account_created_at: i64,
    /// When the session expires (seconds).
    pub expires_at: i64,
}

struct Entry {
    session: KnownSession,
    read_at: Instant,
}

/// The node's sessions, by the hash of their token.
#[derive(Default)]
pub struct SessionCache {
    inner: RwLock<Inner>,
}

#[derive(Default)]
struct Inner {
    /// By the token's SHA-256 as bytes: 32 inline rather than 64 hex characters on the
    /// heap (~56 bytes of each signed-in user's share of memory, issue 35).
    entries: HashMap<[u8; 32], Entry>,
    /// Counts what was forgotten: a session read from the store while something was
    /// forgotten may have ended after the read, and is not kept.
    generation: u64,
}

/// The 32 bytes of a token's hash as `auth::token_hash` writes it (64 hexadecimal digits);
/// `None` for anything else, which is then never kept.
fn key(token_hash: &str) -> Option<[u8; 32]> {
    let digits = token_hash.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let mut key = [0u8; 32];
    for (byte, pair) in key.iter_mut().zip(digits.chunks_exact(2)) {
        let text = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(text, 16).ok()?;
    }
    Some(key)
}

impl SessionCache {
    /// The session of `token_hash` if it was read live less than [`RECHECK_AFTER`] ago and
    /// has not expired at `now` (seconds). The caller answers from it only while the bus
    /// is healthy (`EventBus::is_healthy`).
    pub fn get(&self, token_hash: &str, now: i64) -> Option<KnownSession> {
        let key = key(token_hash)?;
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        let entry = inner.entries.get(&key)?;
        (entry.read_at.elapsed() < RECHECK_AFTER && entry.session.expires_at > now).then(|| entry.session.clone())
    }

    /// What to pass to [`SessionCache::keep`] for a session about to be read from the store.
    pub fn generation(&self) -> u64 {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).generation
    }

    /// Keeps a session read live from the store, unless anything was forgotten since
    /// `generation` was taken before the read (the session may have ended after it).
    pub fn keep(&self, token_hash: &str, session: KnownSession, generation: u64) {
        let Some(key) = key(token_hash) else { return };
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        if inner.generation != generation {
            return;
        }
        if inner.entries.len() >= MAX_SESSIONS && !inner.entries.contains_key(&key) {
            inner.entries.clear();
        }
        inner.entries.insert(key, Entry { session, read_at: Instant::now() });
    }

    /// Forgets every session of `user_id` (their sessions ended, or the account changed).
    pub fn forget_user(&self, user_id: &UserId) {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        inner.generation += 1;
        inner.entries.retain(|_, entry| entry.session.user_id != *user_id);
    }

    /// Forgets the sessions that can no longer answer (read [`RECHECK_AFTER`] ago or
    /// more, or expired), and gives back the table's room once most of it is empty: a
    /// hundred thousand users who came and went no longer hold ~150 bytes each here
    /// (issue 35). Nothing answered changes, so this is not a forgetting that
    /// [`SessionCache::keep`] must hear of.
    pub fn forget_stale(&self, now: i64) {
        self.forget_read_before(RECHECK_AFTER, now);
    }

    fn forget_read_before(&self, age: Duration, now: i64) {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        inner.entries.retain(|_, entry| entry.read_at.elapsed() < age && entry.session.expires_at > now);
        if inner.entries.capacity() > 4 * inner.entries.len().max(64) {
            inner.entries.shrink_to_fit();
        }
    }

    /// Forgets everything (the bus is back and news may have been missed).
    pub fn clear(&self) {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        inner.generation += 1;
        inner.entries.clear();
    }

    pub fn len(&self) -> usize {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(n: u32) -> UserId {
        UserId::parse(&format!("u{n:08}")).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A token hash as `auth::token_hash` writes it: 64 hexadecimal digits.
    fn hash(name: &str) -> String {
        format!("{:0>64}", name.bytes().map(|b| format!("{b:02x}")).collect::<String>())
    }

    fn session(n: u32, expires_at: i64) -> KnownSession {
        KnownSession { user_id: user(n), account_created_at: 100, expires_at }
    }

    #[test]
    fn only_a_token_hash_is_kept() {
        let cache = SessionCache::default();
        cache.keep("not-a-hash", session(1, 1_000), cache.generation());
        cache.keep(&"g".repeat(64), session(1, 1_000), cache.generation());
        assert!(cache.is_empty());
        let real = "ab".repeat(32);
        cache.keep(&real, session(1, 1_000), cache.generation());
        assert_eq!(cache.get(&real, 0), Some(session(1, 1_000)));
        assert_eq!(cache.get(&"AB".repeat(32), 0), Some(session(1, 1_000)), "the same bytes");
    }

    #[test]
    fn a_kept_session_answers_until_it_expires_or_its_user_is_forgotten() {
        let cache = SessionCache::default();
        for (name, n) in [("a", 1), ("b", 1), ("c", 2)] {
            cache.keep(&hash(name), session(n, 1_000), cache.generation());
        }
        assert_eq!(cache.get(&hash("a"), 999), Some(session(1, 1_000)));
        assert_eq!(cache.get(&hash("a"), 1_000), None, "expired");
        assert_eq!(cache.get(&hash("x"), 0), None);
        cache.forget_user(&user(1));
        assert_eq!((cache.get(&hash("a"), 0), cache.get(&hash("b"), 0)), (None, None));
        assert_eq!(cache.get(&hash("c"), 0), Some(session(2, 1_000)));
        cache.clear();
        assert!(cache.is_empty());
    }

    #[test]
    fn sessions_that_can_no_longer_answer_are_given_back() {
        let cache = SessionCache::default();
        for n in 0..1_000 {
            cache.keep(&hash(&format!("s{n}")), session(n, if n % 2 == 0 { 1_000 } else { 5_000 }), cache.generation());
        }
        let room = cache.inner.read().unwrap_or_else(|e| e.into_inner()).entries.capacity();
        cache.forget_stale(2_000);
        assert_eq!(cache.len(), 500, "the expired half is forgotten, the rest still answers");
        assert_eq!(cache.get(&hash("s1"), 2_000), Some(session(1, 5_000)));
        cache.forget_read_before(Duration::ZERO, 2_000);
        assert!(cache.is_empty(), "read too long ago");
        let now_room = cache.inner.read().unwrap_or_else(|e| e.into_inner()).entries.capacity();
        assert!(now_room < room / 4, "the table's room is given back: {room} -> {now_room}");
    }

    #[test]
    fn a_session_read_while_sessions_were_forgotten_is_not_kept() {
        let cache = SessionCache::default();
        let before_the_read = cache.generation();
        cache.forget_user(&user(1));
        cache.keep(&hash("a"), session(1, 1_000), before_the_read);
        assert_eq!(cache.get(&hash("a"), 0), None, "it may have ended after the read");
        cache.keep(&hash("a"), session(1, 1_000), cache.generation());
        assert_eq!(cache.get(&hash("a"), 0), Some(session(1, 1_000)));
    }
}
