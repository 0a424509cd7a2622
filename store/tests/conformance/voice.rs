//! Voice clips: one attempt claimed of concurrent ones, parts in order, retries after a
//! failure, and no clip or audio left when its message, conversation or account goes.

use amora_domain::character::CharacterId;
use amora_domain::chat::{MessageId, Speaker};
use amora_store::{MediaObject, Store, StoredMessage, VoiceClipKey, VoiceClipPart, VoiceClipState};

use crate::{backend, user};

fn key(user_id: &amora_domain::account::UserId, character: &str, message: i64) -> VoiceClipKey {
    VoiceClipKey {
        user_id: user_id.clone(),
        character_id: CharacterId::parse(character).unwrap(),
        message_id: MessageId::from_raw(message),
    }
}

/// Stores a part's audio and records it, as the voice service does.
async fn part(store: &Store, key: &VoiceClipKey, attempt: u32, index: u32) -> VoiceClipPart {
    let media_id = format!("voice-{}-{}-{attempt}-{index}", key.user_id.as_str(), key.message_id.raw());
    let audio = MediaObject { content_type: "audio/mpeg".into(), bytes: vec![0xFF, 0xF3, index as u8] };
    store.media.put(&media_id, audio).await.unwrap();
    let part = VoiceClipPart { index, media_id, duration_ms: 1000 + u64::from(index) };
    store.voice_clips.add_clip_part(key, attempt, part.clone()).await.unwrap();
    part
}

async fn audio_exists(store: &Store, media_id: &str) -> bool {
    store.media.get(media_id).await.unwrap().is_some()
}

#[tokio::test]
async fn one_of_concurrent_first_plays_claims_the_clip_and_parts_come_back_in_order() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let clip = key(&ann, "gf-001", 5000);
    assert_eq!(store.voice_clips.clip(&clip).await.unwrap(), None);

    let claims =
        futures_util::future::join_all((0..6).map(|_| store.voice_clips.start_clip(&clip, 0, None, 100))).await;
    assert_eq!(claims.into_iter().filter(|won| *won.as_ref().unwrap()).count(), 1, "one claim wins");

    let second = part(&store, &clip, 0, 1).await;
    let first = part(&store, &clip, 0, 0).await;
    let stored = store.voice_clips.clip(&clip).await.unwrap().unwrap();
    assert_eq!((stored.attempt, stored.state, stored.started_at), (0, VoiceClipState::Speaking, 100));
    assert_eq!(stored.parts, vec![first.clone(), second.clone()], "by index");

    assert!(store.voice_clips.finish_clip(&clip, 0, VoiceClipState::Complete).await.unwrap());
    assert!(!store.voice_clips.finish_clip(&clip, 0, VoiceClipState::Failed).await.unwrap(), "complete stays");
    assert!(!store.voice_clips.start_clip(&clip, 1, None, 200).await.unwrap(), "no second first attempt");
    assert!(
        !store.voice_clips.start_clip(&clip, 1, Some((0, VoiceClipState::Failed)), 200).await.unwrap(),
        "a complete clip is not replaced"
    );
    assert_eq!(store.voice_clips.clip(&clip).await.unwrap().unwrap().state, VoiceClipState::Complete);

    // Another user's clip of a message with the same id is their own.
    let bob = user(&store, 2).await;
    assert_eq!(store.voice_clips.clip(&key(&bob, "gf-001", 5000)).await.unwrap(), None);
}

