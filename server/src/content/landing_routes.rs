//! The landing pages' copy for the frontend (docs/api.md "Blog"): the newest version an
//! operator published of a page's copy in a language (`content::landing`). Open to everyone.

use actix_web::web;
use amora_domain::account::parse_language;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::content::landing::{doc_key, published};
use crate::state::AppState;

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LandingCopyRequest {
    lang: String,
    /// A landing page's topic key, e.g. `aiSex`.
    topic: String,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LandingCopy {
    /// As `<topic>` of the `topics` namespace, `{heading, intro, points, faq: [{q, a}]}`;
    /// null while the page's copy in this language is as the app was built.
    #[ts(type = "unknown")]
    copy: Option<Value>,
}

/// `landing/getLandingCopy {lang, topic}` → `{copy}`: the newest published copy of the
/// landing page in the language. Open to everyone.
pub async fn get_landing_copy(
    state: web::Data<AppState>,
    payload: Payload<LandingCopyRequest>,
) -> ApiResult<LandingCopy> {
    let request = payload.into_inner();
    let lang = parse_language(&request.lang)?;
    if doc_key(&request.topic).is_none() {
        return Err(ApiError::NotFound(format!("no landing page {}", request.topic)));
    }
    Ok(ApiReply(LandingCopy { copy: published(&state.store, &request.topic, &lang).await? }))
}
