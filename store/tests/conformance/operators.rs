//! The operator console's store (issue 33): operator accounts with one address each,
//! sessions that end, TOTP steps used once, the audit log newest first, decisions on reports, and the legal
//! texts' versions kept newest first.

use amora_store::{AuditEntry, LegalVersion, Operator, OperatorRole, OperatorSession, ReportDecision, StoreError};

use crate::backend;

fn operator(id: &str, email: &str, role: OperatorRole) -> Operator {
    Operator {
        operator_id: id.into(),
        email: email.into(),
        password_hash: "hash".into(),
        role,
        totp_secret: "JBSWY3DPEHPK3PXP".into(),
        created_at: 1_763_900_000,
        disabled_at: None,
    }
}

#[tokio::test]
async fn an_address_is_one_operator_and_a_disabled_one_keeps_its_row() {
    let (store, _guard) = backend::fresh().await;
    let ops = &store.operators;
    ops.create_operator(operator("op1", "ann@example.com", OperatorRole::Admin)).await.unwrap();
    let again = ops.create_operator(operator("op2", "ann@example.com", OperatorRole::Moderator)).await;
    assert!(matches!(again, Err(StoreError::Conflict("email"))), "{again:?}");
    ops.create_operator(operator("op3", "bob@example.com", OperatorRole::Moderator)).await.unwrap();

    let ann = ops.operator_by_email("ann@example.com").await.unwrap().unwrap();
    assert_eq!((ann.operator_id.as_str(), ann.role), ("op1", OperatorRole::Admin));
    let emails: Vec<String> = ops.operators().await.unwrap().into_iter().map(|o| o.email).collect();
    assert_eq!(emails, ["ann@example.com", "bob@example.com"]);

    assert!(ops.disable_operator("op3", 1_763_900_100).await.unwrap());
    assert!(!ops.disable_operator("nobody", 1_763_900_100).await.unwrap());
    assert_eq!(ops.operator_by_id("op3").await.unwrap().unwrap().disabled_at, Some(1_763_900_100));
}

#[tokio::test]
async fn a_session_is_live_until_it_expires_or_is_revoked() {
    let (store, _guard) = backend::fresh().await;
    let ops = &store.operators;
    ops.create_operator(operator("op1", "ann@example.com", OperatorRole::Admin)).await.unwrap();
    let now = 1_763_900_000;
    let session = OperatorSession {
        token_hash: "h1".into(),
        operator_id: "op1".into(),
        created_at: now,
        expires_at: now + 3_600,
    };
    ops.create_operator_session(session.clone()).await.unwrap();
    assert_eq!(ops.live_operator_session("h1", now + 10).await.unwrap(), Some(session));
    assert_eq!(ops.live_operator_session("h1", now + 3_600).await.unwrap(), None, "expired");
    ops.revoke_operator_session("h1").await.unwrap();
    assert_eq!(ops.live_operator_session("h1", now + 10).await.unwrap(), None, "revoked");
}

#[tokio::test]
async fn a_totp_step_is_used_once_per_operator() {
    let (store, _guard) = backend::fresh().await;
    let ops = &store.operators;
    ops.create_operator(operator("op1", "ann@example.com", OperatorRole::Admin)).await.unwrap();
    ops.create_operator(operator("op2", "bob@example.com", OperatorRole::Moderator)).await.unwrap();
    let step = 58_796_667;
    assert!(ops.use_totp_step("op1", step).await.unwrap());
    assert!(!ops.use_totp_step("op1", step).await.unwrap(), "the same code a second time");
    assert!(ops.use_totp_step("op1", step + 1).await.unwrap(), "the next code");
    assert!(ops.use_totp_step("op2", step).await.unwrap(), "another operator's code of that step");
    // Two sign-ins with one code at once: one wins.
    let (a, b) = tokio::join!(ops.use_totp_step("op2", step + 2), ops.use_totp_step("op2", step + 2));
    assert!(a.unwrap() ^ b.unwrap(), "exactly one of two concurrent uses");
}

#[tokio::test]
async fn the_audit_log_reads_newest_first_and_pages_with_before() {
    let (store, _guard) = backend::fresh().await;
    let micros = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as i64;
    // Five entries, the oldest 40 days back (another monthly partition), stored out of order.
    let ids: Vec<i64> = (0..5).map(|n| (micros - (4 - n) * 10 * 86_400_000_000) * 1000 + n).collect();
    for index in [2, 0, 4, 1, 3] {
        let entry = AuditEntry {
            entry_id: ids[index],
            operator_id: "op1".into(),
            action: format!("action{index}"),
            target: String::new(),
            reason: "why".into(),
            outcome: "ok".into(),
            at: ids[index] / 1_000_000_000,
        };
        store.operators.record_audit(entry).await.unwrap();
    }
    let actions = |entries: Vec<AuditEntry>| entries.into_iter().map(|e| e.action).collect::<Vec<_>>();
    let first = store.operators.audit_log(None, 3).await.unwrap();
    let oldest_shown = first.last().unwrap().entry_id;
    assert_eq!(actions(first), ["action4", "action3", "action2"]);
    let rest = store.operators.audit_log(Some(oldest_shown), 3).await.unwrap();
    assert_eq!(actions(rest), ["action1", "action0"]);
}

#[tokio::test]
async fn a_report_has_at_most_one_decision_the_last_one() {
    let (store, _guard) = backend::fresh().await;
    let ops = &store.operators;
    assert!(ops.report_decisions(&[1, 2]).await.unwrap().is_empty());
    let decide = |report_id, decision: &str, at| ReportDecision {
        report_id,
        decision: decision.into(),
        operator_id: "op1".into(),
        at,
    };
    ops.decide_report(decide(1, "dismissed", 10)).await.unwrap();
    ops.decide_report(decide(2, "dismissed", 11)).await.unwrap();
    ops.decide_report(decide(2, "actioned", 12)).await.unwrap();
    let mut found = ops.report_decisions(&[1, 2, 3]).await.unwrap();
    found.sort_by_key(|d| d.report_id);
    assert_eq!(found, [decide(1, "dismissed", 10), decide(2, "actioned", 12)]);
}

#[tokio::test]
async fn a_legal_texts_versions_are_kept_newest_first_per_language() {
    let (store, _guard) = backend::fresh().await;
    let version = |lang: &str, published_at, date: &str| LegalVersion {
        doc: "termsOfService".into(),
        lang: lang.into(),
        last_modified: date.into(),
        body: format!("{{\"title\":\"Terms {date}\"}}"),
        operator_id: "op1".into(),
        published_at,
    };
    assert!(store.legal.legal_versions("termsOfService", "en", 10).await.unwrap().is_empty());
    store.legal.publish_legal(version("en", 100, "2026-01-01")).await.unwrap();
    store.legal.publish_legal(version("en", 200, "2026-11-30")).await.unwrap();
    store.legal.publish_legal(version("de", 150, "2026-06-01")).await.unwrap();
    let english = store.legal.legal_versions("termsOfService", "en", 10).await.unwrap();
    assert_eq!(english, [version("en", 200, "2026-11-30"), version("en", 100, "2026-01-01")]);
    assert_eq!(store.legal.legal_versions("termsOfService", "en", 1).await.unwrap().len(), 1);
    assert_eq!(
        store.legal.legal_versions("termsOfService", "de", 10).await.unwrap(),
        [version("de", 150, "2026-06-01")]
    );
    assert!(store.legal.legal_versions("refundPolicy", "en", 10).await.unwrap().is_empty());
}
