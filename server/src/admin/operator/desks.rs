//! The console's own desks, beside the `/lust/admin` handlers it mounts again: deciding on
//! reports, finding a user and seeing their account, ledger, orders, reports and sessions
//! (`sessions`), ending a user's sessions or deleting the account, the legal texts, and
//! the node's metrics for the health charts. Every change goes through the same code the
//! product uses (the user's sessions, the account deletion, the billing actor's ledger).
//! The guard (`super::guard`) has checked the role and, on acting routes, the reason.

use std::collections::HashMap;

use actix_web::{HttpRequest, HttpResponse, web};
use amora_domain::account::User;
use amora_store::{FeedFilter, ModeratedFeedEntry, ReportDecision};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::admin::payments::OrderView;
use crate::admin::{AdminError, find_user, internal};
use crate::content::legal::{LEGAL_DOCS, check_text, is_day};
use crate::state::AppState;

use super::versions::{self, now_millis};

/// Ledger rows and orders shown on a user's page.
const USER_PAGE_ROWS: usize = 100;
/// Reports (and flagged feed images) scanned for the ones a user made or received.
const REPORTS_SCANNED: u32 = 500;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/report/decide", web::post().to(decide_report))
        .route("/users", web::get().to(search_users))
        .route("/user", web::get().to(user_page))
        .route("/user/endSessions", web::post().to(end_sessions))
        .route("/user/delete", web::post().to(delete_user))
        .route("/legal", web::get().to(legal_versions))
        .route("/legal/publish", web::post().to(publish_legal))
        .route("/metrics", web::get().to(metrics));
}

