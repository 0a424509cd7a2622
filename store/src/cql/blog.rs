//! Blog posts over CQL: `blog_posts` by key for the article, `blog_posts_by_date` (one
//! partition) for the list in date order.

use amora_domain::blog::{BlogDate, BlogKey, BlogPost};
use amora_domain::paging::PageRequest;
use async_trait::async_trait;
use futures_util::TryStreamExt;
use scylla::DeserializeRow;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, corrupt, unavailable};
use crate::{BlogRepo, BlogSummary, StoreError, StoreResult};

/// The one partition of the list table.
const BUCKET: i32 = 0;

pub(super) struct Statements {
    insert: PreparedStatement,
    insert_listed: PreparedStatement,
    get: PreparedStatement,
    date_of: PreparedStatement,
    list: PreparedStatement,
    count: PreparedStatement,
    delete: PreparedStatement,
    delete_listed: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            insert: p
                .prepare(
                    "INSERT INTO blog_posts (post_key, title, description, date, cover, markdown, html)
                     VALUES (?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            insert_listed: p
                .prepare(
                    "INSERT INTO blog_posts_by_date (bucket, date, post_key, title, description, cover)
                     VALUES (?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            get: p
                .prepare(
                    "SELECT title, description, date, cover, markdown, html FROM blog_posts WHERE post_key = ?",
                    Kind::Idempotent,
                )
                .await?,
            date_of: p.prepare("SELECT date FROM blog_posts WHERE post_key = ?", Kind::Idempotent).await?,
            list: p
                .prepare(
                    "SELECT post_key, title, description, date, cover FROM blog_posts_by_date WHERE bucket = ?",
                    Kind::Idempotent,
                )
                .await?,
            count: p.prepare("SELECT COUNT(*) FROM blog_posts_by_date WHERE bucket = ?", Kind::Idempotent).await?,
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

#[derive(DeserializeRow)]
struct PostRow {
    title: String,
    description: String,
    date: String,
    cover: String,
    markdown: String,
    html: String,
}

#[derive(DeserializeRow)]
struct SummaryRow {
    post_key: String,
    title: String,
    description: String,
    date: String,
    cover: String,
}

impl SummaryRow {
    fn into_summary(self) -> StoreResult<BlogSummary> {
        Ok(BlogSummary {
            key: BlogKey::parse(&self.post_key).map_err(corrupt)?,
            title: self.title,
            description: self.description,
            date: BlogDate::parse(&self.date).map_err(corrupt)?,
            cover: self.cover,
        })
    }
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
        self.run(
            &statements.insert,
            (key, &post.title, &post.description, post.date.as_str(), &post.cover, &post.markdown, &post.html),
        )
        .await?;
        self.run(
            &statements.insert_listed,
            (BUCKET, post.date.as_str(), key, &post.title, &post.description, &post.cover),
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
        }))
    }

    async fn list(&self, page: PageRequest) -> StoreResult<Vec<BlogSummary>> {
        self.count_round_trip();
        let pager =
            self.session.execute_iter(self.statements.blog.list.clone(), (BUCKET,)).await.map_err(unavailable)?;
        let mut rows = pager.rows_stream::<SummaryRow>().map_err(corrupt)?;
        let (mut skip, mut posts) = (page.offset(), Vec::with_capacity(page.page_size() as usize));
        while let Some(row) = rows.try_next().await.map_err(unavailable)? {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            posts.push(row.into_summary()?);
            if posts.len() == page.page_size() as usize {
                break;
            }
        }
        Ok(posts)
    }

    async fn count(&self) -> StoreResult<u64> {
        let row: Option<(i64,)> = self.first(&self.statements.blog.count, (BUCKET,)).await?;
        let count = row.map(|(n,)| n).unwrap_or(0);
        u64::try_from(count).map_err(|_| StoreError::Corrupt(format!("negative count {count}")))
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
