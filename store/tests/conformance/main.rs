//! The store conformance suite: what every implementation of the `store` traits must do,
//! written once. Each test opens a fresh store from `backend::fresh()` (the embedded store
//! on a new SQLite file, or a new keyspace on a CQL server) and talks only to the traits.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod accounts;
mod alternatives;
mod backend;
mod catalogue;
mod character_room;
mod chat;
mod content;
mod created;
mod feed_moderation;
mod gallery;
mod groups;
mod ledger;
mod media;
mod moderation_log;
mod money_desk;
mod operators;
mod payments;
mod pending;
mod personas;
mod recall;
mod reversals;
mod voice;

use amora_domain::account::{UserId, UserNo};
use amora_store::{NewUser, Store};

/// Creates an account numbered `n` and returns its id.
pub async fn user(store: &Store, n: u32) -> UserId {
    let id = UserId::parse(&format!("conformance{n}")).unwrap();
    store
        .users
        .create(NewUser {
            user_id: id.clone(),
            user_no: UserNo::from_random(n),
            user_name: format!("user {n}"),
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
    id
}
