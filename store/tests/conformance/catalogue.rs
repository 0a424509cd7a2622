//! The character catalogue, media and telemetry: paging order, exposure, upserts.

use amora_domain::character::{
    CardExtras, Character, CharacterAge, CharacterCard, CharacterId, CharacterStatus, Exposure, UsedType,
};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::tag::TagFilter;
use amora_domain::telemetry::ErrorReport;
use amora_domain::viewer::Viewer;
use amora_store::{CatalogueEntry, CharacterRepo, MediaObject};

use crate::backend;

pub fn entry(n: i64, gender: Gender, exposure: Exposure) -> CatalogueEntry {
    let character = Character {
        card: CharacterCard {
            character_id: CharacterId::parse(&format!("c-{n:03}")).unwrap(),
            character_name: format!("Name {n}"),
            character_age: CharacterAge::parse(18 + n % 27).unwrap(),
            introduction: format!("Introduction {n}"),
            character_photo: format!("/media/{n}.svg"),
            character_image_list: if n % 2 == 0 { vec![format!("/media/{n}-b.svg")] } else { vec![] },
            used_type: UsedType::from_code(n % 2).unwrap(),
            gender,
        },
        personality: "warm".into(),
        scenario: "a café".into(),
        greeting: "Hi {{user}}".into(),
        tags: vec!["kind".into(), "funny".into()],
        creator_id: None,
        exposure,
        status: CharacterStatus::Public,
        extras: CardExtras::default(),
    };
    CatalogueEntry { character, rank: n }
}

fn ids(cards: &[CharacterCard]) -> Vec<String> {
    cards.iter().map(|c| c.character_id.as_str().to_owned()).collect()
}

#[tokio::test]
async fn cards_page_in_rank_order_per_gender_and_hide_restricted_ones_from_new_viewers() {
    let (store, _guard) = backend::fresh().await;
    // Inserted out of order: the listing order is the rank, not the insertion.
    let mut entries: Vec<_> = (0..25)
        .rev()
        .map(|n| entry(n, Gender::Girls, if n % 5 == 4 { Exposure::Restricted } else { Exposure::Everyone }))
        .collect();
    entries.extend((100..103).map(|n| entry(n, Gender::Guys, Exposure::Everyone)));
    store.characters.upsert(entries).await.unwrap();
    assert_eq!(store.characters.count().await.unwrap(), 28);

    let page = |no, size| PageRequest::parse(no, size).unwrap();
    let first = store.characters.list_cards(Gender::Girls, Viewer::Member, page(1, 10)).await.unwrap();
    let second = store.characters.list_cards(Gender::Girls, Viewer::Member, page(2, 10)).await.unwrap();
    let third = store.characters.list_cards(Gender::Girls, Viewer::Member, page(3, 10)).await.unwrap();
    assert_eq!(ids(&first), (0..10).map(|n| format!("c-{n:03}")).collect::<Vec<_>>());
    assert_eq!(ids(&second), (10..20).map(|n| format!("c-{n:03}")).collect::<Vec<_>>());
    assert_eq!(third.len(), 5, "the last page is short");

    let everyone: Vec<String> = (0..25).filter(|n| n % 5 != 4).map(|n| format!("c-{n:03}")).collect();
    let signed_out = store.characters.list_cards(Gender::Girls, Viewer::SignedOut, page(1, 30)).await.unwrap();
    assert_eq!(ids(&signed_out), everyone);
    let new_user = store.characters.list_cards(Gender::Girls, Viewer::NewUser, page(2, 10)).await.unwrap();
    assert_eq!(ids(&new_user), everyone[10..].to_vec(), "pages count only what the viewer sees");
    let guys = store.characters.list_cards(Gender::Guys, Viewer::SignedOut, page(1, 30)).await.unwrap();
    assert_eq!(ids(&guys), vec!["c-100", "c-101", "c-102"]);
}

