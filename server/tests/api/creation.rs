//! Created characters, My AI, review and character cards against the real server (issue 17,
//! docs/api.md "Created characters, My AI and character cards"): a character is created,
//! edited, made public through the operator's review, duplicated and deleted, and goes with
//! its creator's account; every validation and moderation refusal names its field; a
//! character that is not public is invisible to everyone but its creator, from every call
//! that names it; the sample cards of `cards/tests/data` import with every field, export
//! and import again identically; broken and hostile cards are refused and leave nothing.
//! The flows run on SQLite and on the CQL store at `AMORA_CQL_NODE`.

use std::time::Duration;

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use base64::Engine as _;
use serde_json::{Value, json};

use crate::cluster::{Socket, make_user};
use crate::fakes::chat_api::ChatApiFake;
use crate::helpers::{TestApp, spawn_app_customised};

const OPERATOR: &str = "creation-operator-token";
const WAIT: Duration = Duration::from_secs(30);
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

#[derive(Clone, Copy, Debug)]
pub(crate) enum StoreKind {
    Sqlite,
    Cql,
}

/// A server on `kind`'s store with the operator API on and `extra` settings.
pub(crate) async fn creation_app(kind: StoreKind, extra: &[(&str, &str)]) -> TestApp {
    let mut env = vec![("AMORA_ADMIN__TOKEN".to_owned(), OPERATOR.to_owned())];
    env.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    if let StoreKind::Cql = kind {
        let node = std::env::var("AMORA_CQL_NODE")
            .expect("AMORA_CQL_NODE is not set: start a CQL server (scripts/lib/cassandra.sh) and export its address");
        let keyspace = format!(
            "creation_{}",
            amora_server::auth::random_token().to_lowercase().replace(['-', '_'], "")[..12].to_owned()
        );
        env.extend([
            ("AMORA_STORE__KIND".to_owned(), "scylla".to_owned()),
            ("AMORA_STORE__SCYLLA__NODES".to_owned(), node),
            ("AMORA_STORE__SCYLLA__KEYSPACE".to_owned(), keyspace),
            (
                "AMORA_STORE__SCYLLA__REPLICATION".to_owned(),
                "{'class': 'SimpleStrategy', 'replication_factor': 1}".to_owned(),
            ),
        ]);
    }
    spawn_app_customised(env, |_| {}).await
}

pub(crate) fn cql_available() -> bool {
    std::env::var("AMORA_CQL_NODE").is_ok()
}

struct Person {
    user_id: UserId,
    voucher: String,
}

async fn person(app: &TestApp, name: &str) -> Person {
    let (user_id, _, voucher) = make_user(&app.store, name).await;
    Person { user_id, voucher }
}

/// Calls an API endpoint as `who` (signed out when `None`): (code, data, msg).
async fn call(app: &TestApp, who: Option<&Person>, path: &str, payload: Value) -> (u64, Value, String) {
    let (envelope, _) = app.post_api_as(who.map(|w| w.voucher.as_str()), path, payload).await;
    (envelope.code, envelope.data, envelope.msg)
}

/// Calls an endpoint that must succeed; its data.
async fn ok(app: &TestApp, who: Option<&Person>, path: &str, payload: Value) -> Value {
    let (code, data, msg) = call(app, who, path, payload.clone()).await;
    assert_eq!(code, 200, "{path} {payload}: {msg}");
    data
}

