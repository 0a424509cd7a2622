//! Images as clients see them (docs/api.md "Images"): gallery and feed entries, and the
//! shapes of the image events.

use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_store::{FeedEntry, GalleryRecord};
use serde::{Serialize, Serializer};
use ts_rs::TS;

/// Where an image's bytes are served: its capability address, which says nothing about
/// the user's other images (`amora_store::media_url`).
pub fn image_url(image_id: EntryId) -> String {
    amora_store::image_media_url(image_id)
}

/// `GalleryImage`: one of the user's images.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "GalleryImage")]
pub struct GalleryImageView {
    #[ts(as = "String")]
    pub image_id: EntryId,
    #[ts(as = "String")]
    pub job_id: EntryId,
    #[ts(as = "Option<String>")]
    pub character_id: Option<CharacterId>,
    pub character_name: Option<String>,
    pub prompt: String,
    pub scene: Option<String>,
    pub outfit: Option<String>,
    pub pose: Option<String>,
    pub style: Option<String>,
    pub url: String,
    pub width: u32,
    pub height: u32,
    pub nsfw: bool,
    pub illustration: bool,
    pub shared: bool,
    /// Milliseconds since the epoch.
    #[ts(type = "number")]
    pub created_at: i64,
}

impl From<&GalleryRecord> for GalleryImageView {
    fn from(record: &GalleryRecord) -> Self {
        Self {
            image_id: record.image_id,
            job_id: record.job_id,
            character_id: record.character_id.clone(),
            character_name: record.character_name.clone(),
            prompt: record.prompt.clone(),
            scene: record.scene.clone(),
            outfit: record.outfit.clone(),
            pose: record.pose.clone(),
            style: record.style.clone(),
            url: image_url(record.image_id),
            width: record.width,
            height: record.height,
            nsfw: record.nsfw,
            illustration: record.illustration,
            shared: record.feed_id.is_some(),
            created_at: record.image_id.unix_millis(),
        }
    }
}

/// `FeedImage`: a shared image in the public feed; no owner id is ever sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "FeedImage")]
pub struct FeedImageView {
    /// The feed's own id (the paging cursor `beforeId`).
    #[ts(as = "String")]
    pub feed_id: EntryId,
    #[ts(as = "String")]
    pub image_id: EntryId,
    pub url: String,
    pub width: u32,
    pub height: u32,
    #[ts(as = "Option<String>")]
    pub character_id: Option<CharacterId>,
    pub character_name: Option<String>,
    pub prompt: String,
    /// Milliseconds since the epoch.
    #[ts(type = "number")]
    pub shared_at: i64,
}

impl From<&FeedEntry> for FeedImageView {
    fn from(entry: &FeedEntry) -> Self {
        Self {
            feed_id: entry.feed_id,
            image_id: entry.image_id,
            url: image_url(entry.image_id),
            width: entry.width,
            height: entry.height,
            character_id: entry.character_id.clone(),
            character_name: entry.character_name.clone(),
            prompt: entry.prompt.clone(),
            shared_at: entry.feed_id.unix_millis(),
        }
    }
}

/// A character the user has images of (`image/getGalleryCharacters`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "GalleryCharacter")]
pub struct GalleryCharacterView {
    #[ts(as = "String")]
    pub character_id: CharacterId,
    pub character_name: String,
    pub character_photo: String,
    #[ts(type = "number")]
    pub count: u64,
}

/// How far an image is, 0–1, kept in thousandths so that events stay comparable (`Eq`);
/// sent as a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress(u16);

impl Progress {
    pub fn of(fraction: f32) -> Self {
        let clamped = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
        Progress((clamped * 1000.0).round() as u16)
    }

    pub fn fraction(self) -> f64 {
        f64::from(self.0) / 1000.0
    }
}

impl Serialize for Progress {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.fraction())
    }
}

/// Why an image of a job did not come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "ImageFailure")]
pub enum ImageFailure {
    /// The backend failed or could not be reached (50000).
    Failed,
    /// The backend refused the content (10070).
    Refused,
    /// The backend took longer than `image.timeout_secs` (50000).
    TimedOut,
    /// The user cancelled the job (no code).
    Cancelled,
}

/// The picture of a chat message (`ChatMessage.image`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "MessageImage")]
pub struct MessageImageView {
    #[ts(as = "String")]
    pub image_id: EntryId,
    pub url: String,
    pub width: u32,
    pub height: u32,
}

impl From<&amora_store::MessageImage> for MessageImageView {
    fn from(image: &amora_store::MessageImage) -> Self {
        Self { image_id: image.image_id, url: image_url(image.image_id), width: image.width, height: image.height }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_travels_as_a_fraction() {
        assert_eq!(serde_json::to_string(&Progress::of(0.5)).unwrap_or_default(), "0.5");
        assert_eq!(Progress::of(7.0), Progress::of(1.0));
        assert_eq!(Progress::of(f32::NAN), Progress::of(0.0));
    }

    #[test]
    fn a_failure_reason_is_camel_case() {
        assert_eq!(serde_json::to_string(&ImageFailure::TimedOut).unwrap_or_default(), "\"timedOut\"");
    }
}
