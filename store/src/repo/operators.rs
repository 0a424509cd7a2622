//! The operator console's repository (issue 33): operator accounts (separate from users,
//! created only by `amora admin create-operator`), their sessions, and the audit log of
//! every console action.

use async_trait::async_trait;

use crate::StoreResult;

/// What an operator may do: a moderator works the queues and suspensions, an admin
/// everything (users, money, content).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperatorRole {
    Moderator,
    Admin,
}

impl OperatorRole {
    pub fn as_str(self) -> &'static str {
        match self {
            OperatorRole::Moderator => "moderator",
            OperatorRole::Admin => "admin",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "moderator" => Some(OperatorRole::Moderator),
            "admin" => Some(OperatorRole::Admin),
            _ => None,
        }
    }
}

/// An operator account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operator {
    pub operator_id: String,
    /// Lower-cased; unique among operators.
    pub email: String,
    /// Argon2id, as users' passwords.
    pub password_hash: String,
    pub role: OperatorRole,
    /// The TOTP secret, base32 (RFC 4648, no padding), as authenticator apps take it.
    pub totp_secret: String,
    /// Seconds since the epoch.
    pub created_at: i64,
    /// Set when disabled: the operator can no longer sign in, and its sessions end.
    pub disabled_at: Option<i64>,
}

/// A signed-in operator's session; the browser holds the token, the store its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorSession {
    pub token_hash: String,
    pub operator_id: String,
    pub created_at: i64,
    pub expires_at: i64,
}

/// One line of the audit log: who did what to which target, when, why, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Time-ordered and unique (microseconds × 1000 plus a random part), newest highest.
    pub entry_id: i64,
    pub operator_id: String,
    /// The console route, e.g. `refund`, `character/hide`, `signIn`.
    pub action: String,
    /// What it acted on (`user 12345678`, `order ord_…`, …); empty when nothing.
    pub target: String,
    pub reason: String,
    /// `ok` or the refusal, e.g. `403 forbidden`, `409 …`.
    pub outcome: String,
    /// Seconds since the epoch.
    pub at: i64,
}

/// What an operator decided on a report: `dismissed` (nothing wrong) or `actioned` (the
/// character hidden or the image removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportDecision {
    /// The report's id (`EntryId` as i64).
    pub report_id: i64,
    /// `dismissed` or `actioned`.
    pub decision: String,
    pub operator_id: String,
    /// Seconds since the epoch.
    pub at: i64,
}

/// One published version of a legal text in one language. The user app shows the newest
/// one of a document, over the text it was built with; older ones are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegalVersion {
    /// The document key, e.g. `termsOfService`.
    pub doc: String,
    pub lang: String,
    /// The date the text shows as last modified, `YYYY-MM-DD`.
    pub last_modified: String,
    /// The text: the JSON object of the `legal` namespace's `docs.<doc>`.
    pub body: String,
    pub operator_id: String,
    /// When it was published, seconds since the epoch; orders the versions.
    pub published_at: i64,
}

#[async_trait]
pub trait OperatorRepo: Send + Sync {
    /// `Conflict("email")` when an operator has the address already.
    async fn create_operator(&self, operator: Operator) -> StoreResult<()>;
    async fn operator_by_email(&self, email: &str) -> StoreResult<Option<Operator>>;
    async fn operator_by_id(&self, operator_id: &str) -> StoreResult<Option<Operator>>;
    /// Every operator, by email.
    async fn operators(&self) -> StoreResult<Vec<Operator>>;
    /// Disables an operator and ends its sessions; false when there is none.
    async fn disable_operator(&self, operator_id: &str, at: i64) -> StoreResult<bool>;
    async fn create_operator_session(&self, session: OperatorSession) -> StoreResult<()>;
    async fn live_operator_session(&self, token_hash: &str, now: i64) -> StoreResult<Option<OperatorSession>>;
    async fn revoke_operator_session(&self, token_hash: &str) -> StoreResult<()>;
    async fn record_audit(&self, entry: AuditEntry) -> StoreResult<()>;
    /// Newest first, entries older than `before` (an `entry_id`) when given.
    async fn audit_log(&self, before: Option<i64>, limit: u32) -> StoreResult<Vec<AuditEntry>>;
    /// Writes (or replaces) the decision on a report.
    async fn decide_report(&self, decision: ReportDecision) -> StoreResult<()>;
    /// The decisions on these reports; reports without one are left out.
    async fn report_decisions(&self, report_ids: &[i64]) -> StoreResult<Vec<ReportDecision>>;
    /// Takes the operator's TOTP time step `step` (Unix time / 30) as used: true the first
    /// time, false ever after, so one code signs in once (RFC 6238 section 5.2: the verifier
    /// must not accept a second attempt of the same code). A step is remembered for at least
    /// ten minutes, longer than a code is accepted.
    async fn use_totp_step(&self, operator_id: &str, step: i64) -> StoreResult<bool>;
}

/// The legal texts' published versions (issue 33), written by the operator console and read
/// by everyone.
#[async_trait]
pub trait LegalTextRepo: Send + Sync {
    async fn publish_legal(&self, version: LegalVersion) -> StoreResult<()>;
    /// A document's versions in a language, newest first, at most `limit`.
    async fn legal_versions(&self, doc: &str, lang: &str, limit: u32) -> StoreResult<Vec<LegalVersion>>;
}