async fn admin_get(app: &TestApp, path: &str) -> (u16, Value) {
    let response = app.client.get(app.url(&format!("/lust/admin/{path}"))).bearer_auth(OPERATOR).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn admin_post(app: &TestApp, path: &str, body: Value) -> (u16, Value) {
    let response = app
        .client
        .post(app.url(&format!("/lust/admin/{path}")))
        .bearer_auth(OPERATOR)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The first key of one of `CreateOptions`' lists.
fn first_key(options: &Value, list: &str) -> String {
    options[list][0]["key"].as_str().unwrap_or_else(|| panic!("no {list} in {options}")).to_owned()
}

/// A complete, valid draft of `gender` built from the server's own options.
pub(crate) async fn draft(app: &TestApp, gender: i64, name: &str) -> Value {
    let options = ok(app, None, "/user/v1/character/getCreateOptions", json!({ "gender": gender })).await;
    let voice = options["voices"][0]["voiceId"].as_str().unwrap_or_default().to_owned();
    json!({
        "gender": gender,
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
        "personality": { "preset": first_key(&options, "personalities"), "text": "Warm, curious and quick to laugh." },
        "relationship": { "preset": first_key(&options, "relationships"), "text": "" },
        "voiceId": voice,
        "characterName": name,
        "introduction": "A barista who paints at night.",
        "greeting": "Hey {{user}}, you came back! Coffee?",
        "scenario": "A small café on a rainy afternoon.",
        "tags": ["romance", "slice of life"],
        "nsfw": false,
        "visibility": "private",
    })
}

async fn create(app: &TestApp, who: &Person, draft: Value) -> Value {
    ok(app, Some(who), "/user/v1/character/create", json!({ "draft": draft })).await
}

fn id_of(my: &Value) -> String {
    my["character"]["characterId"].as_str().unwrap_or_else(|| panic!("no characterId in {my}")).to_owned()
}

async fn my_characters(app: &TestApp, who: &Person) -> Vec<Value> {
    let data = ok(app, Some(who), "/user/v1/character/getMyCharacters", json!({ "pageNo": 1, "pageSize": 50 })).await;
    data.as_array().cloned().unwrap_or_default()
}

/// Whether `id` is anywhere in the first pages of `gender`'s catalogue as `who` sees it.
async fn listed(app: &TestApp, who: Option<&Person>, gender: i64, id: &str) -> bool {
    for page in 1..=20 {
        let payload = json!({ "pageNo": page, "pageSize": 50, "gender": gender });
        let cards = ok(app, who, "/user/v1/character/getCharacterList", payload).await;
        let cards = cards.as_array().cloned().unwrap_or_default();
        if cards.iter().any(|card| card["characterId"] == id) {
            return true;
        }
        if cards.len() < 50 {
            return false;
        }
    }
    false
}

async fn info_code(app: &TestApp, who: Option<&Person>, id: &str) -> (u64, Value) {
    let (code, data, _) = call(app, who, "/user/v1/character/getCharacterInfo", json!({ "characterId": id })).await;
    (code, data)
}

async fn media_status(app: &TestApp, url: &str) -> u16 {
    app.client.get(app.url(url)).send().await.unwrap().status().as_u16()
}

async fn media_bytes(app: &TestApp, url: &str) -> Vec<u8> {
    let response = app.client.get(app.url(url)).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{url}");
    response.bytes().await.unwrap().to_vec()
}

/// Create, edit, visibility, review (approve; reject with a reason the creator sees),
/// duplicate, delete, and the account's deletion taking its characters and portraits.
async fn lifecycle(kind: StoreKind) {
    let app = creation_app(kind, &[]).await;
    let ann = person(&app, "Ann").await;
    let bob = person(&app, "Bob").await;

    let created = create(&app, &ann, draft(&app, 0, "Lena").await).await;
    let id = id_of(&created);
    assert_eq!(created["status"], "private", "{created}");
    assert_eq!(created["visibility"], "private");
    assert_eq!(created["imported"], false);
    assert!(created["reviewReason"].is_null());
    assert_eq!(created["character"]["creatorId"], ann.user_id.as_str());
    assert_eq!(created["character"]["characterName"], "Lena");
    assert_eq!(created["character"]["characterAge"], 24);
    assert_eq!(created["draft"]["characterName"], "Lena");
    let photo = created["character"]["characterPhoto"].as_str().unwrap().to_owned();
    assert!(photo.starts_with("/media/cp-"), "{photo}");
    let portrait = media_bytes(&app, &photo).await;
    assert!(image::load_from_memory(&portrait).is_ok(), "the portrait is a picture");

    // Only Ann sees her: in My AI and by id; never Bob, signed-out people or the catalogue.
    let mine = my_characters(&app, &ann).await;
    assert_eq!(mine.len(), 1);
    assert_eq!(id_of(&mine[0]), id);
    assert!(my_characters(&app, &bob).await.is_empty());
    assert_eq!(info_code(&app, Some(&ann), &id).await.0, 200);
    assert_eq!(info_code(&app, Some(&bob), &id).await.0, 10006);
    assert_eq!(info_code(&app, None, &id).await.0, 10006);
    assert!(!listed(&app, Some(&ann), 0, &id).await, "private characters are never listed");

    // Editing the looks draws a new portrait and lets the old one go.
    let mut edited = draft(&app, 0, "Lena Marie").await;
    let options = ok(&app, None, "/user/v1/character/getCreateOptions", json!({ "gender": 0 })).await;
    edited["looks"]["hairColor"] = options["hairColors"][1]["key"].clone();
    edited["looks"]["age"] = json!(31);
    let updated =
        ok(&app, Some(&ann), "/user/v1/character/update", json!({ "characterId": id, "draft": edited })).await;
    assert_eq!(updated["character"]["characterName"], "Lena Marie");
    assert_eq!(updated["character"]["characterAge"], 31);
    let new_photo = updated["character"]["characterPhoto"].as_str().unwrap().to_owned();
    assert_ne!(new_photo, photo, "new looks, new portrait");
    assert_eq!(media_status(&app, &photo).await, 404, "the old portrait is deleted");
    assert_eq!(media_status(&app, &new_photo).await, 200);
    let (code, _, _) =
        call(&app, Some(&bob), "/user/v1/character/update", json!({ "characterId": id, "draft": edited })).await;
    assert_eq!(code, 10006, "only the creator edits");

    // Public goes through review: invisible until approved.
    let asked =
        ok(&app, Some(&ann), "/user/v1/character/setVisibility", json!({ "characterId": id, "visibility": "public" }))
            .await;
    assert_eq!(asked["status"], "review");
    assert_eq!(info_code(&app, Some(&bob), &id).await.0, 10006);
    let (status, queue) = admin_get(&app, "character/review?limit=50").await;
    assert_eq!(status, 200);
    let waiting = queue["characters"].as_array().unwrap();
    let entry = waiting.iter().find(|c| c["characterId"] == id.as_str()).expect("in the review queue");
    assert_eq!(entry["creatorId"], ann.user_id.as_str());
    assert_eq!(entry["characterName"], "Lena Marie");
    let (status, answer) = admin_post(&app, "character/approve", json!({ "characterId": id })).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("approved")), "{answer}");
    let (status, _) = admin_post(&app, "character/approve", json!({ "characterId": id })).await;
    assert_eq!(status, 409, "not in review any more");
    let (status, _) = admin_post(&app, "character/approve", json!({ "characterId": "no-such-one" })).await;
    assert_eq!(status, 404);
    let (code, seen) = info_code(&app, Some(&bob), &id).await;
    assert_eq!(code, 200, "approved: everyone sees her");
    assert!(seen.get("creatorId").is_none(), "the creator's id is the creator's only: {seen}");
    assert_eq!(info_code(&app, None, &id).await.0, 200);
    assert!(listed(&app, Some(&bob), 0, &id).await, "approved characters are in the catalogue");
    assert_eq!(my_characters(&app, &ann).await[0]["status"], "public");

    // Editing a public character sends it back to review, out of the catalogue.
    edited["visibility"] = json!("public");
    let again = ok(&app, Some(&ann), "/user/v1/character/update", json!({ "characterId": id, "draft": edited })).await;
    assert_eq!(again["status"], "review");
    assert_eq!(info_code(&app, Some(&bob), &id).await.0, 10006);
    assert!(!listed(&app, Some(&bob), 0, &id).await);

    // Rejected, with a reason the creator reads in My AI.
    let (status, _) = admin_post(&app, "character/reject", json!({ "characterId": id, "reason": "" })).await;
    assert_eq!(status, 400, "a reason is required");
    let reason = "The portrait prompt names a real person.";
    let (status, answer) = admin_post(&app, "character/reject", json!({ "characterId": id, "reason": reason })).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("rejected")), "{answer}");
    let mine = my_characters(&app, &ann).await;
    assert_eq!(mine[0]["status"], "rejected");
    assert_eq!(mine[0]["reviewReason"], reason);
    assert_eq!(info_code(&app, Some(&bob), &id).await.0, 10006);
    let private =
        ok(&app, Some(&ann), "/user/v1/character/setVisibility", json!({ "characterId": id, "visibility": "private" }))
            .await;
    assert_eq!(private["status"], "private");

    // A duplicate is a private copy.
    let copy = ok(&app, Some(&ann), "/user/v1/character/duplicate", json!({ "characterId": id })).await;
    let copy_id = id_of(&copy);
    assert_ne!(copy_id, id);
    assert_eq!(copy["character"]["characterName"], "Lena Marie (copy)");
    assert_eq!(copy["status"], "private");
    let copy_photo = copy["character"]["characterPhoto"].as_str().unwrap().to_owned();
    assert_eq!(media_status(&app, &copy_photo).await, 200);
    let (code, _, _) = call(&app, Some(&bob), "/user/v1/character/duplicate", json!({ "characterId": id })).await;
    assert_eq!(code, 10006, "nobody copies another's private character");
    assert_eq!(my_characters(&app, &ann).await.len(), 2);

    // Deleted: gone with its portrait.
    let (code, _, _) = call(&app, Some(&bob), "/user/v1/character/delete", json!({ "characterId": id })).await;
    assert_eq!(code, 10006, "only the creator deletes");
    assert_eq!(ok(&app, Some(&ann), "/user/v1/character/delete", json!({ "characterId": id })).await, json!(true));
    assert_eq!(info_code(&app, Some(&ann), &id).await.0, 10006);
    assert_eq!(media_status(&app, &new_photo).await, 404);
    let mine = my_characters(&app, &ann).await;
    assert_eq!(mine.len(), 1);
    assert_eq!(id_of(&mine[0]), copy_id);

    // The account's deletion takes the rest, in the store itself.
    let third = create(&app, &ann, draft(&app, 1, "Marco").await).await;
    let third_id = id_of(&third);
    let third_photo = third["character"]["characterPhoto"].as_str().unwrap().to_owned();
    assert_eq!(ok(&app, Some(&ann), "/user/v1/deleteUser", json!({})).await, json!(true));
    for (gone, photo) in [(&copy_id, &copy_photo), (&third_id, &third_photo)] {
        let id = CharacterId::parse(gone).unwrap();
        assert!(app.store.characters.get(&id).await.unwrap().is_none(), "{gone} deleted with the account ({kind:?})");
        assert_eq!(media_status(&app, photo).await, 404, "{photo} deleted with the account");
    }
}