#[tokio::test]
async fn a_character_reads_back_whole_and_an_upsert_moves_it() {
    let (store, _guard) = backend::fresh().await;
    let original = entry(3, Gender::Girls, Exposure::Restricted);
    store.characters.upsert(vec![original.clone(), entry(4, Gender::Girls, Exposure::Everyone)]).await.unwrap();
    let id = original.character.card.character_id.clone();
    assert_eq!(store.characters.get(&id).await.unwrap().unwrap(), original.character);
    let even = entry(4, Gender::Girls, Exposure::Everyone);
    let read = store.characters.get(&even.character.card.character_id).await.unwrap().unwrap();
    assert_eq!(read.card.character_image_list.len(), 1);

    let mut moved = original.clone();
    moved.rank = 10;
    moved.character.card.character_name = "Renamed".into();
    store.characters.upsert(vec![moved]).await.unwrap();
    let cards =
        store.characters.list_cards(Gender::Girls, Viewer::Member, PageRequest::parse(1, 30).unwrap()).await.unwrap();
    assert_eq!(ids(&cards), vec!["c-004", "c-003"], "moved after c-004, listed once");
    assert_eq!(cards[1].character_name, "Renamed");
    assert_eq!(store.characters.count().await.unwrap(), 2);
    assert!(store.characters.get(&CharacterId::parse("missing").unwrap()).await.unwrap().is_none());
}

fn tagged(n: i64, gender: Gender, exposure: Exposure, tags: &[&str]) -> CatalogueEntry {
    let mut entry = entry(n, gender, exposure);
    entry.character.tags = tags.iter().map(|tag| (*tag).to_owned()).collect();
    entry
}

fn filter(tags: &[&str]) -> TagFilter {
    TagFilter::parse(&tags.iter().map(|tag| (*tag).to_owned()).collect::<Vec<_>>()).unwrap()
}

fn page(no: i64, size: i64) -> PageRequest {
    PageRequest::parse(no, size).unwrap()
}

async fn tagged_ids(
    repo: &dyn CharacterRepo,
    gender: Gender,
    tags: &[&str],
    viewer: Viewer,
    no: i64,
    size: i64,
) -> Vec<String> {
    ids(&repo.list_cards_tagged(gender, &filter(tags), viewer, page(no, size)).await.unwrap())
}

#[tokio::test]
async fn tagged_cards_match_any_tag_in_any_case_most_shared_first_and_follow_upserts() {
    let (store, _guard) = backend::fresh().await;
    let mut entries = vec![
        tagged(1, Gender::Girls, Exposure::Everyone, &["Sweet", "Cozy"]),
        tagged(2, Gender::Girls, Exposure::Everyone, &["Flirty"]),
        tagged(3, Gender::Girls, Exposure::Everyone, &["Passionate", "flirty", "Bold"]),
        tagged(4, Gender::Girls, Exposure::Restricted, &["Flirty", "Bold"]),
        tagged(5, Gender::Guys, Exposure::Everyone, &["Flirty"]),
    ];
    // Twelve more that share one tag, out of order, to page through.
    entries.extend((10..22).rev().map(|n| tagged(n, Gender::Girls, Exposure::Everyone, &["BOLD"])));
    store.characters.upsert(entries).await.unwrap();
    let repo = &*store.characters;
    let list = |tags, viewer, no, size| tagged_ids(repo, Gender::Girls, tags, viewer, no, size);

    assert_eq!(
        list(&["flirty"], Viewer::Member, 1, 30).await,
        vec!["c-002", "c-003", "c-004"],
        "any case, listing order"
    );
    assert_eq!(
        list(&["FLIRTY"], Viewer::SignedOut, 1, 30).await,
        vec!["c-002", "c-003"],
        "restricted ones stay hidden"
    );
    assert_eq!(list(&["Flirty"], Viewer::NewUser, 1, 30).await, vec!["c-002", "c-003"]);
    let guys = tagged_ids(repo, Gender::Guys, &["flirty"], Viewer::SignedOut, 1, 30).await;
    assert_eq!(guys, vec!["c-005"], "one gender's catalogue only");

    // Any of several tags, those sharing more first, each character once.
    let both: Vec<String> = ["c-003", "c-004", "c-002"]
        .into_iter()
        .map(String::from)
        .chain((10..22).map(|n| format!("c-{n:03}")))
        .collect();
    assert_eq!(list(&["Flirty", "Bold", "Passionate"], Viewer::Member, 1, 30).await, both);
    // Pages count only what the viewer sees, like the plain list.
    let visible: Vec<String> = both.iter().filter(|id| *id != "c-004").cloned().collect();
    assert_eq!(list(&["Flirty", "Bold", "Passionate"], Viewer::SignedOut, 1, 5).await, visible[..5].to_vec());
    assert_eq!(list(&["Flirty", "Bold", "Passionate"], Viewer::SignedOut, 2, 5).await, visible[5..10].to_vec());
    assert_eq!(
        list(&["Flirty", "Bold", "Passionate"], Viewer::SignedOut, 3, 5).await,
        visible[10..].to_vec(),
        "short last page"
    );
    assert!(list(&["nobody"], Viewer::Member, 1, 30).await.is_empty());

    // An upsert that drops a tag, renames and moves a character leaves no stale index rows.
    let mut changed = tagged(3, Gender::Girls, Exposure::Everyone, &["Cozy"]);
    changed.rank = 30;
    changed.character.card.character_name = "Renamed".into();
    store.characters.upsert(vec![changed]).await.unwrap();
    assert_eq!(list(&["flirty"], Viewer::Member, 1, 30).await, vec!["c-002", "c-004"]);
    let cozy = repo.list_cards_tagged(Gender::Girls, &filter(&["cozy"]), Viewer::SignedOut, page(1, 30)).await.unwrap();
    assert_eq!(ids(&cozy), vec!["c-001", "c-003"], "listed at its new place");
    assert_eq!(cozy[1].character_name, "Renamed", "the index carries the current card");
    // A character moved to the other gender leaves this gender's tag grid.
    store.characters.upsert(vec![tagged(2, Gender::Guys, Exposure::Everyone, &["Flirty"])]).await.unwrap();
    assert_eq!(list(&["flirty"], Viewer::Member, 1, 30).await, vec!["c-004"]);
}

