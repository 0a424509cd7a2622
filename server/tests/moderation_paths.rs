//! Moderation on every path where user-written text reaches a model, a prompt, another user
//! or the public (issue 27), against the real server:
//!
//! - `every_text_field_of_the_api_is_moderated_or_not_free_text` reads the request types of
//!   the API (every `Deserialize` struct of the feature folders of `server/src/`, enveloped
//!   routes or not, the operator's `server/src/admin/`, `server/src/web/` and the socket's
//!   `ClientAction`; files that take no request are listed with why) and requires
//!   each text-bearing field to be in [`FIELDS`]: moderated (with its surface) or not free
//!   text (with why). A new field, or a new route's request, that is in neither fails it.
//! - `every_moderated_field_refuses_a_prohibited_text_and_passes_an_adult_one` sends, for
//!   each moderated field of [`FIELDS`], a prohibited text (refused with 10070, or the
//!   path's own refusal) and an ordinary adult one (not refused), then finds each refusal in
//!   the operator's moderation log (surface, policy, layer, user, excerpt). A report's note
//!   is never refused: the report is kept and the verdict logged.
//! - `a_display_name_taken_from_the_address_is_moderated`: a sign-up's first display name.
//! - `the_corpus_is_refused_on_every_path` sends every `refuse` and `allow` line of the
//!   red-team corpus (`domain/tests/moderation/`, else the sample fixture) to eight user
//!   paths: every tuning line refused on each, the held-out part at its floor (only its
//!   figures printed), at most 1 adult text in 10 refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
#[path = "api/helpers.rs"]
mod helpers;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use amora_domain::account::{UserId, UserNo};
use amora_domain::character::CharacterId;
use amora_domain::chat::Speaker;
use amora_domain::group::{GroupId, GroupSpeaker};
use amora_store::{NewUser, SessionRecord, StoredGroupMessage, StoredMessage};
use base64::Engine as _;
use futures_util::{SinkExt, StreamExt};
use quote::ToTokens;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use helpers::{TestApp, spawn_app_with};

const OPERATOR: &str = "moderation-operator-token";
/// A seeded catalogue character every signed-in user may open.
const CHARACTER: &str = "gf-002";
const PROHIBITED: &str = "a 14 year old girl, nude";
const ADULT: &str = "Mira, a 28 year old nurse";
const REFUSED: u64 = 10070;