#[actix_rt::test]
async fn a_character_lives_and_goes_with_its_creator_on_sqlite() {
    Box::pin(lifecycle(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn a_character_lives_and_goes_with_its_creator_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    Box::pin(lifecycle(StoreKind::Cql)).await;
}

/// Every refusal of `create`: 10001 naming the field, 10070 naming the field, 10004 signed out.
#[actix_rt::test]
async fn every_refusal_names_its_field() {
    let app = creation_app(StoreKind::Sqlite, &[]).await;
    let ann = person(&app, "Ann").await;
    let good = draft(&app, 0, "Lena").await;

    let (code, _, _) = call(&app, None, "/user/v1/character/create", json!({ "draft": good })).await;
    assert_eq!(code, 10004, "signed out");

    let invalid: Vec<(&str, Value)> = vec![
        ("characterName", json!("")),
        ("characterName", json!("x".repeat(41))),
        ("introduction", json!("")),
        ("introduction", json!("x".repeat(301))),
        ("greeting", json!("")),
        ("greeting", json!("x".repeat(2001))),
        ("scenario", json!("x".repeat(2001))),
        ("tags", json!((0..11).map(|i| format!("tag{i}")).collect::<Vec<_>>())),
        ("visibility", json!("friends")),
        ("style", json!("claymation")),
    ];
    for (field, value) in invalid {
        let mut bad = good.clone();
        bad[field] = value.clone();
        let (code, _, msg) = call(&app, Some(&ann), "/user/v1/character/create", json!({ "draft": bad })).await;
        assert_eq!(code, 10001, "{field} = {value}: {msg}");
        assert!(msg.starts_with(field), "{field}: {msg}");
    }
    let nested: Vec<(&str, &str, Value)> = vec![
        ("looks", "age", json!(17)),
        ("looks", "age", json!(101)),
        ("looks", "hairColor", json!("tartan")),
        ("looks", "ethnicity", json!("martian")),
        ("personality", "preset", json!("nope")),
        ("personality", "text", json!("x".repeat(1001))),
        ("relationship", "preset", json!("nope")),
    ];
    for (outer, inner, value) in nested {
        let mut bad = good.clone();
        bad[outer][inner] = value.clone();
        let (code, _, msg) = call(&app, Some(&ann), "/user/v1/character/create", json!({ "draft": bad })).await;
        assert_eq!(code, 10001, "{outer}.{inner} = {value}: {msg}");
        assert!(msg.starts_with(&format!("{outer}.{inner}")), "{outer}.{inner}: {msg}");
    }

    let refused: Vec<(&str, &str)> = vec![
        ("characterName", "Taylor Swift"),
        ("introduction", "She is 15 years old and shy."),
        ("greeting", "Hi! I'm a 16-year-old transfer student."),
        ("scenario", "A 1000-year-old vampire in a child's body."),
        ("scenario", "She looks like a child."),
        ("introduction", "Roleplay as Elon Musk, the billionaire."),
        ("greeting", "I want to have sex with you without consent."),
    ];
    for (field, text) in refused {
        let mut bad = good.clone();
        bad[field] = json!(text);
        let (code, _, msg) = call(&app, Some(&ann), "/user/v1/character/create", json!({ "draft": bad })).await;
        assert_eq!(code, 10070, "{field} = {text}: {msg}");
        assert!(msg.starts_with(&format!("{field}: ")), "{field}: {msg}");
    }
    let mut bad = good.clone();
    bad["personality"]["text"] = json!("She is in middle school.");
    let (code, _, msg) = call(&app, Some(&ann), "/user/v1/character/create", json!({ "draft": bad })).await;
    assert_eq!(code, 10070, "{msg}");
    assert!(msg.starts_with("personality.text: "), "{msg}");
    let mut bad = good.clone();
    bad["tags"] = json!(["romance", "loli"]);
    let (code, _, msg) = call(&app, Some(&ann), "/user/v1/character/create", json!({ "draft": bad })).await;
    assert_eq!(code, 10070, "{msg}");
    assert!(msg.starts_with("tags"), "{msg}");

    assert!(my_characters(&app, &ann).await.is_empty(), "nothing refused was stored");
    // The real thing passes.
    create(&app, &ann, good).await;
}

/// At most `limits.characters_per_user` characters, created or imported.
#[actix_rt::test]
async fn an_account_has_a_limited_number_of_characters() {
    let app = creation_app(StoreKind::Sqlite, &[("AMORA_LIMITS__CHARACTERS_PER_USER", "2")]).await;
    let ann = person(&app, "Ann").await;
    let first = create(&app, &ann, draft(&app, 0, "One").await).await;
    create(&app, &ann, draft(&app, 0, "Two").await).await;
    let (code, _, _) =
        call(&app, Some(&ann), "/user/v1/character/create", json!({ "draft": draft(&app, 0, "Three").await })).await;
    assert_eq!(code, 10003);
    let (code, _, _) =
        call(&app, Some(&ann), "/user/v1/character/duplicate", json!({ "characterId": id_of(&first) })).await;
    assert_eq!(code, 10003);
    let card = sample("v1.json");
    let (code, _, _) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("v1.json", &card, Some(30))).await;
    assert_eq!(code, 10003);
    assert_eq!(my_characters(&app, &ann).await.len(), 2);
}

/// Issue 28: the limit holds under concurrency. Twenty imports at once with room for three
/// stored twenty before (each counted two, then saved); now exactly three are stored and
/// every other import answers the limit's 10003. Deleting one gives its room back.
async fn concurrent_imports_store_no_more_than_the_limit(kind: StoreKind) {
    let app = creation_app(kind, &[("AMORA_LIMITS__CHARACTERS_PER_USER", "3")]).await;
    let ann = person(&app, "Ann").await;
    let card = sample("v1.json");
    let imports = (0..20)
        .map(|_| call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("v1.json", &card, Some(30))));
    let answers = futures_util::future::join_all(imports).await;
    let codes: Vec<u64> = answers.iter().map(|(code, _, _)| *code).collect();
    assert_eq!(codes.iter().filter(|&&code| code == 200).count(), 3, "{codes:?}");
    assert!(codes.iter().all(|&code| code == 200 || code == 10003), "{answers:?}");
    let mine = my_characters(&app, &ann).await;
    assert_eq!(mine.len(), 3);
    assert_eq!(app.store.created.count_by_creator(&ann.user_id).await.unwrap(), 3);

    let (code, _, msg) =
        call(&app, Some(&ann), "/user/v1/character/delete", json!({ "characterId": id_of(&mine[0]) })).await;
    assert_eq!(code, 200, "{msg}");
    ok(&app, Some(&ann), "/user/v1/character/importCard", import_payload("v1.json", &card, Some(30))).await;
    let (code, _, _) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("v1.json", &card, Some(30))).await;
    assert_eq!(code, 10003);
    assert_eq!(my_characters(&app, &ann).await.len(), 3);
}

