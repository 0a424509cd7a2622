//! Operator accounts, their sessions and the audit log over CQL (issue 33). An address is
//! claimed in `operator_emails` by a lightweight transaction before the account is written,
//! so two `create-operator` calls for one address cannot both succeed. The few operators
//! are listed by a scan of their small table. Audit entries live in monthly partitions.
//! A legal text's versions are one partition per document and language, newest first.

use async_trait::async_trait;
use scylla::DeserializeRow;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::{
    AuditEntry, LegalTextRepo, LegalVersion, Operator, OperatorRepo, OperatorRole, OperatorSession, ReportDecision,
    StoreError, StoreResult,
};

/// Seconds per audit partition (30 days).
const BUCKET_SECS: i64 = 2_592_000;
/// How many partitions back an audit read walks (five years).
const KEPT_BUCKETS: i64 = 61;

pub(super) struct Statements {
    claim_email: PreparedStatement,
    insert: PreparedStatement,
    by_email: PreparedStatement,
    by_id: PreparedStatement,
    all: PreparedStatement,
    disable: PreparedStatement,
    insert_session: PreparedStatement,
    session: PreparedStatement,
    revoke_session: PreparedStatement,
    insert_audit: PreparedStatement,
    audit_of_bucket: PreparedStatement,
    decide_report: PreparedStatement,
    report_decisions: PreparedStatement,
    insert_legal: PreparedStatement,
    legal_versions: PreparedStatement,
    use_totp_step: PreparedStatement,
}

const COLUMNS: &str = "operator_id, email, password_hash, role, totp_secret, created_at, disabled_at";

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            use_totp_step: p
                .prepare(
                    "INSERT INTO operator_totp_steps (operator_id, step) VALUES (?, ?) IF NOT EXISTS USING TTL 600",
                    Kind::Conditional,
                )
                .await?,
            claim_email: p
                .prepare(
                    "INSERT INTO operator_emails (email, operator_id) VALUES (?, ?) IF NOT EXISTS",
                    Kind::Conditional,
                )
                .await?,
            insert: p
                .prepare(&format!("INSERT INTO operators ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"), Kind::Idempotent)
                .await?,
            by_email: p.prepare("SELECT operator_id FROM operator_emails WHERE email = ?", Kind::Idempotent).await?,
            by_id: p
                .prepare(&format!("SELECT {COLUMNS} FROM operators WHERE operator_id = ?"), Kind::Idempotent)
                .await?,
            all: p.prepare(&format!("SELECT {COLUMNS} FROM operators"), Kind::Idempotent).await?,
            disable: p.prepare("UPDATE operators SET disabled_at = ? WHERE operator_id = ?", Kind::Idempotent).await?,
            insert_session: p
                .prepare(
                    "INSERT INTO operator_sessions (token_hash, operator_id, created_at, expires_at)
                     VALUES (?, ?, ?, ?) USING TTL ?",
                    Kind::Idempotent,
                )
                .await?,
            session: p
                .prepare(
                    "SELECT token_hash, operator_id, created_at, expires_at FROM operator_sessions
                     WHERE token_hash = ?",
                    Kind::Idempotent,
                )
                .await?,
            revoke_session: p.prepare("DELETE FROM operator_sessions WHERE token_hash = ?", Kind::Idempotent).await?,
            insert_audit: p
                .prepare(
                    "INSERT INTO operator_audit (bucket, entry_id, operator_id, action, target, reason, outcome, at)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            audit_of_bucket: p
                .prepare(
                    "SELECT entry_id, operator_id, action, target, reason, outcome, at FROM operator_audit
                     WHERE bucket = ? AND entry_id < ? LIMIT ?",
                    Kind::Idempotent,
                )
                .await?,
            decide_report: p
                .prepare(
                    "INSERT INTO report_decisions (report_id, decision, operator_id, at) VALUES (?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            report_decisions: p
                .prepare(
                    "SELECT report_id, decision, operator_id, at FROM report_decisions WHERE report_id IN ?",
                    Kind::Idempotent,
                )
                .await?,
            insert_legal: p
                .prepare(
                    "INSERT INTO legal_versions (doc, lang, published_at, last_modified, body, operator_id)
                     VALUES (?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            legal_versions: p
                .prepare(
                    "SELECT doc, lang, published_at, last_modified, body, operator_id FROM legal_versions
                     WHERE doc = ? AND lang = ? LIMIT ?",
                    Kind::Idempotent,
                )
                .await?,
        })
    }
}