/// Where a field's text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Through the moderation service, under this surface (`actors::moderation::Surface`).
    Moderated(&'static str),
    /// Not free text, or never reaching a model, a prompt, another user or the public: why.
    NotFreeText(&'static str),
}
use Kind::{Moderated, NotFreeText};

const ID: Kind = NotFreeText("an id, parsed and checked against the store");
const ENUM: Kind = NotFreeText("one of a fixed set of codes or preset keys, refused otherwise");
const SECRET: Kind = NotFreeText("a password or token: checked, hashed or verified, never shown or prompted");
const EMAIL: Kind =
    NotFreeText("an email address, parsed; its local part becomes a display name only through the displayName surface");
const TELEMETRY: Kind = NotFreeText("telemetry: logged for the operator, never shown to users, the public or a model");
const OPERATOR_ONLY: Kind = NotFreeText("the operator's own input (bearer token), never user-written");
const RETURN_PATH: Kind =
    NotFreeText("a same-site path to return to after sign-in: checked, and written only into the mailed link");

/// Every text-bearing field of every request type: (file, type, field, kind).
const FIELDS: &[(&str, &str, &str, Kind)] = &[
    ("actors/src/wire/actions.rs", "ClientAction::ChatSend", "content", Moderated("chatMessage")),
    ("actors/src/wire/actions.rs", "ClientAction::GroupSend", "content", Moderated("chatMessage")),
    ("server/src/content/blog_routes.rs", "InfoRequest", "blog_key", ID),
    ("server/src/content/legal.rs", "TextsRequest", "lang", ENUM),
    (
        "server/src/creation/card_routes.rs",
        "ImportRequest",
        "file_name",
        NotFreeText("the file's name, logged cut to 100 characters on a refused card; never stored or shown"),
    ),
    ("server/src/creation/card_routes.rs", "ImportRequest", "data", Moderated("cardField")),
    ("server/src/creation/card_routes.rs", "ExportRequest", "character_id", ID),
    ("server/src/creation/card_routes.rs", "ExportRequest", "format", ENUM),
    (
        "server/src/content/catalogue.rs",
        "ListRequest",
        "tags",
        NotFreeText("a filter compared with the catalogue's tags; never stored, shown or prompted"),
    ),
    ("server/src/content/catalogue.rs", "InfoRequest", "character_id", ID),
    ("server/src/chat/routes.rs", "MessageListRequest", "character_id", ID),
    ("server/src/chat/routes.rs", "MessageListRequest", "before_id", ID),
    ("server/src/chat/routes.rs", "CharacterRequest", "character_id", ID),
    ("server/src/chat/routes.rs", "EditMessageRequest", "character_id", ID),
    ("server/src/chat/routes.rs", "EditMessageRequest", "message_id", ID),
    ("server/src/chat/routes.rs", "EditMessageRequest", "content", Moderated("chatMessage")),
    ("server/src/chat/routes.rs", "DeleteMessageRequest", "character_id", ID),
    ("server/src/chat/routes.rs", "DeleteMessageRequest", "message_id", ID),
    ("server/src/chat/routes.rs", "ChooseGreetingRequest", "character_id", ID),
    ("server/src/chat/memories.rs", "AddMemoryRequest", "character_id", ID),
    ("server/src/chat/memories.rs", "AddMemoryRequest", "content", Moderated("memory")),
    ("server/src/chat/memories.rs", "UpdateMemoryRequest", "character_id", ID),
    ("server/src/chat/memories.rs", "UpdateMemoryRequest", "memory_id", ID),
    ("server/src/chat/memories.rs", "UpdateMemoryRequest", "content", Moderated("memory")),
    ("server/src/chat/memories.rs", "DeleteMemoryRequest", "character_id", ID),
    ("server/src/chat/memories.rs", "DeleteMemoryRequest", "memory_id", ID),
    ("server/src/chat/memories.rs", "PinMemoryRequest", "character_id", ID),
    ("server/src/chat/memories.rs", "PinMemoryRequest", "memory_id", ID),
    ("server/src/creation/routes.rs", "PreviewRequest", "style", ENUM),
    (
        "server/src/creation/routes.rs",
        "PreviewRequest",
        "looks",
        NotFreeText(
            "preset keys and an age, validated against the builder's options; the looks they describe are moderated as characterText",
        ),
    ),
    ("server/src/creation/routes.rs", "CreateRequest", "draft", Moderated("characterText")),
    ("server/src/creation/routes.rs", "UpdateRequest", "character_id", ID),
    ("server/src/creation/routes.rs", "UpdateRequest", "draft", Moderated("characterText")),
    ("server/src/creation/routes.rs", "CharacterRequest", "character_id", ID),
    ("server/src/creation/routes.rs", "VisibilityRequest", "character_id", ID),
    ("server/src/creation/routes.rs", "VisibilityRequest", "visibility", ENUM),
    ("server/src/images/routes.rs", "GenerateRequest", "character_id", ID),
    ("server/src/images/routes.rs", "GenerateRequest", "scene", ENUM),
    ("server/src/images/routes.rs", "GenerateRequest", "outfit", ENUM),
    ("server/src/images/routes.rs", "GenerateRequest", "pose", ENUM),
    ("server/src/images/routes.rs", "GenerateRequest", "style", ENUM),
    ("server/src/images/routes.rs", "GenerateRequest", "prompt", Moderated("imagePrompt")),
    ("server/src/images/routes.rs", "PictureRequest", "character_id", ID),
    ("server/src/images/routes.rs", "PictureRequest", "prompt", Moderated("pictureRequest")),
    ("server/src/images/routes.rs", "JobRef", "job_id", ID),
    ("server/src/images/routes.rs", "GalleryRequest", "character_id", ID),
    ("server/src/images/routes.rs", "GalleryRequest", "before_id", ID),
    ("server/src/images/routes.rs", "ImageRef", "image_id", ID),
    ("server/src/images/routes.rs", "ShareRequest", "image_id", ID),
    ("server/src/images/routes.rs", "FeedRequest", "before_id", ID),
    ("server/src/auth/routes.rs", "SendLinkRequest", "email_address", EMAIL),
    ("server/src/auth/routes.rs", "SendLinkRequest", "cf_token", SECRET),
    ("server/src/auth/routes.rs", "SendLinkRequest", "return_to", RETURN_PATH),
    ("server/src/auth/routes.rs", "PasswordLoginRequest", "user_no", ID),
    ("server/src/auth/routes.rs", "PasswordLoginRequest", "password", SECRET),
    ("server/src/auth/routes.rs", "GoogleSignUpRequest", "credential", SECRET),
    ("server/src/payments/routes.rs", "CreateOrderRequest", "product_id", ID),
    ("server/src/payments/routes.rs", "SubscriptionRequest", "subscription_id", ID),
    ("server/src/payments/routes.rs", "LastFlowRequest", "order_id", ID),
    ("server/src/chat/persona.rs", "SetPersonaRequest", "character_id", ID),
    ("server/src/chat/persona.rs", "SetPersonaRequest", "name", Moderated("persona")),
    ("server/src/chat/persona.rs", "SetPersonaRequest", "description", Moderated("persona")),
    ("server/src/chat/persona.rs", "DeletePersonaRequest", "character_id", ID),
    ("server/src/chat/groups.rs", "NewMemberRequest", "character_id", ID),
    ("server/src/chat/groups.rs", "CreateGroupRequest", "name", Moderated("characterText")),
    ("server/src/chat/groups.rs", "CreateGroupRequest", "scenario", Moderated("characterText")),
    ("server/src/chat/groups.rs", "GroupRequest", "group_id", ID),
    ("server/src/chat/groups.rs", "UpdateGroupRequest", "group_id", ID),
    ("server/src/chat/groups.rs", "UpdateGroupRequest", "name", Moderated("characterText")),
    ("server/src/chat/groups.rs", "UpdateGroupRequest", "scenario", Moderated("characterText")),
    ("server/src/chat/groups.rs", "AddMemberRequest", "group_id", ID),
    ("server/src/chat/groups.rs", "AddMemberRequest", "character_id", ID),
    ("server/src/chat/groups.rs", "MemberRequest", "group_id", ID),
    ("server/src/chat/groups.rs", "MemberRequest", "character_id", ID),
    ("server/src/chat/groups.rs", "UpdateMemberRequest", "group_id", ID),
    ("server/src/chat/groups.rs", "UpdateMemberRequest", "character_id", ID),
    ("server/src/chat/groups.rs", "GroupMessageListRequest", "group_id", ID),
    ("server/src/chat/groups.rs", "GroupMessageListRequest", "before_id", ID),
    ("server/src/chat/groups.rs", "ImportChatRequest", "chat", Moderated("cardField")),
    ("server/src/chat/groups.rs", "EditGroupMessageRequest", "group_id", ID),
    ("server/src/chat/groups.rs", "EditGroupMessageRequest", "message_id", ID),
    ("server/src/chat/groups.rs", "EditGroupMessageRequest", "content", Moderated("chatMessage")),
    ("server/src/chat/groups.rs", "GroupMessageRequest", "group_id", ID),
    ("server/src/chat/groups.rs", "GroupMessageRequest", "message_id", ID),
    ("server/src/content/reports.rs", "ReportRequest", "character_id", ID),
    ("server/src/content/reports.rs", "ReportRequest", "feed_id", ID),
    ("server/src/content/reports.rs", "ReportRequest", "message_id", ID),
    ("server/src/content/reports.rs", "ReportRequest", "reason", ENUM),
    ("server/src/content/reports.rs", "ReportRequest", "note", Moderated("reportNote")),
    ("server/src/auth/account_routes.rs", "UpdateInfoRequest", "user_name", Moderated("displayName")),
    (
        "server/src/auth/account_routes.rs",
        "UpdateInfoRequest",
        "user_avatar",
        NotFreeText("a media path of this site (/media/<id>), parsed"),
    ),
    ("server/src/auth/account_routes.rs", "UpdatePasswordRequest", "old_password", SECRET),
    ("server/src/auth/account_routes.rs", "UpdatePasswordRequest", "new_password", SECRET),
    ("server/src/auth/account_routes.rs", "UpdateWebDataRequest", "language", ENUM),
    ("server/src/voice/routes.rs", "SpeakRequest", "character_id", ID),
    ("server/src/voice/routes.rs", "SpeakRequest", "message_id", ID),
    ("server/src/admin/content.rs", "PublishRequest", "file", Moderated("blogPost")),
];

/// Text-bearing field types: free text could ride in them.
fn is_text_type(ty: &str) -> bool {
    ["String", "str", "Value", "MessageText"].iter().any(|t| ty.split(|c: char| !c.is_alphanumeric()).any(|w| w == *t))
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn derives_deserialize(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("derive") && a.to_token_stream().to_string().contains("Deserialize"))
}

/// Every (type, field, type written) of the `Deserialize` structs and enum variants of a file.
fn request_fields(source: &str) -> Vec<(String, String, String)> {
    let file = syn::parse_file(source).unwrap();
    let mut found = Vec::new();
    let mut named = |owner: String, fields: &syn::Fields| {
        for field in fields {
            if let Some(ident) = &field.ident {
                found.push((owner.clone(), ident.to_string(), field.ty.to_token_stream().to_string()));
            }
        }
    };
    for item in &file.items {
        match item {
            syn::Item::Struct(s) if derives_deserialize(&s.attrs) => named(s.ident.to_string(), &s.fields),
            syn::Item::Enum(e) if derives_deserialize(&e.attrs) => {
                for variant in &e.variants {
                    named(format!("{}::{}", e.ident, variant.ident), &variant.fields);
                }
            }
            _ => {}
        }
    }
    found
}

/// The folders whose request types are read, every file in them and below: each feature's
/// folder (its routes, enveloped or not), the operator's calls and the shared web routes,
/// so a new route file is read without being named here. The socket's actions are read too.
const REQUEST_DIRS: &[&str] = &[
    "server/src/admin",
    "server/src/auth",
    "server/src/chat",
    "server/src/content",
    "server/src/creation",
    "server/src/images",
    "server/src/payments",
    "server/src/telemetry",
    "server/src/voice",
    "server/src/web",
];

/// Files of those folders that take no request: what they deserialize comes from another
/// server, the store or the settings, never from a browser (path, or path prefix, and why).
const NOT_REQUESTS: &[(&str, &str)] = &[
    ("server/src/auth/bot_check.rs", "the bot check's verdict, read from its own server"),
    ("server/src/auth/oauth.rs", "identity providers' answers (tokens, profiles), read from their servers"),
    ("server/src/auth/oauth_flow.rs", "a sign-in flow the server wrote itself, read back from the store"),
    (
        "server/src/creation/cards.rs",
        "a card's fields, parsed out of ImportRequest.data, which is moderated (cardField)",
    ),
    ("server/src/payments/hosted.rs", "a payment bridge's settings and signed notifications"),
    ("server/src/payments/nowpayments.rs", "a processor's answers and signed notifications"),
    ("server/src/payments/paypal", "a processor's settings, answers and signed notifications"),
    ("server/src/payments/zpay.rs", "a processor's answers and signed notifications"),
    (
        "server/src/payments/sandbox.rs",
        "the sandbox's settings, and its checkout page's token: issued by the server, checked, never shown",
    ),
];

fn rust_files_under(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files_under(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// The files whose request types are read: every Rust file of [`REQUEST_DIRS`] but those
/// of [`NOT_REQUESTS`], and the socket's actions. Telemetry's query and reports are listed
/// as a whole (`TELEMETRY`).
fn request_files() -> Vec<PathBuf> {
    let root = workspace();
    let mut files = vec![root.join("actors/src/wire/actions.rs")];
    for dir in REQUEST_DIRS {
        let mut found = Vec::new();
        rust_files_under(&root.join(dir), &mut found);
        files.extend(found.into_iter().filter(|path| {
            let file = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            !NOT_REQUESTS.iter().any(|(prefix, _)| file.starts_with(prefix))
        }));
    }
    files.sort();
    files
}

/// Request types that are not user-written text by construction, listed whole with why.
const WHOLE_TYPES: &[(&str, &str, Kind)] = &[
    (
        "actors/src/wire/actions.rs",
        "Envelope",
        NotFreeText(
            "a frame's outer shape: the action's name, and its data, read as the ClientAction listed in FIELDS",
        ),
    ),
    ("server/src/telemetry/routes.rs", "SpmQuery", TELEMETRY),
    ("server/src/telemetry/routes.rs", "ErrorReportRequest", TELEMETRY),
    ("server/src/web/media.rs", "MediaQuery", NotFreeText("an image width, checked against the allowed widths")),
    (
        "server/src/auth/sign_in_pages.rs",
        "*",
        NotFreeText("sign-in callbacks: tokens, OAuth codes and states, return paths; never shown or prompted"),
    ),
    ("server/src/chat/socket.rs", "*", SECRET),
    ("server/src/admin/mod.rs", "*", OPERATOR_ONLY),
    ("server/src/admin/feed.rs", "*", OPERATOR_ONLY),
    ("server/src/admin/payments.rs", "*", OPERATOR_ONLY),
    ("server/src/admin/review.rs", "*", OPERATOR_ONLY),
    // The operator console (issue 33): operator sign-in (e-mail, password, TOTP code),
    // operator accounts made by the CLI, the audit log's paging; no user writes any of it.
    ("server/src/admin/operator/mod.rs", "*", OPERATOR_ONLY),
    ("server/src/admin/operator/accounts.rs", "*", OPERATOR_ONLY),
    // The console's desks: report decisions, user look-ups, and the legal texts, which an
    // admin signed in with a second factor publishes as written (audited): a legal text has
    // to name what the rules refuse, and the chat rule refuses naming it.
    ("server/src/admin/operator/desks.rs", "*", OPERATOR_ONLY),
    // The landing pages' copy is published as written by an admin, as the legal texts are
    // (it names what the site refuses too); a user's session ended by its hash; a failed
    // payment notification replayed by its id.
    ("server/src/admin/operator/content.rs", "*", OPERATOR_ONLY),
    ("server/src/admin/operator/sessions.rs", "*", OPERATOR_ONLY),
    ("server/src/admin/operator/money.rs", "*", OPERATOR_ONLY),
    (
        "server/src/content/landing_routes.rs",
        "LandingCopyRequest",
        NotFreeText("a language code and a landing page's topic key, each checked against the known ones"),
    ),
    ("server/src/admin/content.rs", "KeyRequest", OPERATOR_ONLY),
    ("server/src/admin/content.rs", "ReportsQuery", OPERATOR_ONLY),
    ("server/src/admin/content.rs", "CharacterRequest", OPERATOR_ONLY),
    ("server/src/admin/content.rs", "RemoveImageRequest", OPERATOR_ONLY),
];

fn whole_type_listed(file: &str, owner: &str) -> bool {
    WHOLE_TYPES.iter().any(|(f, t, _)| *f == file && (*t == "*" || *t == owner))
}

#[test]
fn every_text_field_of_the_api_is_moderated_or_not_free_text() {
    let root = workspace();
    let mut seen = BTreeSet::new();
    let mut unlisted = Vec::new();
    for path in request_files() {
        let file = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let source = std::fs::read_to_string(&path).unwrap();
        for (owner, field, ty) in request_fields(&source) {
            if !is_text_type(&ty) {
                continue;
            }
            let listed = FIELDS.iter().any(|(f, t, n, _)| *f == file && *t == owner && *n == field);
            if listed {
                seen.insert((file.clone(), owner.clone(), field.clone()));
            } else if !whole_type_listed(&file, &owner) {
                unlisted.push(format!("{file} {owner}.{field}: {ty}"));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "text fields of the API that are neither moderated nor listed as not free text \
         (route them through the moderation service and add them to FIELDS, with a case in \
         `send_field`):\n{}",
        unlisted.join("\n")
    );
    let stale: Vec<_> = FIELDS
        .iter()
        .filter(|(f, t, n, _)| !seen.contains(&(f.to_string(), t.to_string(), n.to_string())))
        .map(|(f, t, n, _)| format!("{f} {t}.{n}"))
        .collect();
    assert!(stale.is_empty(), "FIELDS lists fields the API no longer has:\n{}", stale.join("\n"));
}

// ---------------------------------------------------------------------------------------
// The real server.

struct Person {
    user_id: UserId,
    voucher: String,
}

fn random_hex(n: usize) -> String {
    amora_server::auth::random_token().to_lowercase().chars().filter(char::is_ascii_alphanumeric).take(n).collect()
}

/// A signed-in user made in the store, with no coins: an image request that passes
/// moderation is then refused for want of coins (40004, checked after moderation), so no
/// image is drawn and no test waits for one.
async fn person(app: &TestApp, name: &str) -> Person {
    let user_id = UserId::parse(&format!("u{}", random_hex(16))).unwrap();
    let number = rand::random::<u32>() % 90_000_000 + 10_000_000;
    app.store
        .users
        .create(NewUser {
            user_id: user_id.clone(),
            user_no: UserNo::from_random(number),
            user_name: name.into(),
            email: None,
            discord_email: None,
            google_subject: None,
            discord_id: None,
            utm_source: String::new(),
            language: "en".into(),
            created_at: 0,
        })
        .await
        .unwrap();
    let voucher = amora_server::auth::random_token();
    app.store
        .sessions
        .create(SessionRecord {
            token_hash: amora_server::auth::token_hash(&voucher),
            user_id: user_id.clone(),
            created_at: 0,
            expires_at: i64::MAX / 2,
        })
        .await
        .unwrap();
    Person { user_id, voucher }
}

/// The server under test. Its chat model is an OpenAI-compatible address where nothing
/// listens: a message that passes moderation is stored and its reply fails at once, so no
/// model runs (moderation is all these tests look at).
async fn app() -> TestApp {
    app_with(&[]).await
}

async fn app_with(extra: &[(&str, &str)]) -> TestApp {
    let mut env = vec![
        ("AMORA_ADMIN__TOKEN", OPERATOR),
        // Every path is tried with hundreds of texts: the import rate limit is not under test here.
        ("AMORA_LIMITS__CARD_IMPORTS_PER_USER_PER_MINUTE", "1000000"),
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", "http://127.0.0.1:9/v1"),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "none"),
    ];
    env.extend_from_slice(extra);
    spawn_app_with(&env).await
}

async fn call(app: &TestApp, who: &Person, path: &str, payload: Value) -> (u64, Value, String) {
    let (envelope, _) = app.post_api_as(Some(&who.voucher), path, payload).await;
    (envelope.code, envelope.data, envelope.msg)
}

fn first_key(options: &Value, group: &str) -> Value {
    options[group][0]["key"].clone()
}

/// A valid builder draft whose `scenario` is `scenario`.
async fn draft(app: &TestApp, who: &Person, scenario: &str) -> Value {
    let (_, options, _) = call(app, who, "/user/v1/character/getCreateOptions", json!({ "gender": 1 })).await;
    json!({
        "gender": 1,
        "style": options["styles"][0]["key"].as_str().map_or_else(|| "realistic".to_owned(), str::to_owned),
        "looks": {
            "age": 24,
            "ethnicity": first_key(&options, "ethnicities"),
            "eyes": first_key(&options, "eyes"),
            "hairColor": first_key(&options, "hairColors"),
            "hairStyle": first_key(&options, "hairStyles"),
            "body": first_key(&options, "bodies"),
            "outfit": first_key(&options, "outfits"),
        },
        "personality": { "preset": first_key(&options, "personalities"), "text": "Warm and quick to laugh." },
        "relationship": { "preset": first_key(&options, "relationships"), "text": "" },
        "voiceId": options["voices"][0]["voiceId"].as_str().unwrap_or_default(),
        "characterName": "Mira",
        "introduction": "A barista who paints at night.",
        "greeting": "Hey {{user}}, you came back!",
        "scenario": scenario,
        "tags": ["romance"],
        "nsfw": false,
        "visibility": "private",
    })
}

fn import_payload(card: &Value) -> Value {
    json!({ "fileName": "card.json", "data": base64::engine::general_purpose::STANDARD.encode(card.to_string()), "age": 25 })
}

/// A V2 card with `text` at `pointer` (a JSON pointer under the card).
fn card_with(pointer: &str, text: &str) -> Value {
    let mut card = json!({ "spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Mira", "description": "A barista who paints at night.", "first_mes": "Hi!",
        "tags": ["romance"], "alternate_greetings": ["Hello again."],
        "extensions": { "depth_prompt": { "prompt": "Stay in character.", "depth": 4 } },
        "character_book": { "entries": [ { "keys": ["coffee"], "secondary_keys": ["tea"], "content": "She loves coffee.",
            "comment": "drinks", "name": "drinks", "enabled": true, "insertion_order": 0 } ] } } });
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    let slot = card.pointer_mut(parent).unwrap_or_else(|| panic!("no {parent} in the card"));
    match slot {
        Value::Array(items) => items[last.parse::<usize>().unwrap()] = json!(text),
        Value::Object(map) => {
            map.insert(last.to_owned(), json!(text));
        }
        _ => panic!("{pointer}"),
    }
    card
}

/// The fields of a card the per-field test fills, and the name the refusal must give.
const CARD_FIELDS: &[(&str, &str)] = &[
    ("/data/name", "characterName"),
    ("/data/description", "description"),
    ("/data/personality", "personality"),
    ("/data/scenario", "scenario"),
    ("/data/first_mes", "greeting"),
    ("/data/mes_example", "exampleDialogue"),
    ("/data/creator_notes", "introduction"),
    ("/data/system_prompt", "systemPrompt"),
    ("/data/post_history_instructions", "postHistoryInstructions"),
    ("/data/alternate_greetings/0", "alternateGreetings[0]"),
    ("/data/tags/0", "tags[0]"),
    ("/data/creator", "creator"),
    ("/data/character_version", "character_version"),
    ("/data/extensions/depth_prompt/prompt", "extensions.depth_prompt.prompt"),
    ("/data/extensions/talk", "extensions.talk"),
    ("/data/character_book/entries/0/keys/0", "lorebook[0].keys[0]"),
    ("/data/character_book/entries/0/secondary_keys/0", "lorebook[0].secondary_keys[0]"),
    ("/data/character_book/entries/0/content", "lorebook[0]"),
    ("/data/character_book/entries/0/comment", "lorebook[0].comment"),
    ("/data/character_book/entries/0/name", "lorebook[0].name"),
    ("/data/character_book/name", "lorebook.name"),
];

/// A WebSocket of `who`, past its `hello`.
struct Socket(tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>);

impl Socket {
    async fn open(app: &TestApp, who: &Person) -> Socket {
        let url = format!("{}/lust/api/ws?voucher={}", app.address.replacen("http", "ws", 1), who.voucher);
        let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        let mut socket = Socket(stream);
        socket.until(|e| e["event"] == "hello").await;
        socket
    }

    async fn send(&mut self, text: &str) {
        let frame = json!({ "action": "chatSend", "data": { "characterId": CHARACTER, "content": text } });
        self.0.send(Message::Text(frame.to_string().into())).await.unwrap();
    }

    /// The first event `wanted` accepts (panics after 60 s).
    async fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            let message = tokio::time::timeout_at(deadline, self.0.next()).await.expect("an event").unwrap().unwrap();
            if let Message::Text(text) = message {
                let event: Value = serde_json::from_str(&text).unwrap();
                if wanted(&event) {
                    return event;
                }
            }
        }
    }
}

/// What a path answered: 10070 (or the path's refusal), or anything else.
#[derive(Debug)]
struct Answer {
    code: u64,
    msg: String,
}

impl Answer {
    fn refused(&self) -> bool {
        self.code == REFUSED
    }
}

/// Sends `text` as the field `(owner, field)` of its request; answers the refusal or not.
/// Moderated fields without a case here fail the test: each needs one.
async fn send_field(app: &TestApp, who: &Person, owner: &str, field: &str, text: &str) -> Vec<(String, Answer)> {
    let one = |(code, _, msg): (u64, Value, String)| vec![(String::new(), Answer { code, msg })];
    match (owner, field) {
        ("ClientAction::ChatSend", "content") => {
            let mut socket = Socket::open(app, who).await;
            socket.send(text).await;
            let event = socket
                .until(|e| {
                    e["event"] == "chatError"
                        || (e["event"] == "chatMessage" && e["data"]["message"]["content"] == text)
                })
                .await;
            let code = if event["event"] == "chatError" { event["data"]["code"].as_u64().unwrap() } else { 200 };
            vec![(String::new(), Answer { code, msg: event["data"]["msg"].as_str().unwrap_or_default().to_owned() })]
        }
        ("ClientAction::GroupSend", "content") => {
            let (code, group, msg) = call(app, who, "/user/v1/group/createGroup", group_payload("Trio", "")).await;
            assert_eq!(code, 200, "{msg}");
            let mut socket = Socket::open(app, who).await;
            let frame = json!({ "action": "groupSend", "data": { "groupId": group["groupId"], "content": text } });
            socket.0.send(Message::Text(frame.to_string().into())).await.unwrap();
            let event = socket
                .until(|e| {
                    e["event"] == "groupError"
                        || (e["event"] == "groupMessage" && e["data"]["message"]["content"] == text)
                })
                .await;
            let code = if event["event"] == "groupError" { event["data"]["code"].as_u64().unwrap() } else { 200 };
            vec![(String::new(), Answer { code, msg: event["data"]["msg"].as_str().unwrap_or_default().to_owned() })]
        }
        ("EditGroupMessageRequest", "content") => {
            let (code, group, msg) = call(app, who, "/user/v1/group/createGroup", group_payload("Trio", "")).await;
            assert_eq!(code, 200, "{msg}");
            let group_id = GroupId::parse(group["groupId"].as_str().unwrap()).unwrap();
            let message_id = amora_actors::chat::new_entry_id();
            let message = StoredGroupMessage::new(message_id, GroupSpeaker::User, "Good morning!".into());
            app.store.groups.append_group_message(&who.user_id, &group_id, message).await.unwrap();
            let payload = json!({ "groupId": group_id.as_str(), "messageId": message_id.to_string(), "content": text });
            one(call(app, who, "/user/v1/group/editMessage", payload).await)
        }
        ("EditMessageRequest", "content") => {
            let character = CharacterId::parse(CHARACTER).unwrap();
            let message_id = amora_actors::chat::new_entry_id();
            let message =
                StoredMessage { message_id, speaker: Speaker::User, content: "Good morning!".into(), image: None };
            app.store.conversations.append(&who.user_id, &character, message).await.unwrap();
            let payload = json!({ "characterId": CHARACTER, "messageId": message_id.to_string(), "content": text });
            one(call(app, who, "/user/v1/chat/editMessage", payload).await)
        }
        ("AddMemoryRequest", "content") => {
            let answer =
                call(app, who, "/user/v1/memory/addMemory", json!({ "characterId": CHARACTER, "content": text })).await;
            if answer.0 == 200 {
                let id = answer.1["memoryId"].clone();
                call(app, who, "/user/v1/memory/deleteMemory", json!({ "characterId": CHARACTER, "memoryId": id }))
                    .await;
            }
            one(answer)
        }
        ("UpdateMemoryRequest", "content") => {
            let (code, memory, msg) = call(
                app,
                who,
                "/user/v1/memory/addMemory",
                json!({ "characterId": CHARACTER, "content": "I like tea." }),
            )
            .await;
            assert_eq!(code, 200, "{msg}");
            let id = memory["memoryId"].clone();
            let answer = call(
                app,
                who,
                "/user/v1/memory/updateMemory",
                json!({ "characterId": CHARACTER, "memoryId": id, "content": text }),
            )
            .await;
            call(app, who, "/user/v1/memory/deleteMemory", json!({ "characterId": CHARACTER, "memoryId": id })).await;
            one(answer)
        }
        ("CreateRequest", "draft") => {
            let answer =
                call(app, who, "/user/v1/character/create", json!({ "draft": draft(app, who, text).await })).await;
            delete_created(app, who, &answer.1).await;
            one(answer)
        }
        ("UpdateRequest", "draft") => {
            let (code, created, msg) =
                call(app, who, "/user/v1/character/create", json!({ "draft": draft(app, who, "A quiet café.").await }))
                    .await;
            assert_eq!(code, 200, "{msg}");
            let id = created["character"]["characterId"].clone();
            let payload = json!({ "characterId": id, "draft": draft(app, who, text).await });
            let answer = call(app, who, "/user/v1/character/update", payload).await;
            delete_created(app, who, &created).await;
            one(answer)
        }
        ("ImportRequest", "data") => {
            let mut answers = Vec::new();
            for (pointer, name) in CARD_FIELDS {
                let answer =
                    call(app, who, "/user/v1/character/importCard", import_payload(&card_with(pointer, text))).await;
                delete_created(app, who, &answer.1).await;
                answers.push((name.to_string(), Answer { code: answer.0, msg: answer.2 }));
            }
            answers
        }
        ("GenerateRequest", "prompt") => {
            one(call(app, who, "/user/v1/image/generate", json!({ "prompt": text, "count": 1 })).await)
        }
        ("PictureRequest", "prompt") => {
            one(call(app, who, "/user/v1/chat/requestPicture", json!({ "characterId": CHARACTER, "prompt": text }))
                .await)
        }
        ("SetPersonaRequest", "name") => {
            one(call(app, who, "/user/v1/persona/setPersona", json!({ "name": text, "description": "A night owl." }))
                .await)
        }
        ("SetPersonaRequest", "description") => {
            one(call(app, who, "/user/v1/persona/setPersona", json!({ "name": "Sam", "description": text })).await)
        }
        ("CreateGroupRequest", "name" | "scenario") => {
            let (name, scenario) = if field == "name" { (text, "") } else { ("Trio", text) };
            one(call(app, who, "/user/v1/group/createGroup", group_payload(name, scenario)).await)
        }
        ("UpdateGroupRequest", "name" | "scenario") => {
            let (code, group, msg) = call(app, who, "/user/v1/group/createGroup", group_payload("Trio", "")).await;
            assert_eq!(code, 200, "{msg}");
            let payload = json!({ "groupId": group["groupId"], field: text });
            one(call(app, who, "/user/v1/group/updateGroup", payload).await)
        }
        ("ImportChatRequest", "chat") => {
            let chat = format!(
                "{}\n{}\n",
                json!({ "name": "Hana", "is_user": false, "mes": "Hi!" }),
                json!({ "name": "Ann", "is_user": true, "mes": text })
            );
            let mut payload = group_payload("Imported", "");
            payload["chat"] = json!(chat);
            one(call(app, who, "/user/v1/group/importChat", payload).await)
        }
        ("UpdateInfoRequest", "user_name") => {
            one(call(app, who, "/user/v1/updateUserInfo", json!({ "userName": text })).await)
        }
        ("ReportRequest", "note") => {
            // A report is never refused for what it describes: it is kept, and the verdict
            // goes to the operator's moderation log.
            let payload = json!({ "characterId": CHARACTER, "reason": "other", "note": text });
            let (code, data, msg) = call(app, who, "/user/v1/report/reportContent", payload).await;
            assert_eq!(code, 200, "a report is kept whatever its note says: {msg}");
            let kept = app.store.reports.recent(50).await.unwrap();
            assert!(kept.iter().any(|r| r.note == text), "the report was not kept");
            assert!(data["reportId"].is_string());
            vec![]
        }
        ("PublishRequest", "file") => {
            let mut answers = Vec::new();
            for (name, file) in [
                ("title", blog_file(text, "A short description.", "Some words.")),
                ("description", blog_file("A title", text, "Some words.")),
                ("markdown", blog_file("A title", "A short description.", text)),
            ] {
                let response = app
                    .client
                    .post(app.url("/lust/admin/blog/publish"))
                    .bearer_auth(OPERATOR)
                    .json(&json!({ "file": file }))
                    .send()
                    .await
                    .unwrap();
                let status = response.status().as_u16();
                let body = response.text().await.unwrap_or_default();
                // The operator's API answers 400 naming the field; counted as the refusal.
                let code =
                    if status == 400 && body.contains("inputContentIllegal") { REFUSED } else { u64::from(status) };
                answers.push((name.to_owned(), Answer { code, msg: body }));
            }
            answers
        }
        other => panic!("no case sends the moderated field {other:?}: add one to send_field"),
    }
}

/// A group of two catalogue characters (`CHARACTER` second), as `group/createGroup` takes it.
fn group_payload(name: &str, scenario: &str) -> Value {
    json!({ "name": name, "scenario": scenario, "members": [{ "characterId": "gf-001" }, { "characterId": CHARACTER }] })
}

fn blog_file(title: &str, description: &str, body: &str) -> String {
    format!(
        "---\nkey: moderation-{}\ntitle: {title}\ndescription: {description}\ndate: 2026-01-02\ncover: /blog/covers/x.svg\n---\n\n{body}\n",
        random_hex(8)
    )
}

async fn delete_created(app: &TestApp, who: &Person, created: &Value) {
    if let Some(id) = created["character"]["characterId"].as_str() {
        let (code, _, msg) = call(app, who, "/user/v1/character/delete", json!({ "characterId": id })).await;
        assert_eq!(code, 200, "{msg}");
    }
}

#[actix_rt::test]
async fn every_moderated_field_refuses_a_prohibited_text_and_passes_an_adult_one() {
    let app = app().await;
    let who = person(&app, "Ann").await;
    for (_, owner, field, kind) in FIELDS {
        let Moderated(surface) = kind else { continue };
        for (part, answer) in send_field(&app, &who, owner, field, PROHIBITED).await {
            assert!(answer.refused(), "{owner}.{field} {part} ({surface}) let through {PROHIBITED:?}: {answer:?}");
            if !part.is_empty() {
                assert!(answer.msg.contains(&part), "{owner}.{field}: the refusal names {part}: {}", answer.msg);
            }
        }
        for (part, answer) in send_field(&app, &who, owner, field, ADULT).await {
            assert!(!answer.refused(), "{owner}.{field} {part} ({surface}) refused {ADULT:?}: {answer:?}");
        }
    }
    // Every refusal reached the operator's moderation log: where, under which rule, for
    // whom, by which layer, with the text's start. A report's note too, though the report
    // was kept.
    let log = app.store.moderation_log.recent(None, 500).await.unwrap();
    for (_, owner, field, kind) in FIELDS {
        let Moderated(surface) = kind else { continue };
        let event = log
            .iter()
            .find(|e| e.surface == *surface)
            .unwrap_or_else(|| panic!("no {surface} event ({owner}.{field})"));
        assert_eq!(event.layer, "rules");
        assert_eq!(event.refusal, "minors", "{event:?}");
        if *surface != "blogPost" {
            assert_eq!(event.user_id.as_ref(), Some(&who.user_id), "{event:?}");
        }
        assert!(PROHIBITED.starts_with(&event.excerpt) || event.excerpt.contains(PROHIBITED), "{event:?}");
    }
    let policy = |surface: &str| log.iter().find(|e| e.surface == surface).map(|e| e.policy.clone());
    assert_eq!(policy("imagePrompt").as_deref(), Some("image"));
    assert_eq!(policy("cardField").as_deref(), Some("character"));
    assert_eq!(policy("displayName").as_deref(), Some("person"));
    assert_eq!(policy("chatMessage").as_deref(), Some("chat"));
}

/// The address never becomes the display name (issue 30), so nothing in it, refused or
/// not, reaches greetings and prompts: a new account has a generated name.
#[actix_rt::test]
async fn a_display_name_is_never_taken_from_the_address() {
    let app = app().await;
    for email in ["12.year.old.girl.sex@example.com", "mia.rossi@example.com"] {
        assert_eq!(app.send_sign_in_link(email).await.code, 200);
        let voucher = follow_outbox_link(&app, email).await;
        let info = app.user_info_as(&voucher).await;
        let name = info.data["userName"].as_str().unwrap().to_owned();
        let local = email.split('@').next().unwrap();
        assert_ne!(name, local);
        assert!(!name.is_empty() && !name.contains('.'), "{name}");
    }
}

/// Signs in with the link mailed to `email` (written to the outbox: no SMTP); the voucher.
async fn follow_outbox_link(app: &TestApp, email: &str) -> String {
    let outbox = app.data_dir.join("outbox");
    let mut found = None;
    for entry in std::fs::read_dir(&outbox).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let text = text.replace("=\r\n", "").replace("=\n", "").replace("=3D", "=");
        if text.contains(&format!("To: {email}")) {
            let start = text.find("/lust/api/login/v1/emailLoginBack?token=").expect("a link in the mail");
            let link: String =
                text[start..].chars().take_while(|c| c.is_ascii_alphanumeric() || "/?=&-_.%".contains(*c)).collect();
            found = Some(link);
        }
    }
    let link = found.expect("a mail to the address");
    let response = app.client.get(app.url(&link)).send().await.unwrap();
    let cookie = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("amora_session="))
        .expect("a session cookie")
        .to_owned();
    cookie.trim_start_matches("amora_session=").split(';').next().unwrap().to_owned()
}