#[actix_rt::test]
async fn concurrent_imports_store_no_more_than_the_limit_on_sqlite() {
    concurrent_imports_store_no_more_than_the_limit(StoreKind::Sqlite).await;
}

#[actix_rt::test]
async fn concurrent_imports_store_no_more_than_the_limit_on_cql() {
    if !cql_available() {
        eprintln!("AMORA_CQL_NODE is not set: skipped");
        return;
    }
    Box::pin(concurrent_imports_store_no_more_than_the_limit(StoreKind::Cql)).await;
}

/// Previews: a 320 px PNG data URL, the same for the same looks, limited per address.
#[actix_rt::test]
async fn portrait_previews_are_pictures_and_are_limited() {
    let app = creation_app(StoreKind::Sqlite, &[("AMORA_LIMITS__PORTRAIT_PREVIEWS_PER_MINUTE", "3")]).await;
    let good = draft(&app, 1, "Marco").await;
    let payload = json!({ "gender": 1, "style": good["style"], "looks": good["looks"] });
    let first = ok(&app, None, "/user/v1/character/previewPortrait", payload.clone()).await;
    let image = first["image"].as_str().unwrap();
    let png = B64.decode(image.strip_prefix("data:image/png;base64,").expect("a PNG data URL")).unwrap();
    let picture = image::load_from_memory(&png).unwrap();
    assert_eq!((picture.width(), first["width"].as_u64()), (320, Some(320)));
    let second = ok(&app, None, "/user/v1/character/previewPortrait", payload.clone()).await;
    assert_eq!(second, first, "the same looks, the same picture");
    let mut bad = payload.clone();
    bad["looks"]["age"] = json!(16);
    let (code, _, msg) = call(&app, None, "/user/v1/character/previewPortrait", bad).await;
    assert_eq!(code, 10001, "{msg}");
    let (code, _, _) = call(&app, None, "/user/v1/character/previewPortrait", payload).await;
    assert_eq!(code, 10003, "the fourth in a minute from one address");
}

/// The builder's preview is the portrait the character is saved with: the saved portrait,
/// narrowed to the preview's width as previews are, is the preview pixel for pixel (issue 30:
/// the preview showed one face and the saved character another).
#[actix_rt::test]
async fn the_saved_portrait_is_the_one_previewed() {
    let app = creation_app(StoreKind::Sqlite, &[]).await;
    let ann = person(&app, "Ann").await;
    for (gender, name) in [(0, "Lena"), (1, "Marco")] {
        let looks = draft(&app, gender, name).await;
        let payload = json!({ "gender": gender, "style": looks["style"], "looks": looks["looks"] });
        let preview = ok(&app, None, "/user/v1/character/previewPortrait", payload).await;
        let preview = preview["image"].as_str().and_then(|url| url.strip_prefix("data:image/png;base64,")).unwrap();
        let preview = image::load_from_memory(&B64.decode(preview).unwrap()).unwrap().to_rgba8();

        let created = create(&app, &ann, looks).await;
        let photo = created["character"]["characterPhoto"].as_str().unwrap().to_owned();
        let saved = image::load_from_memory(&media_bytes(&app, &photo).await).unwrap();
        let narrowed = if saved.width() > preview.width() {
            saved.resize(preview.width(), u32::MAX, image::imageops::FilterType::CatmullRom)
        } else {
            saved
        };
        assert_eq!(
            (narrowed.width(), narrowed.height()),
            (preview.width(), preview.height()),
            "{name}: the preview has the portrait's shape"
        );
        assert!(narrowed.to_rgba8() == preview, "{name}: the saved portrait is another picture than the preview");
    }
}