#[derive(DeserializeRow)]
struct DecisionRow {
    report_id: i64,
    decision: String,
    operator_id: String,
    at: i64,
}

#[derive(DeserializeRow)]
struct LegalRow {
    doc: String,
    lang: String,
    published_at: i64,
    last_modified: String,
    body: String,
    operator_id: String,
}

#[derive(DeserializeRow)]
struct OperatorRow {
    operator_id: String,
    email: Option<String>,
    password_hash: Option<String>,
    role: Option<String>,
    totp_secret: Option<String>,
    created_at: Option<i64>,
    disabled_at: Option<i64>,
}

impl TryFrom<OperatorRow> for Operator {
    type Error = StoreError;

    fn try_from(row: OperatorRow) -> StoreResult<Self> {
        let role = row.role.unwrap_or_default();
        Ok(Operator {
            role: OperatorRole::parse(&role).ok_or_else(|| StoreError::Corrupt(format!("operator role {role:?}")))?,
            operator_id: row.operator_id,
            email: row.email.unwrap_or_default(),
            password_hash: row.password_hash.unwrap_or_default(),
            totp_secret: row.totp_secret.unwrap_or_default(),
            created_at: row.created_at.unwrap_or_default(),
            disabled_at: row.disabled_at,
        })
    }
}

#[derive(DeserializeRow)]
struct SessionRow {
    token_hash: String,
    operator_id: String,
    created_at: i64,
    expires_at: i64,
}

#[derive(DeserializeRow)]
struct AuditRow {
    entry_id: i64,
    operator_id: String,
    action: String,
    target: String,
    reason: String,
    outcome: String,
    at: i64,
}

/// The partition of an entry, from its id (microseconds × 1000 plus a random part).
fn bucket_of_entry(entry_id: i64) -> i64 {
    entry_id / 1_000_000_000 / BUCKET_SECS
}

#[async_trait]
impl OperatorRepo for CqlStore {
    async fn create_operator(&self, operator: Operator) -> StoreResult<()> {
        let s = &self.statements.operators;
        if !self.conditional(&s.claim_email, (operator.email.as_str(), operator.operator_id.as_str())).await? {
            return Err(StoreError::Conflict("email"));
        }
        let values = (
            operator.operator_id,
            operator.email,
            operator.password_hash,
            operator.role.as_str(),
            operator.totp_secret,
            operator.created_at,
            operator.disabled_at,
        );
        self.run(&s.insert, values).await.map(|_| ())
    }

    async fn operator_by_email(&self, email: &str) -> StoreResult<Option<Operator>> {
        let found: Option<(String,)> = self.first(&self.statements.operators.by_email, (email,)).await?;
        match found {
            Some((operator_id,)) => self.operator_by_id(&operator_id).await,
            None => Ok(None),
        }
    }

    async fn operator_by_id(&self, operator_id: &str) -> StoreResult<Option<Operator>> {
        let row: Option<OperatorRow> = self.first(&self.statements.operators.by_id, (operator_id,)).await?;
        row.map(Operator::try_from).transpose()
    }

    async fn operators(&self) -> StoreResult<Vec<Operator>> {
        let rows: Vec<OperatorRow> = self.paged(&self.statements.operators.all, ()).await?;
        let mut operators = rows.into_iter().map(Operator::try_from).collect::<StoreResult<Vec<_>>>()?;
        operators.sort_by(|a, b| a.email.cmp(&b.email));
        Ok(operators)
    }

    async fn disable_operator(&self, operator_id: &str, at: i64) -> StoreResult<bool> {
        let Some(operator) = self.operator_by_id(operator_id).await? else {
            return Ok(false);
        };
        let since = operator.disabled_at.unwrap_or(at);
        self.run(&self.statements.operators.disable, (since, operator_id)).await?;
        // Its sessions are refused from now on by the disabled flag (the server checks the
        // operator on every request); they also expire by their TTL.
        Ok(true)
    }

    async fn use_totp_step(&self, operator_id: &str, step: i64) -> StoreResult<bool> {
        // A lightweight transaction: two sign-ins with one code on two nodes, one wins.
        self.conditional(&self.statements.operators.use_totp_step, (operator_id, step)).await
    }

