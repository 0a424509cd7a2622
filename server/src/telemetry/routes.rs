//! What browsers report: page and click events (`/spm`) and error reports (`/webError`).
//! Both are rate-limited per client address and bounded field by field before storage.

use actix_web::{HttpRequest, web};
use amora_domain::telemetry::{ErrorReport, PageEvent};
use serde::Deserialize;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::state::AppState;

/// The `/spm` query; every field optional, since old clients send fewer.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct SpmQuery {
    location: String,
    screen: String,
    version: String,
    user_id: String,
    time: String,
    client: String,
    system: String,
    #[serde(rename = "utm_source")]
    utm_source: String,
    #[serde(rename = "utm_medium")]
    utm_medium: String,
    distinct_id: String,
    info: String,
}

/// `GET /spm?...` → `true`.
pub async fn spm(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<bool> {
    state.limits.reports.check(&state.limits.address(&req))?;
    let query = web::Query::<SpmQuery>::from_query(req.query_string())
        .map_err(|e| ApiError::Param(format!("query: {e}")))?
        .into_inner();
    if !query.info.is_empty() && serde_json::from_str::<serde_json::Value>(&query.info).is_err() {
        return Err(ApiError::Param("info: must be JSON".into()));
    }
    let event = PageEvent {
        location: query.location,
        screen: query.screen,
        version: query.version,
        user_id: query.user_id,
        time: query.time,
        client: query.client,
        system: query.system,
        utm_source: query.utm_source,
        utm_medium: query.utm_medium,
        distinct_id: query.distinct_id,
        info: query.info,
    }
    .bounded();
    state.store.telemetry.record_page_event(event).await?;
    Ok(ApiReply(true))
}

/// The `ErrorReport` shape of API.md §4. Browsers differ in what they can fill in, so
/// only `message` is required.
#[derive(Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "ErrorReport")]
pub struct ErrorReportRequest {
    #[serde(default)]
    error_type: String,
    message: String,
    #[serde(default)]
    user_agent: String,
    #[serde(default)]
    url: String,
    #[serde(default, deserialize_with = "string_or_number")]
    user_id: String,
    #[serde(default)]
    #[ts(type = "number")]
    timestamp: i64,
    #[serde(default)]
    stack: String,
}

/// User ids may arrive as numbers or strings depending on the client's build.
fn string_or_number<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    match serde_json::Value::deserialize(deserializer)? {
        serde_json::Value::String(text) => Ok(text),
        serde_json::Value::Number(number) => Ok(number.to_string()),
        serde_json::Value::Null => Ok(String::new()),
        _ => Err(serde::de::Error::custom("expected a string or a number")),
    }
}

/// `POST /webError ErrorReport` → `true`.
pub async fn web_error(
    req: HttpRequest,
    state: web::Data<AppState>,
    payload: Payload<ErrorReportRequest>,
) -> ApiResult<bool> {
    state.limits.reports.check(&state.limits.address(&req))?;
    let report = payload.into_inner();
    let report = ErrorReport::bounded(
        &report.error_type,
        &report.message,
        &report.user_agent,
        &report.url,
        &report.user_id,
        report.timestamp,
        &report.stack,
    );
    state.store.telemetry.record_error_report(report).await?;
    Ok(ApiReply(true))
}