#[tokio::test]
async fn media_and_error_reports_are_kept() {
    let (store, _guard) = backend::fresh().await;
    let object = MediaObject { content_type: "image/svg+xml".into(), bytes: b"<svg/>".to_vec() };
    store.media.put("m1", object.clone()).await.unwrap();
    assert_eq!(store.media.get("m1").await.unwrap(), Some(object));
    assert_eq!(store.media.get("m2").await.unwrap(), None);

    for n in 0..3 {
        let report = ErrorReport::bounded("TypeError", &format!("boom {n}"), "ua", "/", "", n, "stack");
        store.telemetry.record_error_report(report).await.unwrap();
    }
    let recent = store.telemetry.recent_error_reports(2).await.unwrap();
    assert_eq!(recent.iter().map(|r| r.message.as_str()).collect::<Vec<_>>(), vec!["boom 2", "boom 1"]);
}

/// A character of the paging model: what the old offset scan listed, by rank then id.
#[derive(Clone)]
struct Modelled {
    n: i64,
    rank: i64,
    gender: Gender,
    restricted: bool,
    hidden: bool,
    public: bool,
}

impl Modelled {
    fn id(&self) -> String {
        format!("c-{:03}", self.n)
    }

    fn entry(&self) -> CatalogueEntry {
        let mut entry =
            entry(self.n, self.gender, if self.restricted { Exposure::Restricted } else { Exposure::Everyone });
        entry.rank = self.rank;
        entry.character.status = if self.public { CharacterStatus::Public } else { CharacterStatus::Private };
        entry
    }
}

/// The girls' listing `viewer` must see: public, not hidden, restricted only for members.
fn expected(model: &[Modelled], viewer: Viewer) -> Vec<String> {
    let mut listed: Vec<(i64, String)> = model
        .iter()
        .filter(|m| m.gender == Gender::Girls && m.public && !m.hidden)
        .filter(|m| viewer == Viewer::Member || !m.restricted)
        .map(|m| (m.rank, m.id()))
        .collect();
    listed.sort();
    listed.into_iter().map(|(_, id)| id).collect()
}

