//! Reports of characters, replies and public feed images that break the community
//! guidelines (docs/api.md "Reports"). Signed in only, and limited per account per hour;
//! the operator reads them with `amora admin reports` and acts with `amora admin character
//! hide`. A feed image reported by `moderation.feed_hide_reports` distinct users leaves the
//! feed at once, for everyone, until the operator restores or removes it (`/lust/admin/feed`).

use actix_web::web;
use amora_actors::chat::new_entry_id;
use amora_actors::moderation::Surface;
use amora_domain::Invalid;
use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, Speaker};
use amora_domain::report::{Report, ReportReason, parse_note};
use amora_domain::viewer::Viewer;
use amora_store::FeedReport;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::auth::now;
use crate::auth::session::SignedIn;
use crate::state::AppState;

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ReportRequest {
    /// The character reported (or whose reply is); absent when a feed image is.
    #[serde(default)]
    character_id: Option<String>,
    /// An image of the public feed (`FeedImage.feedId`), instead of a character.
    #[serde(default)]
    feed_id: Option<String>,
    /// A character's reply in the reporter's conversation; absent to report the character.
    #[serde(default)]
    message_id: Option<String>,
    reason: String,
    #[serde(default)]
    note: String,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReportReceipt {
    #[ts(type = "string")]
    report_id: EntryId,
}

/// `report/reportContent {characterId, messageId?, reason, note?}` or
/// `{feedId, reason, note?}` → `{reportId}`.
pub async fn report_content(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<ReportRequest>,
) -> ApiResult<ReportReceipt> {
    let request = payload.into_inner();
    let reason = ReportReason::parse(&request.reason)?;
    let note = parse_note(&request.note, reason)?;
    let message_id = request.message_id.as_deref().map(|raw| EntryId::parse(raw, "messageId")).transpose()?;
    let character_id = match (&request.character_id, &request.feed_id, message_id) {
        (Some(character_id), None, _) => CharacterId::parse(character_id)?,
        (None, Some(feed_id), None) => {
            let feed_id = EntryId::parse(feed_id, "feedId")?;
            return report_feed_image(&state, &signed_in, feed_id, reason, note).await;
        }
        (None, Some(_), Some(_)) => return Err(Invalid::new("messageId", "names a reply, not a feed image").into()),
        _ => return Err(Invalid::new("characterId", "give either characterId or feedId").into()),
    };
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
    let note_refused = note_verdict(&state, user_id, &report.note).await;
    state.store.reports.add(report).await?;
    tracing::info!(target: "moderation", %report_id, reason = reason.code(), note_refused, "content reported");
    Ok(ApiReply(ReportReceipt { report_id }))
}

/// What moderation says of a report's note, for the operator: the refusal's code, or `None`.
/// A report must be able to describe abuse, so its note is never a reason to refuse it: it
/// is checked so that the operator sees the verdict (the moderation log, and `note_refused`
/// in the trace), and the report is kept either way.
async fn note_verdict(state: &AppState, user_id: &UserId, note: &str) -> Option<&'static str> {
    if note.is_empty() {
        return None;
    }
    state.node.moderator.check(Surface::ReportNote, Some(user_id), note).await.err().map(|refusal| refusal.code())
}

/// A report of a public feed image. Only an image the reporter could see in the feed can be
/// reported: one still in it, and a restricted one only by a member who may see those. Once
/// `moderation.feed_hide_reports` distinct users have reported it (one user's reports count
/// once), it leaves the feed for everyone until the operator decides.
async fn report_feed_image(
    state: &AppState,
    signed_in: &SignedIn,
    feed_id: EntryId,
    reason: ReportReason,
    note: String,
) -> ApiResult<ReportReceipt> {
    let user_id = &signed_in.user.user_id;
    state.limits.content_reports_by_user.check(&user_id.as_str().to_owned())?;
    let not_found = || ApiError::NotFound(format!("no image {feed_id} in the feed"));
    let entry = state.store.gallery.feed_entry(feed_id).await?.ok_or_else(not_found)?;
    if entry.restricted && signed_in.viewer(state) != Viewer::Member {
        return Err(not_found());
    }
    let moderation = &state.store.feed_moderation;
    if moderation.is_hidden(&entry.owner, entry.image_id).await? {
        return Err(not_found());
    }
    let note_refused = note_verdict(state, user_id, &note).await;
    let report_id = new_entry_id();
    let reporters = moderation
        .report(FeedReport {
            report_id,
            owner: entry.owner.clone(),
            image_id: entry.image_id,
            reporter_id: user_id.clone(),
            reason,
            note,
            created_at: now(),
        })
        .await?;
    let threshold = state.settings.moderation.feed_hide_reports;
    let hidden = reporters >= threshold;
    if hidden {
        moderation.hide(&entry.owner, entry.image_id, now()).await?;
    }
    tracing::info!(
        target: "moderation",
        %report_id,
        feed = %feed_id,
        image = %entry.image_id,
        reason = reason.code(),
        reporters,
        hidden,
        note_refused,
        "feed image reported"
    );
    Ok(ApiReply(ReportReceipt { report_id }))
}
