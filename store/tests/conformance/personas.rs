//! The user's personas (issue 18): one for every character, one per character, per user.

use amora_domain::character::CharacterId;
use amora_domain::persona::UserPersona;
use amora_store::StoredPersona;

use crate::{backend, user};

fn persona(name: &str, description: &str) -> UserPersona {
    UserPersona { name: name.into(), description: description.into() }
}

#[tokio::test]
async fn personas_are_kept_per_user_for_every_character_and_per_character() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    let (mia, leo) = (CharacterId::parse("gf-001").unwrap(), CharacterId::parse("bf-001").unwrap());
    assert!(store.personas.personas(&ann).await.unwrap().is_empty());

    store.personas.put_persona(&ann, Some(&mia), persona("Captain Ann", "Sails.\nHas a dog.")).await.unwrap();
    store.personas.put_persona(&ann, None, persona("Ann", "A night nurse.")).await.unwrap();
    store.personas.put_persona(&ann, Some(&leo), persona("Dr Ann", "")).await.unwrap();
    store.personas.put_persona(&bob, None, persona("Bob", "")).await.unwrap();
    assert_eq!(
        store.personas.personas(&ann).await.unwrap(),
        vec![
            StoredPersona { character_id: None, persona: persona("Ann", "A night nurse.") },
            StoredPersona { character_id: Some(leo.clone()), persona: persona("Dr Ann", "") },
            StoredPersona { character_id: Some(mia.clone()), persona: persona("Captain Ann", "Sails.\nHas a dog.") },
        ],
        "the one for every character first, then by character id"
    );

    // Setting again replaces.
    store.personas.put_persona(&ann, None, persona("Annie", "")).await.unwrap();
    let all = store.personas.personas(&ann).await.unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(all[0], StoredPersona { character_id: None, persona: persona("Annie", "") });

    assert!(store.personas.delete_persona(&ann, Some(&leo)).await.unwrap());
    assert!(!store.personas.delete_persona(&ann, Some(&leo)).await.unwrap(), "gone already");
    assert!(store.personas.delete_persona(&ann, None).await.unwrap());
    assert!(!store.personas.delete_persona(&ann, None).await.unwrap());
    assert_eq!(
        store.personas.personas(&ann).await.unwrap(),
        vec![StoredPersona { character_id: Some(mia.clone()), persona: persona("Captain Ann", "Sails.\nHas a dog.") }]
    );
    assert_eq!(store.personas.personas(&bob).await.unwrap().len(), 1, "another user's are their own");
}

#[tokio::test]
async fn deleting_the_account_deletes_its_personas() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    let mia = CharacterId::parse("gf-001").unwrap();
    store.personas.put_persona(&ann, None, persona("Ann", "")).await.unwrap();
    store.personas.put_persona(&ann, Some(&mia), persona("Captain Ann", "")).await.unwrap();
    store.personas.put_persona(&bob, None, persona("Bob", "")).await.unwrap();
    assert!(store.users.delete(&ann).await.unwrap());
    assert!(store.personas.personas(&ann).await.unwrap().is_empty());
    assert_eq!(store.personas.personas(&bob).await.unwrap().len(), 1);
}