    async fn create_operator_session(&self, session: OperatorSession) -> StoreResult<()> {
        let ttl = (session.expires_at - session.created_at).clamp(1, i64::from(i32::MAX)) as i32;
        let values = (session.token_hash, session.operator_id, session.created_at, session.expires_at, ttl);
        self.run(&self.statements.operators.insert_session, values).await.map(|_| ())
    }

    async fn live_operator_session(&self, token_hash: &str, now: i64) -> StoreResult<Option<OperatorSession>> {
        let row: Option<SessionRow> = self.first(&self.statements.operators.session, (token_hash,)).await?;
        Ok(row.filter(|row| row.expires_at > now).map(|row| OperatorSession {
            token_hash: row.token_hash,
            operator_id: row.operator_id,
            created_at: row.created_at,
            expires_at: row.expires_at,
        }))
    }

    async fn revoke_operator_session(&self, token_hash: &str) -> StoreResult<()> {
        self.run(&self.statements.operators.revoke_session, (token_hash,)).await.map(|_| ())
    }

    async fn record_audit(&self, entry: AuditEntry) -> StoreResult<()> {
        let values = (
            bucket_of_entry(entry.entry_id) as i32,
            entry.entry_id,
            entry.operator_id,
            entry.action,
            entry.target,
            entry.reason,
            entry.outcome,
            entry.at,
        );
        self.run(&self.statements.operators.insert_audit, values).await.map(|_| ())
    }

    async fn audit_log(&self, before: Option<i64>, limit: u32) -> StoreResult<Vec<AuditEntry>> {
        let now_micros = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_micros() as i64)
            .unwrap_or(0);
        let before = before.unwrap_or(i64::MAX);
        let newest = bucket_of_entry(before.min(now_micros.saturating_add(1).saturating_mul(1000)));
        let mut entries = Vec::new();
        for bucket in (newest - KEPT_BUCKETS..=newest).rev() {
            let wanted = limit as usize - entries.len();
            if wanted == 0 {
                break;
            }
            let rows: Vec<AuditRow> =
                self.rows(&self.statements.operators.audit_of_bucket, (bucket as i32, before, wanted as i32)).await?;
            entries.extend(rows.into_iter().map(|r| AuditEntry {
                entry_id: r.entry_id,
                operator_id: r.operator_id,
                action: r.action,
                target: r.target,
                reason: r.reason,
                outcome: r.outcome,
                at: r.at,
            }));
        }
        Ok(entries)
    }

    async fn decide_report(&self, decision: ReportDecision) -> StoreResult<()> {
        let values = (decision.report_id, decision.decision, decision.operator_id, decision.at);
        self.run(&self.statements.operators.decide_report, values).await.map(|_| ())
    }

    async fn report_decisions(&self, report_ids: &[i64]) -> StoreResult<Vec<ReportDecision>> {
        let mut found = Vec::new();
        // IN lists stay short: a coordinator fans each one out to the keys' replicas.
        for ids in report_ids.chunks(100) {
            let rows: Vec<DecisionRow> =
                self.rows(&self.statements.operators.report_decisions, (ids.to_vec(),)).await?;
            found.extend(rows.into_iter().map(|r| ReportDecision {
                report_id: r.report_id,
                decision: r.decision,
                operator_id: r.operator_id,
                at: r.at,
            }));
        }
        Ok(found)
    }
}

#[async_trait]
impl LegalTextRepo for CqlStore {
    async fn publish_legal(&self, version: LegalVersion) -> StoreResult<()> {
        let values =
            (version.doc, version.lang, version.published_at, version.last_modified, version.body, version.operator_id);
        self.run(&self.statements.operators.insert_legal, values).await.map(|_| ())
    }

    async fn legal_versions(&self, doc: &str, lang: &str, limit: u32) -> StoreResult<Vec<LegalVersion>> {
        let limit = limit.min(i32::MAX as u32) as i32;
        let rows: Vec<LegalRow> = self.rows(&self.statements.operators.legal_versions, (doc, lang, limit)).await?;
        Ok(rows
            .into_iter()
            .map(|r| LegalVersion {
                doc: r.doc,
                lang: r.lang,
                published_at: r.published_at,
                last_modified: r.last_modified,
                body: r.body,
                operator_id: r.operator_id,
            })
            .collect())
    }
}
