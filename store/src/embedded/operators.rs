//! Operator accounts, their sessions, the audit log, report decisions and the legal texts'
//! versions in SQLite (issue 33).

use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};

use super::EmbeddedStore;
use crate::{
    AuditEntry, LegalTextRepo, LegalVersion, Operator, OperatorRepo, OperatorRole, OperatorSession, ReportDecision,
    StoreError, StoreResult,
};

/// How many 30-second steps a used TOTP step is remembered for (ten minutes).
const TOTP_STEPS_KEPT: i64 = 20;

const OPERATOR_COLUMNS: &str = "operator_id, email, password_hash, role, totp_secret, created_at, disabled_at";

fn operator_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(Operator, String)> {
    let role: String = row.get(3)?;
    Ok((
        Operator {
            operator_id: row.get(0)?,
            email: row.get(1)?,
            password_hash: row.get(2)?,
            role: OperatorRole::Moderator,
            totp_secret: row.get(4)?,
            created_at: row.get(5)?,
            disabled_at: row.get(6)?,
        },
        role,
    ))
}

/// The role column read back; an unknown one is corrupt data, never a guess.
fn with_role((mut operator, role): (Operator, String)) -> StoreResult<Operator> {
    operator.role = OperatorRole::parse(&role).ok_or_else(|| StoreError::Corrupt(format!("operator role {role:?}")))?;
    Ok(operator)
}