// ---------------------------------------------------------------------------------------
// The corpus.

/// One line of the corpus: its part, whether it must be refused, its text.
struct Line {
    held_out: bool,
    refuse: bool,
    text: String,
}

/// The corpus's `refuse` and `allow` lines: the rule writer's files when present (the
/// held-out part scored apart), else the sample fixture (held to the tuning part's bar).
fn corpus() -> (String, Vec<Line>) {
    let root = workspace();
    let dir = root.join("domain/tests/moderation");
    let parts: Vec<(bool, PathBuf)> = [(false, "tuning.txt"), (true, "heldout.txt")]
        .into_iter()
        .map(|(held_out, name)| (held_out, dir.join(name)))
        .filter(|(_, path)| path.is_file())
        .collect();
    let (source, parts) = if parts.is_empty() {
        let sample = "server/tests/fixtures/moderation_sample.txt";
        (sample.to_owned(), vec![(false, root.join(sample))])
    } else {
        ("domain/tests/moderation/".to_owned(), parts)
    };
    let mut lines = Vec::new();
    for (held_out, file) in parts {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((label, text)) = line.split_once('|') else { continue };
            let refuse = match label.trim() {
                "refuse" => true,
                "allow" => false,
                _ => continue,
            };
            lines.push(Line { held_out, refuse, text: text.trim().to_owned() });
        }
    }
    (source, lines)
}