#[tokio::test]
async fn a_failed_attempt_is_retried_once_and_its_parts_go() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let clip = key(&ann, "gf-001", 5000);
    assert!(store.voice_clips.start_clip(&clip, 0, None, 100).await.unwrap());
    let old = part(&store, &clip, 0, 0).await;
    assert!(store.voice_clips.finish_clip(&clip, 0, VoiceClipState::Failed).await.unwrap());
    assert!(!store.voice_clips.finish_clip(&clip, 1, VoiceClipState::Complete).await.unwrap(), "not its attempt");

    let retries = futures_util::future::join_all(
        (0..4).map(|_| store.voice_clips.start_clip(&clip, 1, Some((0, VoiceClipState::Failed)), 300)),
    )
    .await;
    assert_eq!(retries.into_iter().filter(|won| *won.as_ref().unwrap()).count(), 1, "one retry wins");
    let stored = store.voice_clips.clip(&clip).await.unwrap().unwrap();
    assert_eq!((stored.attempt, stored.state, stored.started_at), (1, VoiceClipState::Speaking, 300));
    assert!(stored.parts.is_empty(), "the failed attempt's parts are not this attempt's");
    assert!(!audio_exists(&store, &old.media_id).await, "and their audio is gone");

    // A stalled attempt is taken over the same way, from `Speaking`.
    assert!(store.voice_clips.start_clip(&clip, 2, Some((1, VoiceClipState::Speaking)), 900).await.unwrap());
    assert!(!store.voice_clips.finish_clip(&clip, 1, VoiceClipState::Complete).await.unwrap(), "the stalled one lost");
    let fresh = part(&store, &clip, 2, 0).await;
    assert!(store.voice_clips.finish_clip(&clip, 2, VoiceClipState::Complete).await.unwrap());
    assert_eq!(store.voice_clips.clip(&clip).await.unwrap().unwrap().parts, vec![fresh]);
}

#[tokio::test]
async fn deleting_a_message_conversation_or_account_deletes_its_clips_and_audio() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let (mia, leo) = (CharacterId::parse("gf-001").unwrap(), CharacterId::parse("bf-001").unwrap());
    for (character, id) in [(&mia, 1000), (&mia, 2000), (&leo, 3000)] {
        let message = StoredMessage {
            message_id: MessageId::from_raw(id),
            speaker: Speaker::Character,
            content: "Hi".into(),
            image: None,
        };
        store.conversations.append(&ann, character, message).await.unwrap();
    }
    let mut audio = Vec::new();
    for (character, id) in [("gf-001", 1000), ("gf-001", 2000), ("bf-001", 3000)] {
        let clip = key(&ann, character, id);
        assert!(store.voice_clips.start_clip(&clip, 0, None, 1).await.unwrap());
        audio.push(part(&store, &clip, 0, 0).await.media_id);
        audio.push(part(&store, &clip, 0, 1).await.media_id);
    }

    // One message.
    assert_eq!(store.conversations.delete_messages(&ann, &mia, &[MessageId::from_raw(1000)]).await.unwrap(), 1);
    assert_eq!(store.voice_clips.clip(&key(&ann, "gf-001", 1000)).await.unwrap(), None);
    assert!(!audio_exists(&store, &audio[0]).await && !audio_exists(&store, &audio[1]).await);
    assert!(audio_exists(&store, &audio[2]).await, "the other message's clip stays");

    // The conversation.
    assert!(store.conversations.delete(&ann, &mia).await.unwrap());
    assert_eq!(store.voice_clips.clip(&key(&ann, "gf-001", 2000)).await.unwrap(), None);
    assert!(!audio_exists(&store, &audio[2]).await && !audio_exists(&store, &audio[3]).await);
    assert!(
        store.voice_clips.clip(&key(&ann, "bf-001", 3000)).await.unwrap().is_some(),
        "another conversation's stays"
    );

    // The account.
    assert!(store.users.delete(&ann).await.unwrap());
    assert_eq!(store.voice_clips.clip(&key(&ann, "bf-001", 3000)).await.unwrap(), None);
    assert!(!audio_exists(&store, &audio[4]).await && !audio_exists(&store, &audio[5]).await);

    // delete_clip on its own, and the media repository's delete.
    let bob = user(&store, 2).await;
    let clip = key(&bob, "gf-001", 4000);
    assert!(!store.voice_clips.delete_clip(&clip).await.unwrap());
    assert!(store.voice_clips.start_clip(&clip, 0, None, 1).await.unwrap());
    let kept = part(&store, &clip, 0, 0).await;
    assert!(store.voice_clips.delete_clip(&clip).await.unwrap());
    assert!(!audio_exists(&store, &kept.media_id).await);
    assert!(!store.media.delete(&kept.media_id).await.unwrap(), "already gone");
}
