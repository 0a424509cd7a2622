//! The public feed's safety (issue 27) against the real server: an image enters the feed
//! only when its prompt passes the strict image rule again. Images are stored straight
//! through the store, as one made before the rule was tightened would be: generation
//! would now refuse their prompts. Every test runs on SQLite and on the CQL store at
//! `AMORA_CQL_NODE`.

use amora_domain::chat::EntryId;
use amora_store::GalleryRecord;
use serde_json::json;

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

on_both_stores!(a_prompt_the_image_rule_refuses_never_reaches_the_feed);

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
