//! Blog posts over CQL: `blog_posts` by key for the article, `blog_posts_by_date` (one
//! partition) for the list in date order. A post's state is `publish_at` (seconds; readers
//! see it from then; null in rows written before it existed: always) and `unpublished`
//! (kept, shown to nobody), on both tables; the list filters them as it reads.

use amora_domain::blog::{BlogDate, BlogKey, BlogPost};
use amora_domain::paging::PageRequest;
use async_trait::async_trait;
use futures_util::TryStreamExt;
use scylla::DeserializeRow;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, corrupt, unavailable};
use crate::{BlogRepo, BlogSummary, StoreResult};

/// The one partition of the list table.
const BUCKET: i32 = 0;

pub(super) struct Statements {
    insert: PreparedStatement,
    insert_listed: PreparedStatement,
    get: PreparedStatement,
    date_of: PreparedStatement,
    list: PreparedStatement,
    set_state: PreparedStatement,
    set_state_listed: PreparedStatement,
    delete: PreparedStatement,
    delete_listed: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            insert: p
                .prepare(
                    "INSERT INTO blog_posts
                         (post_key, title, description, date, cover, markdown, html, publish_at, unpublished)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            insert_listed: p
                .prepare(
                    "INSERT INTO blog_posts_by_date
                         (bucket, date, post_key, title, description, cover, publish_at, unpublished)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            get: p
                .prepare(
                    "SELECT title, description, date, cover, markdown, html, publish_at, unpublished
                     FROM blog_posts WHERE post_key = ?",
                    Kind::Idempotent,
                )
                .await?,
            date_of: p.prepare("SELECT date FROM blog_posts WHERE post_key = ?", Kind::Idempotent).await?,
            list: p
                .prepare(
                    "SELECT post_key, title, description, date, cover, publish_at, unpublished
                     FROM blog_posts_by_date WHERE bucket = ?",
                    Kind::Idempotent,
                )
                .await?,
            set_state: p
                .prepare("UPDATE blog_posts SET publish_at = ?, unpublished = ? WHERE post_key = ?", Kind::Idempotent)
                .await?,
            set_state_listed: p
                .prepare(
                    "UPDATE blog_posts_by_date SET publish_at = ?, unpublished = ?
                     WHERE bucket = ? AND date = ? AND post_key = ?",
                    Kind::Idempotent,
                )
                .await?,
            delete: p.prepare("DELETE FROM blog_posts WHERE post_key = ?", Kind::Idempotent).await?,
            delete_listed: p
                .prepare(
                    "DELETE FROM blog_posts_by_date WHERE bucket = ? AND date = ? AND post_key = ?",
                    Kind::Idempotent,
                )
                .await?,
        })
    }
}

/// A post's state as read: null columns are a post written before posts had a state.
fn publish_at_of(publish_at: Option<i64>, unpublished: Option<bool>) -> Option<i64> {
    (!unpublished.unwrap_or(false)).then_some(publish_at.unwrap_or(0))
}

/// The columns written for a post's `publish_at`.
fn state_columns(publish_at: Option<i64>) -> (i64, bool) {
    (publish_at.unwrap_or(0), publish_at.is_none())
}

#[derive(DeserializeRow)]
struct PostRow {
    title: String,
    description: String,
    date: String,
    cover: String,
    markdown: String,
    html: String,
    publish_at: Option<i64>,
    unpublished: Option<bool>,
}

#[derive(DeserializeRow)]
struct SummaryRow {
    post_key: String,
    title: String,
    description: String,
    date: String,
    cover: String,
    publish_at: Option<i64>,
    unpublished: Option<bool>,
}

impl SummaryRow {
    fn into_summary(self) -> StoreResult<BlogSummary> {
        Ok(BlogSummary {
            key: BlogKey::parse(&self.post_key).map_err(corrupt)?,
            title: self.title,
            description: self.description,
            date: BlogDate::parse(&self.date).map_err(corrupt)?,
            cover: self.cover,
            publish_at: publish_at_of(self.publish_at, self.unpublished),
        })
    }
}

