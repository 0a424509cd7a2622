//! The TypeScript the web app reads for the HTTP calls under `/lust/api` (the envelope, the
//! request bodies and the answers), generated from the Rust types (ts-rs) into
//! `frontend/src/lib/api-types.ts`, beside the WebSocket file `actors::wire_types` writes.
//! The test below fails when the checked-in file differs from what the types say;
//! `scripts/wire-types` writes both files anew. The shapes the chat and the socket share
//! (`ChatMessage`, `Memory`, `GalleryImage`, …) live in `wire-types.ts`; this file
//! re-exports them so that a screen imports every wire shape from one place.

use amora_actors::conversations::{ChatSummary, MessagePage, PersonaView, ReplyingView};
use amora_actors::groups::{ActivationView, GroupMemberView, GroupMessagePage, GroupMessageView, GroupView};
use amora_actors::voice::SpokenMessage;
use amora_actors::wire::chat::{MemoryView, MessageView};
use amora_actors::wire::events::PaymentStatus;
use amora_actors::wire::images::{FeedImageView, GalleryCharacterView, GalleryImageView};
use amora_actors::wire::voice::{VoicePart, VoiceView};
use amora_domain::character::{
    CardExtras, Character, CharacterAge, CharacterCard, CharacterId, CharacterStatus, UsedType,
};
use amora_domain::creation::{
    CreateLimits, CreateOptions, Draft, Looks, MyCharacter, PresetKey, PresetText, Style, Visibility, VoiceOption,
};
use amora_domain::gender::Gender;
use amora_domain::money::Coins;
use amora_domain::payment::{PaymentRoute, ProductId, SubscriptionState};
use ts_rs::{Config, TS};

use crate::api::reply::Success;
use crate::auth::accounts::{UserDetail, UserInfo};
use crate::creation::portrait::Preview;
use crate::settings::SocialLinks;
use crate::{auth, chat, content, creation, images, payments, telemetry, voice};

/// Where the generated file lives, from the repository root.
pub const TYPESCRIPT_PATH: &str = "frontend/src/lib/api-types.ts";