fn bad_request(error: impl std::fmt::Display) -> AdminError {
    AdminError::BadRequest(error.to_string())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct DecideRequest {
    report_id: String,
    decision: String,
}

/// `POST report/decide {reportId, decision}`: `dismissed` (nothing wrong) or `actioned`
/// (the character hidden or the image removed, by its own call); the last decision stands.
async fn decide_report(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<DecideRequest>,
) -> Result<HttpResponse, AdminError> {
    let operator = super::operator_of(&req)?;
    let request = body.into_inner();
    if !matches!(request.decision.as_str(), "dismissed" | "actioned") {
        return Err(bad_request("decision: dismissed or actioned"));
    }
    let report_id: i64 = request.report_id.parse().map_err(|_| bad_request("reportId: not a report id"))?;
    let known = state.store.reports.recent(REPORTS_SCANNED).await.map_err(internal)?;
    if !known.iter().any(|report| report.report_id.raw() == report_id) {
        return Err(AdminError::NotFound(format!("no recent report {report_id}")));
    }
    let decision = ReportDecision {
        report_id,
        decision: request.decision.clone(),
        operator_id: operator.operator_id,
        at: crate::auth::now(),
    };
    state.store.operators.decide_report(decision).await.map_err(internal)?;
    Ok(HttpResponse::Ok().json(json!({ "reportId": request.report_id, "decision": request.decision })))
}

async fn account_view(state: &AppState, user: &User) -> Result<Value, AdminError> {
    let suspended_since = state.store.suspensions.suspended_since(&user.user_id).await.map_err(internal)?;
    Ok(json!({
        "userId": user.user_id.to_string(),
        "userNo": user.user_no.as_str(),
        "email": user.email.as_ref().map(ToString::to_string),
        "userName": user.user_name,
        "createdAt": user.created_at,
        "suspendedSince": suspended_since,
        "vipType": user.user_vip_type,
        "coin": user.coin,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchQuery {
    q: String,
}

/// `GET users?q=`: the account with this e-mail, user number or id (none or one).
async fn search_users(state: web::Data<AppState>, query: web::Query<SearchQuery>) -> Result<HttpResponse, AdminError> {
    let wanted = query.q.trim();
    if wanted.is_empty() {
        return Err(bad_request("q: an e-mail, user number or user id"));
    }
    let users = match find_user(&state, wanted).await {
        Ok(user) => vec![account_view(&state, &user).await?],
        Err(AdminError::NotFound(_) | AdminError::BadRequest(_)) => Vec::new(),
        Err(error) => return Err(error),
    };
    Ok(HttpResponse::Ok().json(json!({ "users": users })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UserQuery {
    user: String,
}

/// `GET user?user=`: the account, its ledger (newest first; the balance is its sum), its
/// orders, the reports it made, those made on its characters and shared images, and its
/// live sessions.
async fn user_page(state: web::Data<AppState>, query: web::Query<UserQuery>) -> Result<HttpResponse, AdminError> {
    let user = find_user(&state, query.user.trim()).await?;
    let ledger: Vec<Value> = state
        .node
        .billing
        .ledger(&user.user_id, USER_PAGE_ROWS)
        .await
        .map_err(internal)?
        .into_iter()
        .map(|row| json!({ "txnId": row.txn_id.to_string(), "coins": row.delta, "reason": row.reason, "at": row.created_at }))
        .collect();
    let orders: Vec<OrderView> = state
        .node
        .billing
        .orders(&user.user_id, USER_PAGE_ROWS as u32)
        .await
        .map_err(internal)?
        .into_iter()
        .map(OrderView::from)
        .collect();
    let (reports_made, reports_received) = reports_of(&state, &user).await?;
    Ok(HttpResponse::Ok().json(json!({
        "account": account_view(&state, &user).await?,
        "ledger": ledger,
        "orders": orders,
        "reportsMade": reports_made,
        "reportsReceived": reports_received,
        "imagesReported": images_reported(&state, &user).await?,
        "sessions": super::sessions::list(&state, &user).await?,
    })))
}

/// The recent reports the user made, and those others made on characters the user created
/// (with the operator's decision on each, null while open), newest first: one read of the
/// recent reports, each reported character looked up once.
async fn reports_of(state: &AppState, user: &User) -> Result<(Vec<Value>, Vec<Value>), AdminError> {
    let owner = user.user_id.to_string();
    // Each reported character's name and creator; `None` when it no longer exists.
    let mut characters: HashMap<String, Option<(String, Option<String>)>> = HashMap::new();
    let (mut made, mut received) = (Vec::new(), Vec::new());
    for report in state.store.reports.recent(REPORTS_SCANNED).await.map_err(internal)? {
        let key = report.character_id.to_string();
        if !characters.contains_key(&key) {
            let character = state.store.characters.get(&report.character_id).await.map_err(internal)?;
            characters.insert(key.clone(), character.map(|c| (c.card.character_name, c.creator_id)));
        }
        let character = characters.get(&key).and_then(Option::as_ref);
        if report.reporter_id == user.user_id {
            made.push(json!({
                "reportId": report.report_id,
                "characterId": key,
                // Empty when the character no longer exists.
                "characterName": character.map(|(name, _)| name.as_str()).unwrap_or_default(),
                "reason": report.reason.code(),
                "note": report.note,
                "createdAt": report.created_at,
            }));
        }
        let Some((name, Some(creator))) = character else { continue };
        if *creator != owner {
            continue;
        }
        received.push((
            report.report_id.raw(),
            json!({
                "reportId": report.report_id,
                "characterId": key,
                "characterName": name,
                "reporterId": report.reporter_id.to_string(),
                "reason": report.reason.code(),
                "note": report.note,
                "createdAt": report.created_at,
                "decision": Value::Null,
            }),
        ));
    }
    let ids: Vec<i64> = received.iter().map(|(id, _)| *id).collect();
    for decision in state.store.operators.report_decisions(&ids).await.map_err(internal)? {
        if let Some((_, view)) = received.iter_mut().find(|(id, _)| *id == decision.report_id) {
            view["decision"] =
                json!({ "decision": decision.decision, "operatorId": decision.operator_id, "at": decision.at });
        }
    }
    Ok((made, received.into_iter().map(|(_, view)| view).collect()))
}

/// The user's shared images that others reported or that are held out of the feed, among
/// the newest flagged feed entries: how many reported each and whether it is hidden.
async fn images_reported(state: &AppState, user: &User) -> Result<Vec<Value>, AdminError> {
    let flagged =
        state.store.feed_moderation.list(None, REPORTS_SCANNED, FeedFilter::Flagged).await.map_err(internal)?;
    Ok(flagged
        .into_iter()
        .filter(|moderated| moderated.entry.owner == user.user_id)
        .map(|ModeratedFeedEntry { entry, reports, hidden_at }| {
            json!({
                "feedId": entry.feed_id.raw().to_string(),
                "imageId": entry.image_id.raw().to_string(),
                "url": amora_store::image_media_url(entry.image_id),
                "characterName": entry.character_name,
                "reports": reports,
                "hidden": hidden_at.is_some(),
                "hiddenAt": hidden_at,
                "sharedAt": entry.feed_id.unix_millis(),
            })
        })
        .collect())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UserRequest {
    user: String,
}

/// `POST user/endSessions {user}`: every session of the account ends, on every node, as
/// when the user signs out everywhere.
async fn end_sessions(state: web::Data<AppState>, body: web::Json<UserRequest>) -> Result<HttpResponse, AdminError> {
    let user = find_user(&state, body.user.trim()).await?;
    crate::auth::session::end(&state, &user.user_id, crate::auth::session::Ending::All).await.map_err(internal)?;
    Ok(HttpResponse::Ok().json(json!({ "userId": user.user_id.to_string(), "outcome": "sessionsEnded" })))
}

/// `POST user/delete {user}`: the account deleted as its owner would delete it (its data
/// gone, its sessions ended, its address blocked from registering for a while).
async fn delete_user(state: web::Data<AppState>, body: web::Json<UserRequest>) -> Result<HttpResponse, AdminError> {
    let user = find_user(&state, body.user.trim()).await?;
    crate::auth::accounts::delete(&state, &user).await.map_err(internal)?;
    Ok(HttpResponse::Ok().json(json!({ "userId": user.user_id.to_string(), "outcome": "deleted" })))
}

fn legal_doc(doc: &str) -> Result<&'static str, AdminError> {
    LEGAL_DOCS
        .iter()
        .find(|known| **known == doc)
        .copied()
        .ok_or_else(|| bad_request(format!("doc: one of {}", LEGAL_DOCS.join(" "))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LegalQuery {
    doc: String,
    lang: String,
}

/// `GET legal?doc=&lang=`: the published versions of a legal text, newest (the one shown)
/// first; `current` is null while the text is as the app was built.
async fn legal_versions(state: web::Data<AppState>, query: web::Query<LegalQuery>) -> Result<HttpResponse, AdminError> {
    let doc = legal_doc(&query.doc)?;
    let lang = amora_domain::account::parse_language(&query.lang).map_err(bad_request)?;
    let versions = versions::list(&state, doc, &lang).await?;
    let current = versions.first().map(|v| json!({ "lastModified": v["lastModified"], "text": v["text"] }));
    Ok(HttpResponse::Ok().json(json!({ "doc": doc, "lang": lang, "current": current, "versions": versions })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PublishLegalRequest {
    doc: String,
    lang: String,
    last_modified: String,
    text: Value,
}

/// `POST legal/publish {doc, lang, lastModified, text}`: a new version, shown from now on;
/// the old ones stay. Not held to the chat rules: a legal text has to name what they refuse.
async fn publish_legal(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<PublishLegalRequest>,
) -> Result<HttpResponse, AdminError> {
    let operator = super::operator_of(&req)?;
    let request = body.into_inner();
    let doc = legal_doc(&request.doc)?;
    let lang = amora_domain::account::parse_language(&request.lang).map_err(bad_request)?;
    if !is_day(&request.last_modified) {
        return Err(bad_request("lastModified: a real day written YYYY-MM-DD"));
    }
    check_text(&request.text).map_err(bad_request)?;
    let last_modified = request.last_modified.clone();
    versions::publish(&state, operator.operator_id, doc, &lang, last_modified, &request.text).await?;
    Ok(HttpResponse::Ok().json(json!({ "doc": doc, "lang": lang, "lastModified": request.last_modified })))
}

/// One sample of the Prometheus text format: `name{label="value",…} number`.
fn parse_sample(line: &str) -> Option<Value> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let (series, value) = line.rsplit_once(' ')?;
    let value: f64 = value.parse().ok()?;
    let (name, labels) = match series.split_once('{') {
        Some((name, rest)) => (name, parse_labels(rest.strip_suffix('}')?)?),
        None => (series, serde_json::Map::new()),
    };
    Some(json!({ "name": name, "labels": labels, "value": if value.is_finite() { json!(value) } else { Value::Null } }))
}

/// `a="b",c="d \"e\""` as a map; escapes as the text format writes them.
fn parse_labels(raw: &str) -> Option<serde_json::Map<String, Value>> {
    let mut labels = serde_json::Map::new();
    let mut rest = raw;
    while !rest.is_empty() {
        let (name, after) = rest.split_once("=\"")?;
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            let (index, c) = chars.next()?;
            match c {
                '\\' => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    other => value.push(other),
                },
                '"' => break index,
                c => value.push(c),
            }
        };
        labels.insert(name.trim_start_matches(',').to_owned(), Value::String(value));
        rest = after[end + 1..].trim_start_matches(',');
    }
    Some(labels)
}

/// `GET metrics`: this node's Prometheus samples as JSON, `{at, samples: [{name, labels,
/// value}]}`, with `amora_chat_queue_depth` and `amora_ws_sockets` read now; the console
/// polls it and draws the rates.
async fn metrics(
    state: web::Data<AppState>,
    registry: Option<web::Data<prometheus::Registry>>,
) -> Result<HttpResponse, AdminError> {
    use prometheus::Encoder;
    let registry = registry.ok_or_else(|| internal("no metrics registry"))?;
    let mut text = Vec::new();
    prometheus::TextEncoder::new().encode(&registry.gather(), &mut text).map_err(|_| internal("metrics encoding"))?;
    let mut samples: Vec<Value> = String::from_utf8_lossy(&text).lines().filter_map(parse_sample).collect();
    // Two gauges read at this moment: replies waiting for the model, and open sockets
    // (the node's socket permits in use).
    let sockets = state.settings.realtime.max_sockets_per_node.max(1) - state.socket_permits.available_permits();
    let waiting = state.node.chat.waiting_replies();
    samples.push(json!({ "name": "amora_chat_queue_depth", "labels": {}, "value": waiting }));
    samples.push(json!({ "name": "amora_ws_sockets", "labels": {}, "value": sockets }));
    Ok(HttpResponse::Ok().json(json!({ "at": now_millis(), "samples": samples })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prometheus_line_reads_as_name_labels_and_value() {
        let sample = parse_sample(r#"amora_http_requests_total{endpoint="/x",method="GET",status="200"} 12"#);
        assert_eq!(
            sample,
            Some(
                json!({"name": "amora_http_requests_total", "labels": {"endpoint": "/x", "method": "GET", "status": "200"}, "value": 12.0})
            )
        );
        assert_eq!(parse_sample("up 1"), Some(json!({"name": "up", "labels": {}, "value": 1.0})));
        let escaped = parse_sample(r#"m{a="say \"hi\", ok",b="c"} 2.5"#).unwrap_or(Value::Null);
        assert_eq!(escaped["labels"], json!({"a": "say \"hi\", ok", "b": "c"}));
        assert_eq!(parse_sample("# HELP m help"), None);
        assert_eq!(parse_sample(r#"m{a="unterminated} 1"#), None);
    }
}
