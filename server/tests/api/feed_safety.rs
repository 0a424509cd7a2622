//! The public feed's safety (issue 27) against the real server: an image enters the feed
//! only when its prompt passes the strict image rule again (images are stored straight
//! through the store, as one made before the rule was tightened would be: generation would
//! now refuse their prompts); reports of distinct users hide a feed image from everyone
//! until the operator restores or removes it; the operator lists the feed and reads the
//! moderation log. Every test runs on SQLite and on the CQL store at `AMORA_CQL_NODE`.

use amora_domain::chat::EntryId;
use amora_store::GalleryRecord;
use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::images::{OPERATOR, Person, StoreKind, call, feed, image_app, make_young_user, person, share};

/// Stores an image of `who` with `prompt` in the gallery (no bytes: sharing needs none)
/// and answers its id as the API writes it.
async fn stored(app: &crate::helpers::TestApp, who: &Person, prompt: &str) -> String {
    let image_id = amora_actors::chat::new_entry_id();
    app.store
        .gallery
        .add(GalleryRecord {
            image_id,
            job_id: EntryId::from_raw(image_id.raw() - 1),
            user_id: who.user_id.clone(),
            character_id: None,
            character_name: None,
            prompt: prompt.to_owned(),
            scene: None,
            outfit: None,
            pose: None,
            style: None,
            width: 512,
            height: 768,
            nsfw: false,
            illustration: true,
            restricted: false,
            feed_id: None,
        })
        .await
        .unwrap();
    image_id.raw().to_string()
}

macro_rules! on_both_stores {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[actix_rt::test]
                async fn $name() {
                    super::$name(super::StoreKind::Sqlite).await;
                }
            )*
        }
        mod cql {
            $(
                #[actix_rt::test]
                async fn $name() {
                    super::$name(super::StoreKind::Cql).await;
                }
            )*
        }
    };
}

on_both_stores!(
    a_prompt_the_image_rule_refuses_never_reaches_the_feed,
    distinct_reporters_hide_a_feed_image_until_the_operator_decides,
    the_number_of_reporters_that_hide_an_image_is_a_setting,
);

/// The chat rule refuses a minor only next to a sexual word; the image rule refuses any
/// minor on its own, since on an adult platform every image prompt is a sexual context.
/// These prompts pass the first and fail the second.
const MINOR_PROMPTS: [&str; 3] = ["portrait of a 14 year old girl", "a toddler on the bed", "an underage girl"];

async fn a_prompt_the_image_rule_refuses_never_reaches_the_feed(kind: StoreKind) {
    let app = image_app(kind, |_| {}).await;
    let ann = person(&app, "Ann", 0).await;
    for prompt in MINOR_PROMPTS {
        let image = stored(&app, &ann, prompt).await;
        let (code, data, msg) =
            call(&app, Some(&ann), "/user/v1/image/shareImage", json!({ "imageId": image, "shared": true })).await;
        assert_eq!(code, 10070, "{prompt:?} is refused with inputContentIllegal: {data} {msg}");
        let kept = app.store.gallery.get(&ann.user_id, EntryId::from_raw(image.parse().unwrap())).await.unwrap();
        assert_eq!(kept.and_then(|image| image.feed_id), None, "{prompt:?} is not shared");
    }
    assert!(feed(&app, None, &[]).await.is_empty(), "signed out sees none of them");
    assert!(feed(&app, Some(&ann), &[]).await.is_empty(), "nor does their owner");

    // An adult's portrait is shared as before.
    let adult = stored(&app, &ann, "portrait of a 30 year old woman on the beach at sunset").await;
    let (code, shared) = share(&app, &ann, &adult, true).await;
    assert_eq!((code, shared["shared"].as_bool()), (200, Some(true)), "{shared}");
    assert_eq!(feed(&app, None, &[]).await, [adult]);

    // Each refusal is in the operator's moderation log, newest first, for whom and where.
    let (status, log) = operator_get(&app, "/lust/admin/moderation/log?limit=10").await;
    assert_eq!(status, 200, "{log}");
    let events = log["events"].as_array().cloned().unwrap_or_default();
    let excerpts: Vec<&str> = events.iter().map(|e| e["excerpt"].as_str().unwrap_or_default()).collect();
    assert_eq!(excerpts, MINOR_PROMPTS.iter().rev().copied().collect::<Vec<_>>());
    for event in &events {
        assert_eq!(event["surface"], "feedShare", "{event}");
        assert_eq!(event["policy"], "image", "{event}");
        assert_eq!(event["layer"], "rules", "{event}");
        assert_eq!(event["userId"], json!(ann.user_id.as_str()), "{event}");
        assert!(event["refusal"].as_str().is_some_and(|r| !r.is_empty()), "{event}");
    }
    // Paged with `before`, the oldest id of the page before.
    let (_, first) = operator_get(&app, "/lust/admin/moderation/log?limit=2").await;
    assert_eq!(first["hasMore"], true);
    let oldest = first["events"][1]["eventId"].as_str().unwrap_or_default().to_owned();
    let (_, rest) = operator_get(&app, &format!("/lust/admin/moderation/log?limit=2&before={oldest}")).await;
    let rest: Vec<&str> =
        rest["events"].as_array().unwrap().iter().map(|e| e["excerpt"].as_str().unwrap_or_default()).collect();
    assert_eq!(rest, [MINOR_PROMPTS[0]]);
    let unauthorised = app.client.get(app.url("/lust/admin/moderation/log")).send().await.unwrap();
    assert_eq!(unauthorised.status().as_u16(), 401);
}