/// A character that is not public answers 10006 to everyone but its creator from every
/// call that names it.
#[actix_rt::test]
async fn a_private_character_is_nobody_else_s() {
    let app = creation_app(StoreKind::Sqlite, &[]).await;
    let ann = person(&app, "Ann").await;
    let bob = person(&app, "Bob").await;
    let id = id_of(&create(&app, &ann, draft(&app, 0, "Lena").await).await);
    let named = json!({ "characterId": id });

    for who in [Some(&bob), None] {
        assert_eq!(info_code(&app, who, &id).await.0, 10006);
        let (code, _, _) =
            call(&app, who, "/user/v1/character/exportCard", json!({ "characterId": id, "format": "json" })).await;
        assert_eq!(code, if who.is_some() { 10006 } else { 10004 });
    }
    let calls: Vec<(&str, Value)> = vec![
        ("/user/v1/chat/getMessageList", json!({ "characterId": id, "pageSize": 20 })),
        ("/user/v1/image/generate", json!({ "characterId": id, "scene": "beach", "count": 1 })),
        ("/user/v1/chat/requestPicture", named.clone()),
        ("/user/v1/voice/speak", json!({ "characterId": id, "messageId": "1" })),
        ("/user/v1/character/exportCard", json!({ "characterId": id, "format": "png" })),
        ("/user/v1/character/setVisibility", json!({ "characterId": id, "visibility": "public" })),
    ];
    for (path, payload) in &calls {
        let (code, _, msg) = call(&app, Some(&bob), path, payload.clone()).await;
        assert_eq!(code, 10006, "{path}: {msg}");
    }
    // On the socket: chatting with her is refused the same way.
    let url = format!("{}/lust/api/ws?voucher={}", app.address.replacen("http", "ws", 1), bob.voucher);
    let mut socket = Socket { stream: tokio_tungstenite::connect_async(url).await.unwrap().0 };
    socket.wait_for("hello", WAIT).await.expect("hello");
    use futures_util::SinkExt as _;
    let send = json!({ "action": "chatSend", "data": { "characterId": id, "content": "hi" } });
    socket.stream.send(tokio_tungstenite::tungstenite::Message::Text(send.to_string().into())).await.unwrap();
    let refused = socket.wait_for("chatError", WAIT).await.expect("chatError");
    assert_eq!(refused["data"]["code"], 10006, "{refused}");
    assert!(!listed(&app, Some(&bob), 0, &id).await);
    // Her creator exports her (the other calls' happy paths are the images, voice and chat tests').
    let exported =
        ok(&app, Some(&ann), "/user/v1/character/exportCard", json!({ "characterId": id, "format": "json" })).await;
    assert_eq!(exported["mime"], "application/json");
}

