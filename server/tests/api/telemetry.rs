//! `/spm` and `/webError`: stored, bounded and rate-limited.

use serde_json::json;

use crate::helpers::spawn_app_with;

#[actix_rt::test]
async fn a_page_event_is_stored() {
    let app = spawn_app_with(&[]).await;
    let info = r#"{"category":"pageView","action":"home"}"#;
    let query = format!(
        "location=%2F&screen=1440x900&version=0.0.101&userId=&time=1700000000&client=pc&system=Linux\
         &utm_source=reddit&utm_medium=cpc&distinctId=abc123&info={}",
        urlencode(info)
    );
    let envelope = app.spm(&query).await;
    assert_eq!((envelope.code, envelope.data.clone()), (200, json!(true)));
    let events = app.store.telemetry.recent_page_events(5).await.unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].utm_source, "reddit");
    assert_eq!(events[0].screen, "1440x900");
    assert_eq!(events[0].info, info);
}

#[actix_rt::test]
async fn a_page_event_with_info_that_is_not_json_is_refused() {
    let app = spawn_app_with(&[]).await;
    let envelope = app.spm("location=%2F&info=%7Bnot").await;
    assert_eq!(envelope.code, 10001);
    assert!(app.store.telemetry.recent_page_events(5).await.unwrap().is_empty());
}

#[actix_rt::test]
async fn an_error_report_is_stored_and_cut_to_size() {
    let app = spawn_app_with(&[]).await;
    let envelope = app
        .web_error(json!({
            "errorType": "TypeError",
            "message": "x is undefined",
            "userAgent": "Mozilla/5.0",
            "url": "http://localhost:8080/",
            "userId": 42,
            "timestamp": 1700000000000i64,
            "stack": "s".repeat(20_000),
        }))
        .await;
    assert_eq!(envelope.code, 200);
    let reports = app.store.telemetry.recent_error_reports(5).await.unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].message, "x is undefined");
    assert_eq!(reports[0].user_id, "42");
    assert_eq!(reports[0].stack.len(), amora_domain::telemetry::MAX_REPORT_FIELD_CHARS);
}

#[actix_rt::test]
async fn an_error_report_without_a_message_is_a_param_error() {
    let app = spawn_app_with(&[]).await;
    let envelope = app.web_error(json!({ "errorType": "TypeError" })).await;
    assert_eq!(envelope.code, 10001);
    assert!(envelope.msg.contains("message"), "{}", envelope.msg);
}

#[actix_rt::test]
async fn the_report_after_the_limit_is_refused() {
    let app = spawn_app_with(&[("AMORA_LIMITS__REPORTS_PER_MINUTE", "5")]).await;
    for n in 0..5 {
        assert_eq!(app.web_error(json!({ "message": format!("report {n}") })).await.code, 200);
    }
    let refused = app.web_error(json!({ "message": "one too many" })).await;
    assert_eq!(refused.code, 10003);
    assert_eq!(app.spm("location=%2F").await.code, 10003, "/spm shares the budget");
    assert_eq!(app.store.telemetry.recent_error_reports(10).await.unwrap().len(), 5);
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}