/// Every page of both viewers' listings, the last one and two past the end, equal the model.
async fn assert_pages(repo: &dyn CharacterRepo, model: &[Modelled], when: &str) {
    for viewer in [Viewer::Member, Viewer::SignedOut] {
        let want = expected(model, viewer);
        for size in [30usize, 60] {
            let last = want.len().div_ceil(size).max(1);
            for no in 1..=last + 2 {
                let got = ids(&repo.list_cards(Gender::Girls, viewer, page(no as i64, size as i64)).await.unwrap());
                let from = ((no - 1) * size).min(want.len());
                let to = (no * size).min(want.len());
                assert_eq!(got, want[from..to].to_vec(), "{when}: {viewer:?}, page {no} of size {size}");
            }
        }
        // Odd sizes start pages inside blocks at other places.
        for (no, size) in [(37i64, 7i64), (101, 13), (3, 59)] {
            let got = ids(&repo.list_cards(Gender::Girls, viewer, page(no, size)).await.unwrap());
            let from = (((no - 1) * size) as usize).min(want.len());
            let to = ((no * size) as usize).min(want.len());
            assert_eq!(got, want[from..to].to_vec(), "{when}: {viewer:?}, page {no} of size {size}");
        }
    }
}

#[tokio::test]
async fn deep_pages_list_what_an_offset_scan_lists_and_follow_every_change() {
    let (store, _guard) = backend::fresh().await;
    let repo = &*store.characters;
    // 1,500 characters with shuffled ranks (a few sharing one, ordered by id), in batches:
    // the girls' listing spans several blocks, restricted, hidden and private ones among them.
    let mut model: Vec<Modelled> = (0..1_500i64)
        .map(|n| Modelled {
            n,
            rank: (n * 7_919) % 1_499,
            gender: if n % 10 == 9 { Gender::Guys } else { Gender::Girls },
            restricted: n % 7 == 3,
            hidden: false,
            public: n % 53 != 5,
        })
        .collect();
    for batch in model.chunks(400) {
        repo.upsert(batch.iter().map(Modelled::entry).collect()).await.unwrap();
    }
    for m in model.iter_mut().filter(|m| m.n % 97 == 11) {
        m.hidden = true;
        assert!(repo.set_hidden(&CharacterId::parse(&m.id()).unwrap(), true).await.unwrap());
    }
    assert_pages(repo, &model, "seeded").await;

    // A new character in the middle, one taken out of the catalogue, one unhidden, one
    // restricted now, one moved from the end to the front.
    let new = Modelled { n: 2_000, rank: 700, gender: Gender::Girls, restricted: false, hidden: false, public: true };
    model.push(new.clone());
    let changes: Vec<CatalogueEntry> = {
        let taken = &mut model[20];
        taken.public = false;
        let taken = taken.entry();
        let restricted = &mut model[40];
        restricted.restricted = true;
        let restricted = restricted.entry();
        let moved = &mut model[1_300];
        moved.rank = -1;
        vec![new.entry(), taken, restricted, moved.entry()]
    };
    repo.upsert(changes).await.unwrap();
    let unhidden = model.iter_mut().find(|m| m.hidden && m.gender == Gender::Girls).unwrap();
    unhidden.hidden = false;
    assert!(repo.set_hidden(&CharacterId::parse(&unhidden.id()).unwrap(), false).await.unwrap());
    assert_pages(repo, &model, "after single changes").await;

    // Most of the listing taken out (blocks shrink and fold), then a run put back in one
    // place (a block grows and is cut).
    let mut out = Vec::new();
    for m in model.iter_mut().filter(|m| m.rank >= 100 && m.rank < 1_300) {
        m.public = false;
        out.push(m.entry());
    }
    repo.upsert(out).await.unwrap();
    assert_pages(repo, &model, "after most were taken out").await;
    let mut back = Vec::new();
    for m in model.iter_mut().filter(|m| m.rank >= 400 && m.rank < 1_100 && m.gender == Gender::Girls) {
        m.public = true;
        back.push(m.entry());
    }
    repo.upsert(back).await.unwrap();
    assert_pages(repo, &model, "after a run came back").await;
}