/// The user paths the corpus goes through: (name, owner, field, card part).
const CORPUS_PATHS: &[(&str, &str, &str)] = &[
    ("image/generate prompt", "GenerateRequest", "prompt"),
    ("chat/requestPicture prompt", "PictureRequest", "prompt"),
    ("character/create scenario", "CreateRequest", "draft"),
    ("importCard description", "ImportRequest", "/data/description"),
    ("importCard lorebook key", "ImportRequest", "/data/character_book/entries/0/keys/0"),
    ("updateUserInfo userName", "UpdateInfoRequest", "user_name"),
    ("persona/setPersona description", "SetPersonaRequest", "description"),
    ("memory/addMemory content", "AddMemoryRequest", "content"),
];

async fn send_corpus(app: &TestApp, who: &Person, owner: &str, field: &str, text: &str) -> Answer {
    if owner == "ImportRequest" {
        let (code, data, msg) =
            call(app, who, "/user/v1/character/importCard", import_payload(&card_with(field, text))).await;
        delete_created(app, who, &data).await;
        return Answer { code, msg };
    }
    let mut answers = send_field(app, who, owner, field, text).await;
    answers.remove(0).1
}

/// What one path did with one part of the corpus.
#[derive(Default)]
struct Tally {
    prohibited: usize,
    let_through: Vec<String>,
    adult: usize,
    false_refusals: usize,
}