#[async_trait]
impl OperatorRepo for EmbeddedStore {
    async fn create_operator(&self, operator: Operator) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO operators (operator_id, email, password_hash, role, totp_secret, created_at, disabled_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                operator.operator_id,
                operator.email,
                operator.password_hash,
                operator.role.as_str(),
                operator.totp_secret,
                operator.created_at,
                operator.disabled_at,
            ])?;
            Ok(())
        })
        .await
    }

    async fn operator_by_email(&self, email: &str) -> StoreResult<Option<Operator>> {
        let email = email.to_owned();
        self.with_conn(move |conn| {
            let found = conn
                .prepare_cached(&format!("SELECT {OPERATOR_COLUMNS} FROM operators WHERE email = ?1"))?
                .query_row(params![email], operator_row)
                .optional()?;
            found.map(with_role).transpose()
        })
        .await
    }

    async fn operator_by_id(&self, operator_id: &str) -> StoreResult<Option<Operator>> {
        let operator_id = operator_id.to_owned();
        self.with_conn(move |conn| {
            let found = conn
                .prepare_cached(&format!("SELECT {OPERATOR_COLUMNS} FROM operators WHERE operator_id = ?1"))?
                .query_row(params![operator_id], operator_row)
                .optional()?;
            found.map(with_role).transpose()
        })
        .await
    }

    async fn operators(&self) -> StoreResult<Vec<Operator>> {
        self.with_conn(move |conn| {
            let mut statement =
                conn.prepare_cached(&format!("SELECT {OPERATOR_COLUMNS} FROM operators ORDER BY email"))?;
            let rows = statement.query_map([], operator_row)?.collect::<Result<Vec<_>, _>>()?;
            rows.into_iter().map(with_role).collect()
        })
        .await
    }

    async fn disable_operator(&self, operator_id: &str, at: i64) -> StoreResult<bool> {
        let operator_id = operator_id.to_owned();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let changed = tx
                .prepare_cached("UPDATE operators SET disabled_at = COALESCE(disabled_at, ?2) WHERE operator_id = ?1")?
                .execute(params![operator_id, at])?;
            tx.prepare_cached("DELETE FROM operator_sessions WHERE operator_id = ?1")?.execute(params![operator_id])?;
            tx.commit()?;
            Ok(changed > 0)
        })
        .await
    }

    async fn use_totp_step(&self, operator_id: &str, step: i64) -> StoreResult<bool> {
        let operator_id = operator_id.to_owned();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            // Steps more than ten minutes old can never match again: forgotten here.
            tx.prepare_cached("DELETE FROM operator_totp_steps WHERE operator_id = ?1 AND step < ?2")?
                .execute(params![operator_id, step - TOTP_STEPS_KEPT])?;
            let taken = tx
                .prepare_cached("INSERT OR IGNORE INTO operator_totp_steps (operator_id, step) VALUES (?1, ?2)")?
                .execute(params![operator_id, step])?;
            tx.commit()?;
            Ok(taken == 1)
        })
        .await
    }

    async fn create_operator_session(&self, session: OperatorSession) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO operator_sessions (token_hash, operator_id, created_at, expires_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                session.token_hash,
                session.operator_id,
                session.created_at,
                session.expires_at
            ])?;
            Ok(())
        })
        .await
    }

    async fn live_operator_session(&self, token_hash: &str, now: i64) -> StoreResult<Option<OperatorSession>> {
        let token_hash = token_hash.to_owned();
        self.with_conn(move |conn| {
            Ok(conn
                .prepare_cached(
                    "SELECT token_hash, operator_id, created_at, expires_at FROM operator_sessions
                     WHERE token_hash = ?1 AND expires_at > ?2",
                )?
                .query_row(params![token_hash, now], |row| {
                    Ok(OperatorSession {
                        token_hash: row.get(0)?,
                        operator_id: row.get(1)?,
                        created_at: row.get(2)?,
                        expires_at: row.get(3)?,
                    })
                })
                .optional()?)
        })
        .await
    }

    async fn revoke_operator_session(&self, token_hash: &str) -> StoreResult<()> {
        let token_hash = token_hash.to_owned();
        self.with_conn(move |conn| {
            conn.prepare_cached("DELETE FROM operator_sessions WHERE token_hash = ?1")?.execute(params![token_hash])?;
            Ok(())
        })
        .await
    }

    async fn record_audit(&self, entry: AuditEntry) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO operator_audit (entry_id, operator_id, action, target, reason, outcome, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                entry.entry_id,
                entry.operator_id,
                entry.action,
                entry.target,
                entry.reason,
                entry.outcome,
                entry.at,
            ])?;
            Ok(())
        })
        .await
    }

    async fn audit_log(&self, before: Option<i64>, limit: u32) -> StoreResult<Vec<AuditEntry>> {
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT entry_id, operator_id, action, target, reason, outcome, at FROM operator_audit
                 WHERE entry_id < ?1 ORDER BY entry_id DESC LIMIT ?2",
            )?;
            let rows = statement.query_map(params![before.unwrap_or(i64::MAX), limit], |row| {
                Ok(AuditEntry {
                    entry_id: row.get(0)?,
                    operator_id: row.get(1)?,
                    action: row.get(2)?,
                    target: row.get(3)?,
                    reason: row.get(4)?,
                    outcome: row.get(5)?,
                    at: row.get(6)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    async fn decide_report(&self, decision: ReportDecision) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO report_decisions (report_id, decision, operator_id, at) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![decision.report_id, decision.decision, decision.operator_id, decision.at])?;
            Ok(())
        })
        .await
    }

    async fn report_decisions(&self, report_ids: &[i64]) -> StoreResult<Vec<ReportDecision>> {
        let report_ids = report_ids.to_vec();
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT report_id, decision, operator_id, at FROM report_decisions WHERE report_id = ?1",
            )?;
            let mut found = Vec::new();
            for report_id in report_ids {
                let row = statement
                    .query_row(params![report_id], |row| {
                        Ok(ReportDecision {
                            report_id: row.get(0)?,
                            decision: row.get(1)?,
                            operator_id: row.get(2)?,
                            at: row.get(3)?,
                        })
                    })
                    .optional()?;
                found.extend(row);
            }
            Ok(found)
        })
        .await
    }
}

#[async_trait]
impl LegalTextRepo for EmbeddedStore {
    async fn publish_legal(&self, version: LegalVersion) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO legal_versions (doc, lang, published_at, last_modified, body, operator_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                version.doc,
                version.lang,
                version.published_at,
                version.last_modified,
                version.body,
                version.operator_id,
            ])?;
            Ok(())
        })
        .await
    }

    async fn legal_versions(&self, doc: &str, lang: &str, limit: u32) -> StoreResult<Vec<LegalVersion>> {
        let (doc, lang) = (doc.to_owned(), lang.to_owned());
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT doc, lang, published_at, last_modified, body, operator_id FROM legal_versions
                 WHERE doc = ?1 AND lang = ?2 ORDER BY published_at DESC LIMIT ?3",
            )?;
            let rows = statement.query_map(params![doc, lang, limit], |row| {
                Ok(LegalVersion {
                    doc: row.get(0)?,
                    lang: row.get(1)?,
                    published_at: row.get(2)?,
                    last_modified: row.get(3)?,
                    body: row.get(4)?,
                    operator_id: row.get(5)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }
}
