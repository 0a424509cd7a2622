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
}

impl From<&BlogPost> for BlogSummary {
    fn from(post: &BlogPost) -> Self {
        Self {
            key: post.key.clone(),
            title: post.title.clone(),
            description: post.description.clone(),
            date: post.date.clone(),
            cover: post.cover.clone(),
        }
    }
}

/// Blog posts by key, listed newest first (by date, then key).
#[async_trait]
pub trait BlogRepo: Send + Sync {
    /// Publishes `post`, replacing the post with the same key if there is one.
    async fn put(&self, post: BlogPost) -> StoreResult<()>;
    async fn get(&self, key: &BlogKey) -> StoreResult<Option<BlogPost>>;
    /// One page, newest first.
    async fn list(&self, page: PageRequest) -> StoreResult<Vec<BlogSummary>>;
    async fn count(&self) -> StoreResult<u64>;
    /// Unpublishes; false when there was no such post.
    async fn delete(&self, key: &BlogKey) -> StoreResult<bool>;
}

/// Reports of characters and replies, for the operator.
#[async_trait]
pub trait ReportRepo: Send + Sync {
    async fn add(&self, report: Report) -> StoreResult<()>;
    /// The newest first, at most `limit`.
    async fn recent(&self, limit: u32) -> StoreResult<Vec<Report>>;
}
