//! The character catalogue: paging rules, the gender filter and restricted exposure.

use std::collections::HashSet;

use amora_domain::character::{CharacterId, Exposure};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::viewer::Viewer;

use crate::helpers::{ids, spawn_app};

/// Walks every page of a gender's catalogue and returns the ids in order.
async fn all_ids(app: &crate::helpers::TestApp, gender: i64, page_size: i64) -> Vec<String> {
    let mut all = Vec::new();
    for page_no in 1.. {
        let envelope = app.character_list(page_no, page_size, gender).await;
        assert_eq!(envelope.code, 200);
        let page = ids(&envelope.data);
        let last = page.len() < page_size as usize;
        all.extend(page);
        if last {
            break;
        }
        assert!(page_no < 100, "paging never ended");
    }
    all
}

#[actix_rt::test]
async fn the_home_page_gets_thirty_cards_with_every_field() {
    let app = spawn_app().await;
    let envelope = app.character_list(1, 30, 0).await;
    let cards = envelope.data.as_array().unwrap();
    assert_eq!(cards.len(), 30);
    for card in cards {
        assert!(card["characterName"].as_str().is_some_and(|n| !n.is_empty()));
        assert!(card["characterAge"].as_u64().is_some_and(|age| (18..=45).contains(&age)));
        assert!(card["introduction"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(card["characterPhoto"].as_str().is_some_and(|p| p.starts_with("/media/")));
        assert_eq!(card["characterImageList"].as_array().map(Vec::len), Some(1));
        assert!(card["usedType"] == 0 || card["usedType"] == 1);
        assert_eq!(card["gender"], 0);
    }
}

#[actix_rt::test]
async fn page_two_continues_page_one_without_repeats_and_a_short_page_is_the_last() {
    let app = spawn_app().await;
    let first = ids(&app.character_list(1, 30, 0).await.data);
    let second = ids(&app.character_list(2, 30, 0).await.data);
    let overlap: Vec<_> = first.iter().filter(|id| second.contains(id)).collect();
    assert!(overlap.is_empty(), "repeated: {overlap:?}");

    let all = all_ids(&app, 0, 30).await;
    assert_eq!(&all[..30], &first[..]);
    assert_eq!(&all[30..60.min(all.len())], &second[..]);
    let unique: HashSet<_> = all.iter().collect();
    assert_eq!(unique.len(), all.len());
    // The walk ended on a page shorter than 30, and the next page is empty.
    assert!(all.len() % 30 != 0 || all.is_empty());
    let after = app.character_list((all.len() / 30) as i64 + 2, 30, 0).await;
    assert_eq!(after.data.as_array().map(Vec::len), Some(0));
}

#[actix_rt::test]
async fn a_page_of_exactly_page_size_is_followed_by_more_or_an_empty_page() {
    let app = spawn_app().await;
    let total = all_ids(&app, 1, 60).await.len() as i64;
    // With the page size equal to the whole catalogue, page 1 is full and page 2 is empty.
    let full = app.character_list(1, total.min(60), 1).await;
    assert_eq!(full.data.as_array().map(Vec::len), Some(total.min(60) as usize));
    if total <= 60 {
        assert_eq!(app.character_list(2, total, 1).await.data.as_array().map(Vec::len), Some(0));
    }
    // Small pages walk the same sequence as large ones.
    assert_eq!(all_ids(&app, 1, 7).await, all_ids(&app, 1, 60).await);
}

#[actix_rt::test]
async fn the_gender_filter_swaps_catalogues() {
    let app = spawn_app().await;
    let girls = all_ids(&app, 0, 60).await;
    let guys = all_ids(&app, 1, 60).await;
    assert!(girls.len() >= 50 && guys.len() >= 50, "{} girls, {} guys", girls.len(), guys.len());
    assert!(girls.iter().all(|id| !guys.contains(id)));
    let page = app.character_list(1, 60, 1).await;
    assert!(page.data.as_array().unwrap().iter().all(|card| card["gender"] == 1));
}

#[actix_rt::test]
async fn restricted_characters_are_absent_for_signed_out_users() {
    let app = spawn_app().await;
    for (gender, code) in [(Gender::Girls, 0), (Gender::Guys, 1)] {
        let everything =
            app.store.characters.list_cards(gender, Viewer::Member, PageRequest::parse(1, 60).unwrap()).await.unwrap();
        let mut member_ids: Vec<String> = everything.iter().map(|c| c.character_id.to_string()).collect();
        member_ids.extend(
            app.store
                .characters
                .list_cards(gender, Viewer::Member, PageRequest::parse(2, 60).unwrap())
                .await
                .unwrap()
                .iter()
                .map(|c| c.character_id.to_string()),
        );
        let public = all_ids(&app, code, 30).await;
        let hidden: Vec<_> = member_ids.iter().filter(|id| !public.contains(id)).collect();
        assert!(!hidden.is_empty(), "the catalogue should have restricted characters");
        for id in hidden {
            let envelope = app.character_info(id).await;
            assert_eq!(envelope.code, 10006, "restricted {id} must not be readable signed out");
        }
    }
}

#[actix_rt::test]
async fn bad_paging_values_are_param_errors() {
    let app = spawn_app().await;
    for (page_no, page_size, gender, field) in [
        (0, 30, 0, "pageNo"),
        (1, 61, 0, "pageSize"),
        (1, 0, 0, "pageSize"),
        (1, 30, 2, "gender"),
        (-4, 30, 0, "pageNo"),
    ] {
        let envelope = app.character_list(page_no, page_size, gender).await;
        assert_eq!(envelope.code, 10001, "{page_no}/{page_size}/{gender}");
        assert!(envelope.msg.starts_with(field), "{}", envelope.msg);
    }
}

#[actix_rt::test]
async fn character_info_has_what_a_chat_needs() {
    let app = spawn_app().await;
    let first = ids(&app.character_list(1, 1, 0).await.data).remove(0);
    let envelope = app.character_info(&first).await;
    assert_eq!(envelope.code, 200);
    let character = envelope.data;
    assert_eq!(character["characterId"], first.as_str());
    for field in ["personality", "scenario", "greeting", "characterName", "characterPhoto"] {
        assert!(character[field].as_str().is_some_and(|t| !t.is_empty()), "{field}");
    }
    assert!(character["tags"].as_array().is_some_and(|t| !t.is_empty()));
}

#[actix_rt::test]
async fn unknown_and_malformed_character_ids_are_named() {
    let app = spawn_app().await;
    assert_eq!(app.character_info("no-such-character").await.code, 10006);
    assert_eq!(app.character_info("../../etc").await.code, 10001);
    assert_eq!(app.character_info("").await.code, 10001);
}

#[actix_rt::test]
async fn the_catalogue_is_seeded_once_and_survives_a_restart() {
    let app = spawn_app().await;
    let before = app.store.characters.count().await.unwrap();
    assert!(before >= 120);
    // A second application on the same data directory finds the catalogue and adds nothing.
    let settings = amora_server::settings::Settings::load_from(
        None,
        vec![
            ("AMORA_HTTP__HOST".to_owned(), "127.0.0.1".to_owned()),
            ("AMORA_HTTP__PORT".to_owned(), "0".to_owned()),
            ("AMORA_STORE__DATA_DIR".to_owned(), app.data_dir.display().to_string()),
        ],
    )
    .unwrap();
    let again = amora_server::startup::Application::build(settings).await.unwrap();
    assert_eq!(again.store().characters.count().await.unwrap(), before);
}

/// `getCharacterList` with the `tags` extension, as the landing pages call it.
async fn tagged_list(
    app: &crate::helpers::TestApp,
    page_no: i64,
    page_size: i64,
    tags: serde_json::Value,
) -> Vec<String> {
    let payload = serde_json::json!({ "pageNo": page_no, "pageSize": page_size, "gender": 0, "tags": tags });
    let envelope = app.post_api("/user/v1/character/getCharacterList", payload).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    ids(&envelope.data)
}

#[actix_rt::test]
async fn a_tag_filter_lists_the_matching_visible_characters_most_shared_first_in_one_request() {
    let app = spawn_app().await;
    let asked = ["Flirty", "passionate", "BOLD"];
    // What a signed-out visitor sees, in listing order, with each character's stored tags.
    let mut expected = Vec::new();
    for id in all_ids(&app, 0, 60).await {
        let character = app.store.characters.get(&CharacterId::parse(&id).unwrap()).await.unwrap().unwrap();
        let shared = character.tags.iter().filter(|tag| asked.iter().any(|a| a.eq_ignore_ascii_case(tag))).count();
        if shared > 0 {
            expected.push((shared, id));
        }
    }
    expected.sort_by_key(|(shared, _)| std::cmp::Reverse(*shared));
    let expected: Vec<String> = expected.into_iter().map(|(_, id)| id).collect();
    assert!(expected.len() > 12, "the seeded catalogue has enough matches to page: {}", expected.len());

    let tags = serde_json::json!(asked);
    assert_eq!(tagged_list(&app, 1, 60, tags.clone()).await, expected);
    let first = tagged_list(&app, 1, 12, tags.clone()).await;
    let second = tagged_list(&app, 2, 12, tags.clone()).await;
    assert_eq!(first, expected[..12].to_vec());
    assert_eq!(second, expected[12..24.min(expected.len())].to_vec());
    // The plain list is unchanged by the extension.
    assert_eq!(ids(&app.character_list(1, 30, 0).await.data), all_ids(&app, 0, 30).await[..30].to_vec());
}

#[actix_rt::test]
async fn a_tag_filter_keeps_restricted_characters_from_signed_out_visitors() {
    let app = spawn_app().await;
    // Every tag a restricted girlfriend carries, looked up through the store as a member.
    let mut restricted_tags = Vec::new();
    for card in app
        .store
        .characters
        .list_cards(Gender::Girls, Viewer::Member, PageRequest::parse(1, 60).unwrap())
        .await
        .unwrap()
    {
        let character = app.store.characters.get(&card.character_id).await.unwrap().unwrap();
        if character.exposure == Exposure::Restricted {
            restricted_tags.push((card.character_id.as_str().to_owned(), character.tags));
        }
    }
    let Some((hidden, tags)) = restricted_tags.into_iter().find(|(_, tags)| !tags.is_empty()) else {
        panic!("the seeded catalogue has a tagged restricted girlfriend");
    };
    let listed = tagged_list(&app, 1, 60, serde_json::json!(tags)).await;
    assert!(!listed.is_empty());
    assert!(!listed.contains(&hidden), "{hidden} is restricted");
}

#[actix_rt::test]
async fn bad_tag_filters_are_param_errors() {
    let app = spawn_app().await;
    let nine: Vec<String> = (0..9).map(|n| format!("tag{n}")).collect();
    for tags in [
        serde_json::json!([]),
        serde_json::json!([""]),
        serde_json::json!(["a%b"]),
        serde_json::json!(["x".repeat(31)]),
        serde_json::json!(nine),
        serde_json::json!("Flirty"),
        serde_json::json!([3]),
    ] {
        let payload = serde_json::json!({ "pageNo": 1, "pageSize": 12, "gender": 0, "tags": tags });
        let envelope = app.post_api("/user/v1/character/getCharacterList", payload).await;
        assert_eq!(envelope.code, 10001, "{tags}");
    }
}