/// The whole generated file.
pub fn typescript() -> String {
    let cfg = Config::default();
    let decls = [
        Success::<()>::decl(&cfg),
        Coins::decl(&cfg),
        CharacterId::decl(&cfg),
        CharacterAge::decl(&cfg),
        UsedType::decl(&cfg),
        UserInfo::decl(&cfg),
        UserDetail::decl(&cfg),
        auth::routes::SignedInAnswer::decl(&cfg),
        auth::routes::SendLinkRequest::decl(&cfg),
        auth::routes::PasswordLoginRequest::decl(&cfg),
        auth::account_routes::UpdateInfoRequest::decl(&cfg),
        auth::account_routes::UpdatePasswordRequest::decl(&cfg),
        auth::account_routes::UpdateWebDataRequest::decl(&cfg),
        content::catalogue::ListRequest::decl(&cfg),
        content::catalogue::InfoRequest::decl(&cfg),
        CharacterCard::decl(&cfg),
        CardExtras::decl(&cfg),
        Character::decl(&cfg),
        CharacterStatus::decl(&cfg),
        Style::decl(&cfg),
        Visibility::decl(&cfg),
        Looks::decl(&cfg),
        PresetText::decl(&cfg),
        Draft::decl(&cfg),
        PresetKey::decl(&cfg),
        VoiceOption::decl(&cfg),
        CreateLimits::decl(&cfg),
        CreateOptions::decl(&cfg),
        MyCharacter::decl(&cfg),
        creation::routes::OptionsRequest::decl(&cfg),
        creation::routes::PreviewRequest::decl(&cfg),
        creation::routes::CreateRequest::decl(&cfg),
        creation::routes::UpdateRequest::decl(&cfg),
        creation::routes::CharacterRequest::decl(&cfg),
        creation::routes::VisibilityRequest::decl(&cfg),
        creation::routes::MyListRequest::decl(&cfg),
        creation::card_routes::ImportRequest::decl(&cfg),
        creation::card_routes::ExportRequest::decl(&cfg),
        Preview::decl(&cfg),
        creation::card_routes::ExportedCard::decl(&cfg),
        chat::routes::MessageListRequest::decl(&cfg),
        chat::routes::EditMessageRequest::decl(&cfg),
        chat::routes::DeleteMessageRequest::decl(&cfg),
        chat::routes::ChooseGreetingRequest::decl(&cfg),
        chat::memories::AddMemoryRequest::decl(&cfg),
        chat::memories::UpdateMemoryRequest::decl(&cfg),
        chat::memories::DeleteMemoryRequest::decl(&cfg),
        chat::memories::PinMemoryRequest::decl(&cfg),
        ChatSummary::decl(&cfg),
        ReplyingView::decl(&cfg),
        MessagePage::decl(&cfg),
        chat::persona::SetPersonaRequest::decl(&cfg),
        chat::persona::DeletePersonaRequest::decl(&cfg),
        PersonaView::decl(&cfg),
        ActivationView::decl(&cfg),
        GroupMemberView::decl(&cfg),
        GroupView::decl(&cfg),
        chat::groups::NewMemberRequest::decl(&cfg),
        chat::groups::CreateGroupRequest::decl(&cfg),
        chat::groups::GroupRequest::decl(&cfg),
        chat::groups::UpdateGroupRequest::decl(&cfg),
        chat::groups::AddMemberRequest::decl(&cfg),
        chat::groups::MemberRequest::decl(&cfg),
        chat::groups::UpdateMemberRequest::decl(&cfg),
        chat::groups::GroupMessageListRequest::decl(&cfg),
        chat::groups::ImportChatRequest::decl(&cfg),
        chat::groups::EditGroupMessageRequest::decl(&cfg),
        chat::groups::GroupMessageRequest::decl(&cfg),
        GroupMessagePage::decl(&cfg),
        content::site_config::WebConfig::decl(&cfg),
        content::site_config::DefaultEnergy::decl(&cfg),
        content::site_config::SignInConfig::decl(&cfg),
        SocialLinks::decl(&cfg),
        payments::plans::VipData::decl(&cfg),
        payments::plans::Plan::decl(&cfg),
        payments::plans::CoinPackage::decl(&cfg),
        payments::plans::PaymentRouteView::decl(&cfg),
        payments::routes::CreateOrderRequest::decl(&cfg),
        payments::routes::SubscriptionRequest::decl(&cfg),
        payments::routes::LastFlowRequest::decl(&cfg),
        payments::routes::CreatedOrder::decl(&cfg),
        SubscriptionState::decl(&cfg),
        payments::routes::SubscriptionView::decl(&cfg),
        payments::routes::PaymentView::decl(&cfg),
        payments::routes::OrderEntryView::decl(&cfg),
        images::routes::PresetView::decl(&cfg),
        images::routes::ImageOptions::decl(&cfg),
        images::routes::GenerateRequest::decl(&cfg),
        images::routes::PictureRequest::decl(&cfg),
        images::routes::JobRef::decl(&cfg),
        images::routes::GalleryRequest::decl(&cfg),
        images::routes::ImageRef::decl(&cfg),
        images::routes::ShareRequest::decl(&cfg),
        images::routes::FeedRequest::decl(&cfg),
        images::routes::JobView::decl(&cfg),
        images::routes::Page::<()>::decl(&cfg),
        GalleryCharacterView::decl(&cfg),
        content::blog_routes::ListRequest::decl(&cfg),
        content::blog_routes::InfoRequest::decl(&cfg),
        content::blog_routes::BlogCard::decl(&cfg),
        content::blog_routes::BlogPage::decl(&cfg),
        content::blog_routes::BlogArticle::decl(&cfg),
        content::legal::TextsRequest::decl(&cfg),
        content::legal::PublishedLegalText::decl(&cfg),
        content::legal::LegalTexts::decl(&cfg),
        content::landing_routes::LandingCopyRequest::decl(&cfg),
        content::landing_routes::LandingCopy::decl(&cfg),
        content::reports::ReportRequest::decl(&cfg),
        content::reports::ReportReceipt::decl(&cfg),
        voice::routes::SpeakRequest::decl(&cfg),
        SpokenMessage::decl(&cfg),
        telemetry::routes::ErrorReportRequest::decl(&cfg),
    ];
    let mut body = String::new();
    for decl in decls {
        body.push_str("export ");
        body.push_str(decl.trim());
        body.push_str("\n\n");
    }

    // The shapes of wire-types.ts this file names, imported by the names they have there.
    let shared = [
        MessageView::name(&cfg),
        MemoryView::name(&cfg),
        GalleryImageView::name(&cfg),
        FeedImageView::name(&cfg),
        VoicePart::name(&cfg),
        VoiceView::name(&cfg),
        PaymentStatus::name(&cfg),
        GroupMessageView::name(&cfg),
    ];
    let code = without_comments(&body);
    let used: Vec<String> = shared.into_iter().filter(|name| names(&code, name)).collect();

    let mut out = String::from(
        "// Generated from the Rust types by `scripts/wire-types` (server/src/api_types.rs): do not edit.\n\
         // The HTTP shapes of docs/api.md: the envelope, request bodies and answers.\n\n",
    );
    if !used.is_empty() {
        out.push_str(&format!("import type {{ {} }} from './wire-types';\n", used.join(", ")));
    }
    out.push_str("import { API_CODES } from './wire-types';\n\n");
    out.push_str("/** Every wire shape the chat and the socket share, from one place. */\nexport type * from './wire-types';\n\n");
    out.push_str("/** The codes of API.md 1.3, by name. */\nexport const ApiCode = API_CODES;\n\n");
    out.push_str("export type ApiCodeValue = (typeof ApiCode)[keyof typeof ApiCode];\n\n");

    out.push_str(
        "/** The catalogue a person browses (`interestedGender`, a character's `gender`). */\nexport const Gender = {",
    );
    let genders = [("girls", Gender::Girls), ("guys", Gender::Guys)];
    out.push_str(&genders.iter().map(|(key, g)| format!(" {key}: {}", g.code())).collect::<Vec<_>>().join(","));
    out.push_str(" } as const;\n\nexport type GenderValue = (typeof Gender)[keyof typeof Gender];\n\n");

    let quoted = |ids: &[&str]| ids.iter().map(|id| format!("'{id}'")).collect::<Vec<_>>().join(", ");
    let plans: Vec<&str> = ProductId::ALL.iter().filter(|p| p.is_plan()).map(|p| p.as_str()).collect();
    let packages: Vec<&str> = ProductId::ALL.iter().filter(|p| !p.is_plan()).map(|p| p.as_str()).collect();
    let routes: Vec<&str> = PaymentRoute::ALL.iter().map(|r| r.code()).collect();
    out.push_str(&format!(
        "/** The plans and coin packages of spec section 9. */\nexport const PLAN_IDS = [{}] as const;\n\
         export type PlanId = (typeof PLAN_IDS)[number];\n\
         export const COIN_PACKAGE_IDS = [{}] as const;\n\
         export type CoinPackageId = (typeof COIN_PACKAGE_IDS)[number];\n\
         export type ProductId = PlanId | CoinPackageId;\n\n\
         /** Every payment route, as the API writes it. */\nexport const PAYMENT_ROUTE_NAMES = [{}] as const;\n\
         export type {} = (typeof PAYMENT_ROUTE_NAMES)[number];\n\n",
        quoted(&plans),
        quoted(&packages),
        quoted(&routes),
        PaymentRoute::name(&cfg),
    ));
    out.push_str(&body);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// `text` without its `/* … */` comments (ts-rs writes the Rust doc comments there), so
/// that a type named only in prose is not imported.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start..].find("*/").map_or("", |end| &rest[start + end + 2..]);
    }
    out.push_str(rest);
    out
}