fn sample(name: &str) -> Vec<u8> {
    let path = format!("{}/../cards/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

fn import_payload(file_name: &str, bytes: &[u8], age: Option<i64>) -> Value {
    let mut payload = json!({ "fileName": file_name, "data": B64.encode(bytes) });
    if let Some(age) = age {
        payload["age"] = json!(age);
    }
    payload
}

/// The fields of an imported character that must survive a round trip.
fn kept(my: &Value) -> Value {
    let c = &my["character"];
    json!({
        "characterName": c["characterName"], "characterAge": c["characterAge"], "gender": c["gender"],
        "introduction": c["introduction"], "personality": c["personality"], "scenario": c["scenario"],
        "greeting": c["greeting"], "tags": c["tags"], "systemPrompt": c["systemPrompt"],
        "postHistoryInstructions": c["postHistoryInstructions"], "exampleDialogue": c["exampleDialogue"],
        "alternateGreetings": c["alternateGreetings"], "hasLorebook": c["hasLorebook"],
    })
}

async fn export(app: &TestApp, who: &Person, id: &str, format: &str) -> (String, Vec<u8>) {
    let data =
        ok(app, Some(who), "/user/v1/character/exportCard", json!({ "characterId": id, "format": format })).await;
    let bytes = B64.decode(data["data"].as_str().unwrap()).unwrap();
    (data["fileName"].as_str().unwrap().to_owned(), bytes)
}

/// Each sample card imports with its fields, exports as PNG and JSON, and imports again to
/// the same character and the same card.
async fn cards_round_trip(kind: StoreKind) {
    let app = creation_app(kind, &[]).await;
    let ann = person(&app, "Ann").await;
    for name in ["v1.json", "v2.png", "v3.png", "card.charx"] {
        let file = sample(name);
        let first = ok(&app, Some(&ann), "/user/v1/character/importCard", import_payload(name, &file, Some(29))).await;
        assert_eq!(first["imported"], true, "{name}");
        assert_eq!(first["status"], "private", "{name}");
        let card = amora_cards::import(&file, &amora_cards::Limits::default()).unwrap().card;
        let c = &first["character"];
        assert_eq!(c["characterName"], card.data.name.chars().take(40).collect::<String>(), "{name}");
        assert_eq!(c["characterAge"], 29, "{name}");
        assert_eq!(c["greeting"], card.data.first_mes, "{name}");
        assert_eq!(c["scenario"], card.data.scenario, "{name}");
        assert_eq!(c["exampleDialogue"], card.data.mes_example, "{name}");
        assert_eq!(c["systemPrompt"], card.data.system_prompt, "{name}");
        assert_eq!(c["postHistoryInstructions"], card.data.post_history_instructions, "{name}");
        assert_eq!(c["alternateGreetings"], json!(card.data.alternate_greetings), "{name}");
        let personality =
            if card.data.personality.is_empty() { &card.data.description } else { &card.data.personality };
        assert_eq!(c["personality"], personality.as_str(), "{name}");
        let lorebook = card.data.character_book.as_ref().is_some_and(|b| !b.entries.is_empty());
        assert_eq!(c["hasLorebook"], lorebook, "{name}");
        let photo = c["characterPhoto"].as_str().unwrap().to_owned();
        let portrait = media_bytes(&app, &photo).await;
        assert!(image::load_from_memory(&portrait).unwrap().width() <= 1024, "{name}");
        let id = id_of(&first);

        for format in ["png", "json"] {
            let (file_name, exported) = export(&app, &ann, &id, format).await;
            assert!(file_name.ends_with(&format!(".{format}")), "{file_name}");
            let out = amora_cards::import(&exported, &amora_cards::Limits::default()).unwrap();
            // Every field of the original card travels out, with Amora's beside them.
            let mut expected = card.clone();
            let mut got = out.card.clone();
            let amora = got.data.extensions.remove("amora").expect("extensions.amora");
            assert_eq!(amora["age"], 29, "{name} {format}");
            expected.data.extensions.remove("amora");
            assert_eq!(got.data, expected.data, "{name} {format}: every field of the card is kept");
            // Imported again (no age needed now), the same character and the same card.
            let again =
                ok(&app, Some(&ann), "/user/v1/character/importCard", import_payload(&file_name, &exported, None))
                    .await;
            assert_eq!(kept(&again), kept(&first), "{name} {format}");
            let (_, twice) = export(&app, &ann, &id_of(&again), format).await;
            if format == "json" {
                assert_eq!(twice, exported, "{name}: exported again, byte for byte");
            } else {
                let back = amora_cards::import(&twice, &amora_cards::Limits::default()).unwrap();
                assert_eq!(back.card, out.card, "{name}: the PNG carries the same card");
            }
        }
    }
}

#[actix_rt::test]
async fn sample_cards_round_trip_on_sqlite() {
    Box::pin(cards_round_trip(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn sample_cards_round_trip_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    Box::pin(cards_round_trip(StoreKind::Cql)).await;
}

/// A PNG chunk (length, type, data, CRC).
fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = (data.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.finalize().to_be_bytes());
    out
}

/// A small real PNG with `extra` chunks before IEND.
fn png_with(extra: &[Vec<u8>]) -> Vec<u8> {
    let picture = image::RgbaImage::from_pixel(8, 8, image::Rgba([10, 20, 30, 255]));
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(picture).write_to(&mut out, image::ImageFormat::Png).unwrap();
    let mut bytes = out.into_inner();
    let iend = bytes.len() - 12;
    let tail = bytes.split_off(iend);
    for c in extra {
        bytes.extend_from_slice(c);
    }
    bytes.extend_from_slice(&tail);
    bytes
}

/// Issue 28: an 8192×8192 card picture cost ~400 MiB to decode. Its header is read first
/// and the card refused with `card: image_too_large` before any pixel is decoded (this one
/// carries none: a decode would have answered `bad_image`); nothing is stored.
#[actix_rt::test]
async fn a_card_picture_over_the_pixel_limit_is_refused_before_decoding() {
    let app = creation_app(StoreKind::Sqlite, &[]).await;
    let ann = person(&app, "Ann").await;
    let card = json!({ "spec": "chara_card_v2", "spec_version": "2.0", "data": { "name": "Huge", "description": "A very big picture.", "first_mes": "hi" } });
    let chara = format!("chara\0{}", B64.encode(card.to_string()));
    let mut file = png_with(&[chunk(b"tEXt", chara.as_bytes())]);
    // The 8×8 picture's IHDR now claims 8192×8192 (its CRC made again).
    file[16..24].copy_from_slice(&[0, 0, 0x20, 0, 0, 0, 0x20, 0]);
    let crc = crc32fast::hash(&file[12..29]);
    file[29..33].copy_from_slice(&crc.to_be_bytes());
    let (code, _, msg) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("huge.png", &file, Some(25))).await;
    assert_eq!(code, 10001, "{msg}");
    assert!(msg.starts_with("card: image_too_large: "), "{msg}");
    assert!(my_characters(&app, &ann).await.is_empty(), "nothing refused was stored");
}

/// Issue 28: 30 import/delete cycles in 14 s were all taken. `importCard` is limited per
/// account (`limits.card_imports_per_user_per_minute`, refused imports counting): past it
/// 10003, for that account only.
#[actix_rt::test]
async fn card_imports_are_rate_limited_per_account() {
    let app = creation_app(StoreKind::Sqlite, &[("AMORA_LIMITS__CARD_IMPORTS_PER_USER_PER_MINUTE", "3")]).await;
    let (ann, bob) = (person(&app, "Ann").await, person(&app, "Bob").await);
    let card = sample("v1.json");
    for _ in 0..2 {
        let imported =
            ok(&app, Some(&ann), "/user/v1/character/importCard", import_payload("v1.json", &card, Some(30))).await;
        let id = id_of(&imported);
        assert_eq!(ok(&app, Some(&ann), "/user/v1/character/delete", json!({ "characterId": id })).await, json!(true));
    }
    let (code, _, msg) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("x.txt", b"not a card", Some(30))).await;
    assert_eq!(code, 10001, "a refused import counts too: {msg}");
    let (code, _, msg) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("v1.json", &card, Some(30))).await;
    assert_eq!(code, 10003, "the fourth in a minute: {msg}");
    assert!(my_characters(&app, &ann).await.is_empty());
    ok(&app, Some(&bob), "/user/v1/character/importCard", import_payload("v1.json", &card, Some(30))).await;
}

/// A card that states its age (the samples say "She is 34") is imported at that age without
/// asking; an age the importer sends still wins (the UI sends one only when asked).
#[actix_rt::test]
async fn a_card_stating_its_age_is_imported_at_that_age() {
    let app = creation_app(StoreKind::Sqlite, &[]).await;
    let ann = person(&app, "Ann").await;
    for name in ["v1.json", "v2.png", "v3.png"] {
        let imported =
            ok(&app, Some(&ann), "/user/v1/character/importCard", import_payload(name, &sample(name), None)).await;
        assert_eq!(imported["character"]["characterAge"], 34, "{name}");
    }
    let tagged = json!({ "spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Tagged", "description": "A pilot.", "first_mes": "hi", "tags": ["18+", "27 years old"] } })
    .to_string();
    let imported =
        ok(&app, Some(&ann), "/user/v1/character/importCard", import_payload("t.json", tagged.as_bytes(), None)).await;
    assert_eq!(imported["character"]["characterAge"], 27);
}

