//! The content repositories: blog posts, and users' reports of characters and replies.

use amora_domain::blog::{BlogDate, BlogKey, BlogPost};
use amora_domain::paging::PageRequest;
use amora_domain::report::Report;
use async_trait::async_trait;

use crate::StoreResult;

/// A post as the blog list shows it: everything but the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlogSummary {
    pub key: BlogKey,
    pub title: String,
    pub description: String,
    pub date: BlogDate,
    pub cover: String,
    /// As `BlogPost::publish_at`: from when readers see it; `None` while unpublished.
    pub publish_at: Option<i64>,
}

impl From<&BlogPost> for BlogSummary {
    fn from(post: &BlogPost) -> Self {
        Self {
            key: post.key.clone(),
            title: post.title.clone(),
            description: post.description.clone(),
            date: post.date.clone(),
            cover: post.cover.clone(),
            publish_at: post.publish_at,
        }
    }
}

/// Blog posts by key, listed newest first (by date, then key). Readers see the posts live
/// at the time they read (`BlogPost::is_live`): a scheduled post joins the list when its
/// time comes, with no write; an unpublished one is kept and shown to nobody.
#[async_trait]
pub trait BlogRepo: Send + Sync {
    /// Stores `post` as it is (its `publish_at` included), replacing the post with the same key.
    async fn put(&self, post: BlogPost) -> StoreResult<()>;
    /// The post whatever its state (scheduled, unpublished).
    async fn get(&self, key: &BlogKey) -> StoreResult<Option<BlogPost>>;
    /// One page of the posts live at `now` (seconds since the epoch), newest first.
    async fn list(&self, page: PageRequest, now: i64) -> StoreResult<Vec<BlogSummary>>;
    /// How many posts are live at `now`.
    async fn count(&self, now: i64) -> StoreResult<u64>;
    /// Every post, scheduled and unpublished ones too, newest first, at most `limit`.
    async fn list_all(&self, limit: u32) -> StoreResult<Vec<BlogSummary>>;
    /// Sets from when a post shows (`None`: unpublished, kept); false when there is no such post.
    async fn set_publish_at(&self, key: &BlogKey, publish_at: Option<i64>) -> StoreResult<bool>;
    /// Removes a post for good; false when there was no such post.
    async fn delete(&self, key: &BlogKey) -> StoreResult<bool>;
}

/// Reports of characters and replies, for the operator.
#[async_trait]
pub trait ReportRepo: Send + Sync {
    async fn add(&self, report: Report) -> StoreResult<()>;
    /// The newest first, at most `limit`.
    async fn recent(&self, limit: u32) -> StoreResult<Vec<Report>>;
}