impl CqlStore {
    /// The list's rows in date order, those `keep` accepts, after skipping `skip` of them,
    /// at most `take`.
    async fn blog_rows(
        &self,
        keep: impl Fn(Option<i64>) -> bool,
        mut skip: u64,
        take: usize,
    ) -> StoreResult<Vec<BlogSummary>> {
        self.count_round_trip();
        let pager =
            self.session.execute_iter(self.statements.blog.list.clone(), (BUCKET,)).await.map_err(unavailable)?;
        let mut rows = pager.rows_stream::<SummaryRow>().map_err(corrupt)?;
        let mut posts = Vec::new();
        while posts.len() < take
            && let Some(row) = rows.try_next().await.map_err(unavailable)?
        {
            if !keep(publish_at_of(row.publish_at, row.unpublished)) {
                continue;
            }
            if skip > 0 {
                skip -= 1;
                continue;
            }
            posts.push(row.into_summary()?);
        }
        Ok(posts)
    }
}

fn live_at(now: i64) -> impl Fn(Option<i64>) -> bool {
    move |publish_at| publish_at.is_some_and(|at| at <= now)
}

#[async_trait]
impl BlogRepo for CqlStore {
    async fn put(&self, post: BlogPost) -> StoreResult<()> {
        let statements = &self.statements.blog;
        let key = post.key.as_str();
        // A post whose date changed leaves no stale entry in the list.
        let old: Option<(Option<String>,)> = self.first(&statements.date_of, (key,)).await?;
        if let Some((Some(old_date),)) = old
            && old_date != post.date.as_str()
        {
            self.run(&statements.delete_listed, (BUCKET, &old_date, key)).await?;
        }
        let (publish_at, unpublished) = state_columns(post.publish_at);
        self.run(
            &statements.insert,
            (
                key,
                &post.title,
                &post.description,
                post.date.as_str(),
                &post.cover,
                &post.markdown,
                &post.html,
                publish_at,
                unpublished,
            ),
        )
        .await?;
        self.run(
            &statements.insert_listed,
            (BUCKET, post.date.as_str(), key, &post.title, &post.description, &post.cover, publish_at, unpublished),
        )
        .await?;
        Ok(())
    }

    async fn get(&self, key: &BlogKey) -> StoreResult<Option<BlogPost>> {
        let row: Option<PostRow> = self.first(&self.statements.blog.get, (key.as_str(),)).await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(BlogPost {
            key: key.clone(),
            title: row.title,
            description: row.description,
            date: BlogDate::parse(&row.date).map_err(corrupt)?,
            cover: row.cover,
            markdown: row.markdown,
            html: row.html,
            publish_at: publish_at_of(row.publish_at, row.unpublished),
        }))
    }

    async fn list(&self, page: PageRequest, now: i64) -> StoreResult<Vec<BlogSummary>> {
        self.blog_rows(live_at(now), page.offset(), page.page_size() as usize).await
    }

    async fn count(&self, now: i64) -> StoreResult<u64> {
        // The operator publishes by hand: the one partition is small enough to read.
        Ok(self.blog_rows(live_at(now), 0, usize::MAX).await?.len() as u64)
    }

    async fn list_all(&self, limit: u32) -> StoreResult<Vec<BlogSummary>> {
        self.blog_rows(|_| true, 0, limit as usize).await
    }

    async fn set_publish_at(&self, key: &BlogKey, publish_at: Option<i64>) -> StoreResult<bool> {
        let statements = &self.statements.blog;
        let old: Option<(Option<String>,)> = self.first(&statements.date_of, (key.as_str(),)).await?;
        let Some((date,)) = old else { return Ok(false) };
        let (at, unpublished) = state_columns(publish_at);
        if let Some(date) = date {
            self.run(&statements.set_state_listed, (at, unpublished, BUCKET, &date, key.as_str())).await?;
        }
        self.run(&statements.set_state, (at, unpublished, key.as_str())).await?;
        Ok(true)
    }

    async fn delete(&self, key: &BlogKey) -> StoreResult<bool> {
        let statements = &self.statements.blog;
        let old: Option<(Option<String>,)> = self.first(&statements.date_of, (key.as_str(),)).await?;
        let Some((date,)) = old else { return Ok(false) };
        if let Some(date) = date {
            self.run(&statements.delete_listed, (BUCKET, &date, key.as_str())).await?;
        }
        self.run(&statements.delete, (key.as_str(),)).await?;
        Ok(true)
    }
}