/// Broken and hostile files are refused with 10001 naming the card's fault, and nothing is stored.
#[actix_rt::test]
async fn bad_cards_are_refused_and_leave_nothing() {
    // Megabytes of body from a loaded test machine may take longer than the default 30 s.
    let app = creation_app(StoreKind::Sqlite, &[("AMORA_HTTP__REQUEST_TIMEOUT_SECS", "300")]).await;
    let ann = person(&app, "Ann").await;
    let v2 = sample("v2.png");

    let mut truncated = v2.clone();
    truncated.truncate(v2.len() / 2);
    let mut bad_crc = v2.clone();
    let at = 8 + 8 + 3; // inside IHDR's data
    bad_crc[at] ^= 0xff;
    let huge_text = {
        let mut data = b"chara\0".to_vec();
        data.extend(std::iter::repeat_n(b'A', 3 * 1024 * 1024));
        png_with(&[chunk(b"tEXt", &data)])
    };
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_card = format!(
        r#"{{"spec":"chara_card_v2","spec_version":"2.0","data":{{"name":"Deep","extensions":{{"x":{deep}}}}}}}"#
    );
    let giant = json!({ "name": "Giant", "description": "x".repeat(200_000), "first_mes": "hi" }).to_string();
    let many = json!({ "spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Many", "first_mes": "hi", "alternate_greetings": vec!["hi"; 5000] } })
    .to_string();
    let deep_b64 = B64.encode(deep_card.as_bytes());
    let deep_in_png = png_with(&[chunk(b"tEXt", format!("chara\0{deep_b64}").as_bytes())]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated.png", truncated, "card: png_"),
        ("bad-crc.png", bad_crc, "card: png_bad_crc"),
        ("plain.png", png_with(&[]), "card: no_card_in_png"),
        ("huge-chunk.png", huge_text, "card: chunk_too_large"),
        ("deep.json", deep_card.into_bytes(), "card: json_too_deep"),
        ("deep.png", deep_in_png, "card: json_too_deep"),
        ("giant.json", giant.into_bytes(), "card: string_too_long"),
        ("many.json", many.into_bytes(), "card: too_many_items"),
        ("notes.txt", b"just some text".to_vec(), "card: unknown_format"),
        ("photo.jpg", vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F', 0], "card: no_card_in_jpeg"),
    ];
    for (name, bytes, expected) in cases {
        let (code, _, msg) =
            call(&app, Some(&ann), "/user/v1/character/importCard", import_payload(name, &bytes, Some(25))).await;
        assert_eq!(code, 10001, "{name}: {msg}");
        assert!(msg.starts_with(expected), "{name}: {msg}");
    }

    // A card without an age: the UI asks and sends again.
    let ageless =
        json!({ "name": "Ageless", "description": "A lighthouse keeper who reads.", "first_mes": "hi" }).to_string();
    let (code, _, msg) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("a.json", ageless.as_bytes(), None))
            .await;
    assert_eq!((code, msg.as_str()), (10001, "characterAge: the card gives no age"));
    let (code, _, msg) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("a.json", ageless.as_bytes(), Some(16)))
            .await;
    assert_eq!(code, 10001, "{msg}");
    assert!(msg.starts_with("characterAge"), "{msg}");

    // A card stating a minor's age is refused whatever age is offered, and never asks
    // (10070: the guidelines' code, so the client offers no age to type over it).
    // In words moderation names the field; as a bare number (`extensions.age`) no text says
    // it, and the stated age itself refuses the card.
    let minor_words = json!({ "name": "Mira", "description": "Age: 16\nShe likes the sea.", "first_mes": "hi" });
    let minor_number = json!({ "spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Nora", "description": "She likes the sea.", "first_mes": "hi", "extensions": { "age": 16 } } });
    for (card, field) in
        [(minor_words, "description: "), (minor_number, "characterAge: the card says the character is 16")]
    {
        for offered in [None, Some(25)] {
            let bytes = card.to_string();
            let (code, _, msg) = call(
                &app,
                Some(&ann),
                "/user/v1/character/importCard",
                import_payload("m.json", bytes.as_bytes(), offered),
            )
            .await;
            assert_eq!(code, 10070, "{offered:?}: {msg}");
            assert!(msg.starts_with(field), "{offered:?}: {msg}");
        }
    }

    // Content the guidelines forbid, anywhere in the card.
    let minor = json!({ "name": "Kid", "description": "She is 14 years old.", "first_mes": "hi" }).to_string();
    let (code, _, msg) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("m.json", minor.as_bytes(), Some(25)))
            .await;
    assert_eq!(code, 10070, "{msg}");
    assert!(msg.starts_with("description: "), "{msg}");
    let lore = json!({ "spec": "chara_card_v2", "spec_version": "2.0", "data": { "name": "Lore", "first_mes": "hi",
        "character_book": { "entries": [ { "keys": ["x"], "content": "fine" }, { "keys": ["y"], "content": "a loli maid" } ] } } })
    .to_string();
    let (code, _, msg) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("l.json", lore.as_bytes(), Some(25)))
            .await;
    assert_eq!(code, 10070, "{msg}");
    assert!(msg.starts_with("lorebook[1]: "), "{msg}");

    // A file over 8 MiB inside the upload limit, and a body over the upload limit.
    let big = vec![b' '; 8 * 1024 * 1024 + 1024];
    let (code, _, msg) =
        call(&app, Some(&ann), "/user/v1/character/importCard", import_payload("big.json", &big, Some(25))).await;
    assert_eq!(code, 10001, "{msg}");
    assert!(msg.starts_with("card: file_too_large"), "{msg}");
    let body = json!({ "requestData": "A".repeat(17 * 1024 * 1024) }).to_string();
    assert_eq!(raw_status(&app, &ann, "/user/v1/character/importCard", body).await, 413);

    assert!(my_characters(&app, &ann).await.is_empty(), "nothing refused was stored");
    // Upload bodies are for importCard only.
    let body = json!({ "requestData": "A".repeat(100 * 1024) }).to_string();
    assert_eq!(raw_status(&app, &ann, "/user/v1/character/create", body).await, 413);
}