/// Whether `text` names `name` as a whole word.
fn names(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let before = text[..at].chars().next_back().is_none_or(|c| !word(c));
        let after = text[at + name.len()..].chars().next().is_none_or(|c| !word(c));
        before && after
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn checked_in() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(TYPESCRIPT_PATH)
    }

    /// Set `AMORA_WRITE_WIRE_TYPES=1` to write the file (what `scripts/wire-types` does).
    #[test]
    fn the_checked_in_typescript_is_what_the_rust_types_say() {
        let generated = typescript();
        let path = checked_in();
        if std::env::var_os("AMORA_WRITE_WIRE_TYPES").is_some() {
            std::fs::write(&path, &generated).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
            return;
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            current == generated,
            "{} is out of date with the Rust HTTP types: run scripts/wire-types and commit the result",
            path.display()
        );
    }

    /// Numbers the server sends as JSON numbers must not be typed `bigint` (ts-rs's default
    /// for 64-bit integers): the browser's `JSON.parse` never makes one.
    #[test]
    fn no_shape_is_typed_bigint() {
        assert!(!typescript().contains("bigint"), "a 64-bit field needs #[ts(type = \"number\")]");
    }

    #[test]
    fn a_whole_word_is_found_and_a_part_is_not() {
        assert!(names("a: ChatMessage, b", "ChatMessage"));
        assert!(!names("a: ChatMessages", "ChatMessage"));
        assert!(!names("MyChatMessage", "ChatMessage"));
        assert!(!names(&without_comments("/** see `FeedImage.feedId` */ a: string"), "FeedImage"));
        assert!(names(&without_comments("/** x */ a: FeedImage"), "FeedImage"));
    }
}
