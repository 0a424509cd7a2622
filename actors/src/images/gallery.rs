//! The user's gallery and the public feed: pages of images, the characters the user has
//! images of, sharing an image to the feed (checked again first) and deleting one.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;

use super::{ImageError, ImageJobs};
use crate::chat::new_entry_id;
use crate::moderation::Surface;
use crate::wire::images::{FeedImageView, GalleryCharacterView, GalleryImageView};

impl ImageJobs {
    /// A page of the user's images (of one character when given), newest first.
    pub async fn gallery(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        before: Option<EntryId>,
        limit: u32,
    ) -> Result<Vec<GalleryImageView>, ImageError> {
        let records = self.inner.store.gallery.list(user_id, character, before, limit).await?;
        Ok(records.iter().map(GalleryImageView::from).collect())
    }

    /// The characters the user has images of, most recent first, with their photo as the
    /// catalogue has it now (a character gone from it keeps its images, without a photo).
    pub async fn gallery_characters(&self, user_id: &UserId) -> Result<Vec<GalleryCharacterView>, ImageError> {
        let mut list = Vec::new();
        for entry in self.inner.store.gallery.characters(user_id).await? {
            let character = self.inner.store.characters.get(&entry.character_id).await?;
            let (name, photo) = match character {
                Some(character) => (character.card.character_name, character.card.character_photo),
                None => (String::new(), String::new()),
            };
            list.push(GalleryCharacterView {
                character_id: entry.character_id,
                character_name: name,
                character_photo: photo,
                count: entry.count,
            });
        }
        Ok(list)
    }

    /// Puts one of the user's images in the public feed, or takes it out. Its words are
    /// checked again before anyone else sees them, under the image rule (any minor is
    /// refused on its own), whatever rule let the image be made: the feed is public, and
    /// images made before a rule was tightened are still in galleries. A refusal is
    /// written to the moderation log.
    pub async fn share(
        &self,
        user_id: &UserId,
        image_id: EntryId,
        shared: bool,
    ) -> Result<GalleryImageView, ImageError> {
        let gallery = &self.inner.store.gallery;
        let image = gallery.get(user_id, image_id).await?.ok_or(ImageError::NoImage)?;
        if shared {
            // Through the moderation service (`Surface::FeedShare`, the image rule), which
            // writes a refusal to the moderation log.
            self.moderate(Surface::FeedShare, user_id, &image.prompt).await?;
        }
        let feed_id = shared.then(new_entry_id);
        let image = gallery.set_shared(user_id, image_id, feed_id).await?.ok_or(ImageError::NoImage)?;
        Ok(GalleryImageView::from(&image))
    }

    /// A page of the public feed, newest share first; restricted images only for viewers
    /// who may see them (established members whose adult-content preference is on).
    pub async fn feed(
        &self,
        before: Option<EntryId>,
        limit: u32,
        include_restricted: bool,
    ) -> Result<Vec<FeedImageView>, ImageError> {
        let entries = self.inner.store.gallery.feed(before, limit, include_restricted).await?;
        Ok(entries.iter().map(FeedImageView::from).collect())
    }

    /// Deletes one of the user's images: its record, feed entry and bytes.
    pub async fn delete(&self, user_id: &UserId, image_id: EntryId) -> Result<(), ImageError> {
        if !self.inner.store.gallery.delete(user_id, image_id).await? {
            return Err(ImageError::NoImage);
        }
        Ok(())
    }
}