/// The HTTP status of a raw body POSTed as `who`. A server that refuses a body before
/// reading it all may close the connection while the client still writes (then the client
/// sees a reset instead of the answer): tried again a few times for the status.
async fn raw_status(app: &TestApp, who: &Person, path: &str, body: String) -> u16 {
    let mut last_error = None;
    for _ in 0..5 {
        let sent = app
            .client
            .post(app.url(&format!("/lust/api{path}")))
            .header("secretKey", crate::helpers::SECRET)
            .header("voucher", &who.voucher)
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await;
        match sent {
            Ok(response) => return response.status().as_u16(),
            Err(error) => last_error = Some(error),
        }
    }
    panic!("{path}: no answer: {last_error:?}")
}

/// The review queue over the operator API: token required, oldest first, reasons checked.
#[actix_rt::test]
async fn the_review_queue_is_the_operator_s() {
    let app = creation_app(StoreKind::Sqlite, &[]).await;
    let ann = person(&app, "Ann").await;
    let mut public = draft(&app, 0, "First").await;
    public["visibility"] = json!("public");
    let first = create(&app, &ann, public.clone()).await;
    assert_eq!(first["status"], "review");
    public["characterName"] = json!("Second");
    let second = create(&app, &ann, public).await;
    create(&app, &ann, draft(&app, 0, "Private").await).await;

    let response = app.client.get(app.url("/lust/admin/character/review")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 401, "no token");
    let (status, queue) = admin_get(&app, "character/review?limit=50").await;
    assert_eq!(status, 200);
    let ids: Vec<&str> =
        queue["characters"].as_array().unwrap().iter().map(|c| c["characterId"].as_str().unwrap()).collect();
    assert_eq!(ids, [id_of(&first), id_of(&second)], "oldest first, private ones never");
    let entry = &queue["characters"][0];
    for field in [
        "characterName",
        "creatorId",
        "gender",
        "nsfw",
        "introduction",
        "greeting",
        "scenario",
        "personality",
        "characterPhoto",
        "submittedAt",
    ] {
        assert!(entry.get(field).is_some(), "{field} in {entry}");
    }
    let (status, _) =
        admin_post(&app, "character/reject", json!({ "characterId": id_of(&first), "reason": "x".repeat(301) })).await;
    assert_eq!(status, 400);
    let (status, _) = admin_post(&app, "character/approve", json!({ "characterId": "gf-001" })).await;
    assert_eq!(status, 409, "a seeded character is not in review");
    let (status, _) =
        admin_post(&app, "character/reject", json!({ "characterId": id_of(&second), "reason": "No." })).await;
    assert_eq!(status, 200);
    let (_, queue) = admin_get(&app, "character/review?limit=1").await;
    assert_eq!(queue["characters"].as_array().unwrap().len(), 1);
    assert_eq!(queue["characters"][0]["characterId"], id_of(&first).as_str());
}

/// An imported card's lorebook reaches the model: its constant entry is in the system
/// message from the first reply, and a keyed entry joins the prompt, after the history,
/// in the reply to the message that names its key. The prompts are read where the model
/// receives them, on a loopback OpenAI-compatible API.
#[actix_rt::test]
async fn an_imported_cards_lorebook_reaches_the_prompt() {
    const CONSTANT: &str = "Marisol never leaves the rock in winter.";
    const LIGHTHOUSE: &str = "The Gull Rock light is a first-order Fresnel lens, lit since 1871.";
    const WRECK: &str = "A trawler, the Kittiwake, broke up on the reef last winter.";
    let model = ChatApiFake::start().await;
    let app = creation_app(
        StoreKind::Sqlite,
        &[
            ("AMORA_CHAT__MODEL__KIND", "openai"),
            ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", model.base_url.as_str()),
            ("AMORA_CHAT__MODEL__OPENAI__MODEL", "any"),
            ("AMORA_CHAT__MEMORY_EVERY_TURNS", "0"),
        ],
    )
    .await;
    let ann = person(&app, "Ann").await;
    let imported =
        ok(&app, Some(&ann), "/user/v1/character/importCard", import_payload("v3.png", &sample("v3.png"), Some(34)))
            .await;
    let id = id_of(&imported);
    assert_eq!(imported["character"]["hasLorebook"], true, "{imported}");

    let url = format!("{}/lust/api/ws?voucher={}", app.address.replacen("http", "ws", 1), ann.voucher);
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut socket = Socket { stream };
    socket.wait_for("hello", WAIT).await.expect("hello");
    async fn reply_to(socket: &mut Socket, model: &ChatApiFake, id: &str, text: &str) -> Vec<String> {
        crate::chat::send(socket, id, text).await;
        let events = crate::chat::until_reply_ends(socket).await;
        assert!(events.iter().any(|e| e["event"] == "chatDone"), "{events:?}");
        model.prompts().pop().expect("the model was asked")
    }

    let prompt = reply_to(&mut socket, &model, &id, "Good evening. May I come in?").await;
    assert!(prompt[0].starts_with("system: ") && prompt[0].contains(CONSTANT), "{prompt:?}");
    assert!(!prompt.iter().any(|m| m.contains(LIGHTHOUSE) || m.contains(WRECK)), "no key was named: {prompt:?}");

    let prompt = reply_to(&mut socket, &model, &id, "Is that the lighthouse lamp up there?").await;
    let last = prompt.last().unwrap();
    assert!(last.starts_with("system: ") && last.contains(LIGHTHOUSE) && !last.contains(WRECK), "{prompt:?}");
    assert_eq!(prompt[prompt.len() - 3], "user: Is that the lighthouse lamp up there?", "after the history");
    assert!(prompt[prompt.len() - 2].starts_with("system: Reply as "), "and the reply guide (issue 18)");
    assert!(prompt[0].contains(CONSTANT), "the constant entry stays");
}
