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
use crate::images::{Person, StoreKind, call, feed, image_app, person, share};

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
}

/// Stores and shares an adult image of `who`; answers its image id and feed id.
async fn shared(app: &TestApp, who: &Person, prompt: &str) -> (String, String) {
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