async fn operator_get(app: &TestApp, path: &str) -> (u16, Value) {
    let response = app.client.get(app.url(path)).bearer_auth(OPERATOR).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

async fn operator_post(app: &TestApp, path: &str, body: Value) -> (u16, Value) {
    let response = app.client.post(app.url(path)).bearer_auth(OPERATOR).json(&body).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

/// Stores and shares an adult image of `who`; answers its image id and feed id.
pub(crate) async fn shared(app: &TestApp, who: &Person, prompt: &str) -> (String, String) {
    let image = stored(app, who, prompt).await;
    let (code, view) = share(app, who, &image, true).await;
    assert_eq!(code, 200, "{view}");
    let record = app.store.gallery.get(&who.user_id, EntryId::from_raw(image.parse().unwrap())).await.unwrap();
    let feed_id = record.and_then(|r| r.feed_id).unwrap().raw().to_string();
    (image, feed_id)
}

async fn report(app: &TestApp, who: &Person, payload: Value) -> (u64, Value, String) {
    call(app, Some(who), "/user/v1/report/reportContent", payload).await
}

async fn report_image(app: &TestApp, who: &Person, feed_id: &str) -> u64 {
    let (code, data, _) = report(app, who, json!({ "feedId": feed_id, "reason": "minor" })).await;
    if code == 200 {
        assert!(data["reportId"].as_str().is_some_and(|id| !id.is_empty()), "{data}");
    }
    code
}

/// Every image id of the feed as `who` sees it, read one image a page.
async fn feed_paged(app: &TestApp, who: Option<&Person>) -> Vec<String> {
    let mut seen = Vec::new();
    let mut before: Option<String> = None;
    loop {
        let mut payload = json!({ "pageSize": 1 });
        if let Some(before) = &before {
            payload["beforeId"] = json!(before);
        }
        let (code, page, msg) = call(app, who, "/user/v1/image/getFeed", payload).await;
        assert_eq!(code, 200, "{msg}");
        let images = page["images"].as_array().cloned().unwrap_or_default();
        let Some(last) = images.last() else { return seen };
        seen.extend(images.iter().map(|i| i["imageId"].as_str().unwrap_or_default().to_owned()));
        before = last["feedId"].as_str().map(str::to_owned);
    }
}

fn listed(page: &Value) -> Vec<(String, u64, bool)> {
    page["images"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|i| {
            (
                i["imageId"].as_str().unwrap_or_default().to_owned(),
                i["reports"].as_u64().unwrap_or(99),
                i["hidden"].as_bool().unwrap_or_default(),
            )
        })
        .collect()
}

async fn distinct_reporters_hide_a_feed_image_until_the_operator_decides(kind: StoreKind) {
    let app = image_app(kind, |_| {}).await;
    let ann = person(&app, "Ann", 0).await;
    let reporters = [
        person(&app, "R1", 0).await,
        person(&app, "R2", 0).await,
        person(&app, "R3", 0).await,
        person(&app, "R4", 0).await,
    ];
    let (x, x_feed) = shared(&app, &ann, "a woman of 30 reading by the window").await;
    let (y, y_feed) = shared(&app, &ann, "a couple in their forties dancing").await;
    let (z, _) = shared(&app, &ann, "an adult man hiking at dawn").await;
    assert_eq!(feed(&app, None, &[]).await, [z.clone(), y.clone(), x.clone()]);

    // The request names one thing: a character (and reply) or a feed image.
    let (code, _, _) =
        report(&app, &reporters[0], json!({ "feedId": x_feed, "characterId": "gf-001", "reason": "minor" })).await;
    assert_eq!(code, 10001, "both");
    let (code, _, _) =
        report(&app, &reporters[0], json!({ "feedId": x_feed, "messageId": "17", "reason": "minor" })).await;
    assert_eq!(code, 10001, "a reply of a feed image");
    let (code, _, _) = report(&app, &reporters[0], json!({ "feedId": "12345", "reason": "minor" })).await;
    assert_eq!(code, 10006, "no such feed entry");
    let (code, _, _) = report(&app, &reporters[0], json!({ "feedId": x_feed, "reason": "other" })).await;
    assert_eq!(code, 10001, "other needs a note");
    let (code, _, _) =
        call(&app, None, "/user/v1/report/reportContent", json!({ "feedId": x_feed, "reason": "minor" })).await;
    assert_eq!(code, 10004, "signed in only");

    // One reporter three times counts once; two reporters are not enough.
    for _ in 0..3 {
        assert_eq!(report_image(&app, &reporters[0], &x_feed).await, 200);
    }
    assert_eq!(feed(&app, None, &[]).await, [z.clone(), y.clone(), x.clone()], "one reporter, three reports");
    assert_eq!(report_image(&app, &reporters[1], &x_feed).await, 200);
    assert_eq!(feed(&app, None, &[]).await, [z.clone(), y.clone(), x.clone()], "two reporters");
    // The third distinct reporter takes it out of the feed, for everyone and every page.
    assert_eq!(report_image(&app, &reporters[2], &x_feed).await, 200);
    assert_eq!(feed(&app, None, &[]).await, [z.clone(), y.clone()], "signed out");
    assert_eq!(feed(&app, Some(&reporters[3]), &[]).await, [z.clone(), y.clone()], "signed in");
    assert_eq!(feed(&app, Some(&ann), &[]).await, [z.clone(), y.clone()], "its owner");
    let young = make_young_user(&app).await;
    assert_eq!(feed(&app, Some(&young), &[]).await, [z.clone(), y.clone()], "a new account");
    assert_eq!(feed_paged(&app, None).await, [z.clone(), y.clone()], "page by page");
    assert_eq!(report_image(&app, &reporters[3], &x_feed).await, 10006, "no longer in the feed to report");
    // Unsharing and sharing it again does not bring it back.
    assert_eq!(share(&app, &ann, &x, false).await.0, 200);
    assert_eq!(share(&app, &ann, &x, true).await.0, 200);
    assert_eq!(feed(&app, None, &[]).await, [z.clone(), y.clone()], "shared again, still hidden");
    let x_feed = app
        .store
        .gallery
        .get(&ann.user_id, EntryId::from_raw(x.parse().unwrap()))
        .await
        .unwrap()
        .and_then(|r| r.feed_id)
        .unwrap()
        .raw()
        .to_string();
    assert_eq!(report_image(&app, &reporters[0], &y_feed).await, 200, "one report of y");

    // The operator's listing: everything newest first, the flagged, the hidden.
    let unauthorised = app.client.get(app.url("/lust/admin/feed")).send().await.unwrap();
    assert_eq!(unauthorised.status().as_u16(), 401);
    let (status, all) = operator_get(&app, "/lust/admin/feed").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(listed(&all), [(x.clone(), 3, true), (z.clone(), 0, false), (y.clone(), 1, false)]);
    let first = &all["images"][0];
    assert_eq!(first["prompt"], "a woman of 30 reading by the window");
    assert_eq!(first["ownerId"], json!(ann.user_id.as_str()));
    assert_eq!(first["ownerNo"], json!(ann.user_no));
    assert_eq!(first["feedId"], json!(x_feed));
    assert!(first["hiddenAt"].as_i64().is_some(), "{first}");
    let (_, flagged) = operator_get(&app, "/lust/admin/feed?filter=flagged").await;
    assert_eq!(listed(&flagged), [(x.clone(), 3, true), (y.clone(), 1, false)]);
    let (_, hidden) = operator_get(&app, "/lust/admin/feed?filter=hidden").await;
    assert_eq!(listed(&hidden), [(x.clone(), 3, true)]);
    let (_, page) = operator_get(&app, &format!("/lust/admin/feed?limit=1&before={x_feed}")).await;
    assert_eq!(listed(&page), [(z.clone(), 0, false)], "paged by feedId");
    assert_eq!(operator_get(&app, "/lust/admin/feed?filter=odd").await.0, 400);

    // Restored: back in the feed, its reports cleared.
    let (status, answer) = operator_post(&app, "/lust/admin/feed/restore", json!({ "feedId": x_feed })).await;
    assert_eq!((status, &answer["outcome"]), (200, &json!("restored")), "{answer}");
    assert_eq!(feed(&app, None, &[]).await, [x.clone(), z.clone(), y.clone()]);
    let (_, all) = operator_get(&app, "/lust/admin/feed").await;
    assert_eq!(listed(&all)[0], (x.clone(), 0, false));
    // Hiding it again takes three new distinct reporters.
    assert_eq!(report_image(&app, &reporters[0], &x_feed).await, 200);
    assert_eq!(report_image(&app, &reporters[1], &x_feed).await, 200);
    assert_eq!(feed(&app, None, &[]).await, [x.clone(), z.clone(), y.clone()]);

    // Removed: out of the feed for good, the image and its bytes deleted.
    let (status, answer) = operator_post(&app, "/lust/admin/feed/remove", json!({ "feedId": y_feed })).await;
    assert_eq!((status, &answer["outcome"]), (200, &json!("removed")), "{answer}");
    assert_eq!(answer["imageId"], json!(y));
    assert_eq!(feed(&app, None, &[]).await, [x.clone(), z.clone()]);
    assert!(app.store.gallery.get(&ann.user_id, EntryId::from_raw(y.parse().unwrap())).await.unwrap().is_none());
    let (_, flagged) = operator_get(&app, "/lust/admin/feed?filter=flagged").await;
    assert_eq!(listed(&flagged), [(x.clone(), 2, false)], "its reports went with it");
    assert_eq!(operator_post(&app, "/lust/admin/feed/remove", json!({ "feedId": y_feed })).await.0, 404, "once");
    assert_eq!(operator_post(&app, "/lust/admin/feed/restore", json!({ "feedId": y_feed })).await.0, 404);
    assert_eq!(operator_post(&app, "/lust/admin/feed/restore", json!({ "feedId": "x1" })).await.0, 400);
}

async fn the_number_of_reporters_that_hide_an_image_is_a_setting(kind: StoreKind) {
    let app = image_app(kind, |settings| settings.moderation.feed_hide_reports = 1).await;
    let ann = person(&app, "Ann", 0).await;
    let bob = person(&app, "Bob", 0).await;
    let (x, x_feed) = shared(&app, &ann, "a woman of 30 reading by the window").await;
    let (y, _) = shared(&app, &ann, "a couple in their forties dancing").await;
    assert_eq!(feed(&app, None, &[]).await, [y.clone(), x]);
    assert_eq!(report_image(&app, &bob, &x_feed).await, 200);
    assert_eq!(feed(&app, None, &[]).await, [y], "one reporter is enough here");
}
