//! Reports of characters and replies that break the community guidelines (docs/api.md
//! "Reports"). Signed in only, and limited per account per hour; the operator reads them
//! with `amora admin reports` and acts with `amora admin character hide`.

use actix_web::web;
use amora_actors::chat::new_entry_id;
use amora_actors::moderation::Surface;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, Speaker};
use amora_domain::report::{Report, ReportReason, parse_note};
use serde::{Deserialize, Serialize};

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::auth::now;
use crate::auth::session::SignedIn;
use crate::state::AppState;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportRequest {
    character_id: String,
    /// A character's reply in the reporter's conversation; absent to report the character.
    #[serde(default)]
    message_id: Option<String>,
    reason: String,
    #[serde(default)]
    note: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportReceipt {
    report_id: EntryId,
}

/// `report/reportContent {characterId, messageId?, reason, note?}` → `{reportId}`.
pub async fn report_content(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<ReportRequest>,
) -> ApiResult<ReportReceipt> {
    let request = payload.into_inner();
    let character_id = CharacterId::parse(&request.character_id)?;
    let reason = ReportReason::parse(&request.reason)?;
    let note = parse_note(&request.note, reason)?;
    let message_id = request.message_id.as_deref().map(|raw| EntryId::parse(raw, "messageId")).transpose()?;
    let user_id = &signed_in.user.user_id;
    state.limits.content_reports_by_user.check(&user_id.as_str().to_owned())?;

    // Only what the reporter could see can be reported: a character of the catalogue they
    // may view, and a reply from their own conversation with it.
    let conversations = &state.node.conversations;
    conversations.visible_character(user_id, &character_id).await?;
    if let Some(message_id) = message_id {
        let found = conversations.find_message(user_id, &character_id, message_id).await?;
        if !found.is_some_and(|m| m.speaker == Speaker::Character) {
            return Err(ApiError::NotFound(format!("no reply {message_id} in this conversation")));
        }
    }
    let report = Report {
        report_id: new_entry_id(),
        reporter_id: user_id.clone(),
        character_id,
        message_id,
        reason,
        note,
        created_at: now(),
    };
    let report_id = report.report_id;
    // A report must be able to describe abuse, so its note is never a reason to refuse it:
    // the note is checked so that the operator sees the verdict (the moderation log, and
    // `noteRefused` here), and the report is kept either way.
    let verdict = if report.note.is_empty() {
        Ok(())
    } else {
        state.node.moderator.check(Surface::ReportNote, Some(user_id), &report.note).await
    };
    state.store.reports.add(report).await?;
    let note_refused = verdict.err().map(|refusal| refusal.code());
    tracing::info!(target: "moderation", %report_id, reason = reason.code(), note_refused, "content reported");
    Ok(ApiReply(ReportReceipt { report_id }))
}
