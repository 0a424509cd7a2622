//! The account and sign-in repositories: users, sessions, one-time sign-in links, the
//! blocks that keep a deleted account's email from registering again, and suspensions.

use amora_domain::account::{EmailAddress, User, UserId, UserNo};
use amora_domain::gender::Gender;
use async_trait::async_trait;

use crate::StoreResult;

/// A new account's fields; the store fills in the defaults of the rest.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub user_id: UserId,
    pub user_no: UserNo,
    pub user_name: String,
    pub email: Option<EmailAddress>,
    pub discord_email: Option<EmailAddress>,
    pub google_subject: Option<String>,
    pub discord_id: Option<String>,
    pub utm_source: String,
    pub language: String,
    pub created_at: i64,
}

/// One change to an account.
#[derive(Debug, Clone)]
pub enum UserChange {
    Profile { user_name: Option<String>, user_avatar: Option<String> },
    Preferences { interested_gender: Option<Gender>, nsfw: Option<bool>, language: Option<String> },
    PasswordHash(String),
    VipType(i64),
    LinkGoogle { subject: String },
    LinkDiscord { discord_id: String, discord_email: Option<EmailAddress> },
}

/// Accounts, unique by id, `userNo`, email and provider identities.
#[async_trait]
pub trait UserRepo: Send + Sync {
    /// Creates the account, or `Conflict("email")` / `Conflict("userNo")` / … when taken.
    async fn create(&self, user: NewUser) -> StoreResult<User>;
    async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>>;
    async fn by_email(&self, email: &EmailAddress) -> StoreResult<Option<User>>;
    async fn by_user_no(&self, user_no: &UserNo) -> StoreResult<Option<User>>;
    async fn by_google_subject(&self, subject: &str) -> StoreResult<Option<User>>;
    async fn by_discord_id(&self, discord_id: &str) -> StoreResult<Option<User>>;
    /// Applies the change and returns the account as it now is (`None` when it is gone).
    async fn update(&self, id: &UserId, change: UserChange) -> StoreResult<Option<User>>;
    /// Deletes the account and everything that is only its own (sessions, conversations,
    /// generated images with their media and feed entries included).
    async fn delete(&self, id: &UserId) -> StoreResult<bool>;
}

/// A signed-in session. Only the SHA-256 of its token is stored, so a copy of the
/// database cannot be used to sign in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub token_hash: String,
    pub user_id: UserId,
    pub created_at: i64,
    pub expires_at: i64,
}

#[async_trait]
pub trait SessionRepo: Send + Sync {
    async fn create(&self, session: SessionRecord) -> StoreResult<()>;
    /// The session, if it exists and has not expired at `now`.
    async fn find_live(&self, token_hash: &str, now: i64) -> StoreResult<Option<SessionRecord>>;
    async fn revoke(&self, token_hash: &str) -> StoreResult<()>;
    async fn revoke_all(&self, user_id: &UserId) -> StoreResult<()>;
    /// Revokes every session of the user except `keep_hash` (a password change keeps the
    /// session it was made in).
    async fn revoke_others(&self, user_id: &UserId, keep_hash: &str) -> StoreResult<()>;
    /// The user's sessions live at `now`, oldest first (the operator console lists them).
    async fn live_sessions(&self, user_id: &UserId, now: i64) -> StoreResult<Vec<SessionRecord>>;
}

/// One-time sign-in links sent by mail (hash of the token, as for sessions).
#[async_trait]
pub trait SignInLinkRepo: Send + Sync {
    async fn create(&self, token_hash: &str, email: &EmailAddress, expires_at: i64) -> StoreResult<()>;
    /// Uses the link: its email if it existed, was unused and live at `now`. Works once.
    async fn consume(&self, token_hash: &str, now: i64) -> StoreResult<Option<EmailAddress>>;
}

/// Emails whose account was deleted recently and may not register again until a time.
#[async_trait]
pub trait DeletionBlockRepo: Send + Sync {
    async fn block(&self, email: &EmailAddress, until: i64) -> StoreResult<()>;
    /// When the block ends, if one is in force at `now`.
    async fn blocked_until(&self, email: &EmailAddress, now: i64) -> StoreResult<Option<i64>>;
}

/// Accounts an operator suspended: they cannot sign in until the suspension is lifted.
#[async_trait]
pub trait SuspensionRepo: Send + Sync {
    /// Suspends the account from `since` (seconds); suspending again keeps the first time.
    async fn suspend(&self, user_id: &UserId, since: i64) -> StoreResult<()>;
    /// Lifts the suspension; true when there was one.
    async fn lift(&self, user_id: &UserId) -> StoreResult<bool>;
    /// Since when the account is suspended, if it is.
    async fn suspended_since(&self, user_id: &UserId) -> StoreResult<Option<i64>>;
}