impl Tally {
    fn refused_rate(&self) -> f64 {
        1.0 - self.let_through.len() as f64 / self.prohibited.max(1) as f64
    }
    fn false_rate(&self) -> f64 {
        self.false_refusals as f64 / self.adult.max(1) as f64
    }
    fn line(&self, path: &str, part: &str) -> String {
        format!(
            "{path} [{part}]: refused {}/{} prohibited ({:.1}%), {}/{} adult texts refused ({:.1}%)",
            self.prohibited - self.let_through.len(),
            self.prohibited,
            self.refused_rate() * 100.0,
            self.false_refusals,
            self.adult,
            self.false_rate() * 100.0
        )
    }
}

/// The held-out part's floor on every path: a little under what the rules scored on it
/// (domain/tests/moderation_corpus.rs `HELD_OUT_FLOOR`, BENCHMARKS.md "Moderation").
const HELD_OUT_FLOOR: f64 = 0.87;
/// At most 1 ordinary adult text in 10 refused, on every path and part.
const FALSE_REFUSAL_CEILING: f64 = 0.10;

/// Every `refuse` line of the tuning part is refused on every path, the held-out part at
/// least at its floor; at most 1 adult text in 10 is refused anywhere. The held-out lines a
/// path gets wrong are not printed (only its figures), so that nobody tunes against them.
#[actix_rt::test]
async fn the_corpus_is_refused_on_every_path() {
    let (source, lines) = corpus();
    assert!(lines.iter().any(|l| l.refuse) && lines.iter().any(|l| !l.refuse), "{source} has no refuse or allow lines");
    // One character per account, and Ann has hers: a card or draft that passes moderation
    // is then refused for want of room (10003, checked after moderation), so no portrait is
    // drawn for the hundreds of adult texts (as images are refused for want of coins).
    let app = app_with(&[("AMORA_LIMITS__CHARACTERS_PER_USER", "1")]).await;
    let who = person(&app, "Ann").await;
    let (code, _, msg) =
        call(&app, &who, "/user/v1/character/create", json!({ "draft": draft(&app, &who, "A café.").await })).await;
    assert_eq!(code, 200, "{msg}");
    // The paths run side by side (one user, one server): each request is cheap, but there
    // are thousands.
    let runs = CORPUS_PATHS.iter().map(|(name, owner, field)| {
        let (app, who, lines) = (&app, &who, &lines);
        async move {
            let (mut tuning, mut held_out) = (Tally::default(), Tally::default());
            for line in lines {
                let answer = send_corpus(app, who, owner, field, &line.text).await;
                let tally = if line.held_out { &mut held_out } else { &mut tuning };
                if line.refuse {
                    tally.prohibited += 1;
                    if !answer.refused() {
                        tally.let_through.push(format!("{:?} ({})", line.text, answer.code));
                    }
                } else {
                    tally.adult += 1;
                    tally.false_refusals += usize::from(answer.refused());
                }
            }
            (*name, tuning, held_out)
        }
    });
    let results = futures_util::future::join_all(runs).await;
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (name, tuning, held_out) in &results {
        report.push(tuning.line(name, "tuning"));
        if !tuning.let_through.is_empty() {
            failures.push(format!("{name} let through tuning lines: {}", tuning.let_through.join(", ")));
        }
        if tuning.false_rate() > FALSE_REFUSAL_CEILING {
            failures
                .push(format!("{name} refused {:.1}% of the tuning part's adult texts", tuning.false_rate() * 100.0));
        }
        if held_out.prohibited + held_out.adult > 0 {
            report.push(held_out.line(name, "held-out"));
            if held_out.refused_rate() < HELD_OUT_FLOOR {
                failures.push(format!(
                    "{name} refused {:.1}% of the held-out part's prohibited texts",
                    held_out.refused_rate() * 100.0
                ));
            }
            if held_out.false_rate() > FALSE_REFUSAL_CEILING {
                failures.push(format!(
                    "{name} refused {:.1}% of the held-out part's adult texts",
                    held_out.false_rate() * 100.0
                ));
            }
        }
    }
    println!("moderation corpus ({source}) on every path:\n{}", report.join("\n"));
    assert!(failures.is_empty(), "{}\n\n{}", report.join("\n"), failures.join("\n"));
}
