//! Blog posts as the operator writes them: a Markdown file with a front matter block,
//!
//! ```text
//! ---
//! key: what-is-an-ai-companion
//! title: What is an AI companion?
//! description: One or two sentences for the list and for search results.
//! date: 2024-10-20
//! cover: /blog/covers/what-is-an-ai-companion.svg
//! ---
//! The article, in Markdown.
//! ```
//!
//! rendered to HTML by pulldown-cmark and sanitised by ammonia before it is stored, so
//! nothing in a post can run script in a reader's browser. The articles in
//! `server/content/blog/` are published on a store's first start.

use amora_domain::Invalid;
use amora_domain::blog::{BlogDate, BlogKey, BlogPost, check_texts};
use amora_store::{Store, StoreResult};

/// The articles that ship with Amora, published when the blog is empty.
const SEEDED: &[&str] = &[
    include_str!("../../content/blog/what-is-an-ai-companion.md"),
    include_str!("../../content/blog/how-ai-companions-remember-you.md"),
    include_str!("../../content/blog/designing-your-own-ai-character.md"),
    include_str!("../../content/blog/privacy-and-ai-companions.md"),
    include_str!("../../content/blog/healthy-habits-with-an-ai-companion.md"),
];

/// Markdown to HTML, then every tag and attribute outside ammonia's allow-list removed,
/// links marked `nofollow` and opened without a referrer.
pub fn render_markdown(markdown: &str) -> String {
    use pulldown_cmark::{Options, Parser, html};
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES;
    let mut unsafe_html = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut unsafe_html, Parser::new_ext(markdown, options));
    ammonia::Builder::default().link_rel(Some("noopener noreferrer nofollow")).clean(&unsafe_html).to_string()
}

/// Reads a post file: its front matter (`key`, `title`, `description`, `date`, `cover`;
/// values may be in double quotes) and body.
pub fn parse_post(file: &str) -> Result<BlogPost, Invalid> {
    let file = file.strip_prefix('\u{feff}').unwrap_or(file).replace("\r\n", "\n");
    let rest = file
        .strip_prefix("---\n")
        .ok_or_else(|| Invalid::new("frontMatter", "the file must start with a '---' line"))?;
    let (head, body) = rest
        .split_once("\n---\n")
        .or_else(|| rest.strip_suffix("\n---").map(|head| (head, "")))
        .ok_or_else(|| Invalid::new("frontMatter", "the front matter must end with a '---' line"))?;
    let (mut key, mut title, mut description, mut date, mut cover) = (None, None, None, None, None);
    for line in head.lines().filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#')) {
        let (name, value) =
            line.split_once(':').ok_or_else(|| Invalid::new("frontMatter", format!("not 'name: value': {line}")))?;
        let value = unquote(value.trim()).to_owned();
        let slot = match name.trim() {
            "key" => &mut key,
            "title" => &mut title,
            "description" => &mut description,
            "date" => &mut date,
            "cover" => &mut cover,
            other => return Err(Invalid::new("frontMatter", format!("unknown field {other:?}"))),
        };
        if slot.replace(value).is_some() {
            return Err(Invalid::new("frontMatter", format!("{} is given twice", name.trim())));
        }
    }
    let required = |value: Option<String>, field: &'static str| {
        value.ok_or_else(|| Invalid::new(field, "is missing from the front matter"))
    };
    let key = BlogKey::parse(&required(key, "key")?)?;
    let title = required(title, "title")?;
    let description = required(description, "description")?;
    let date = BlogDate::parse(&required(date, "date")?)?;
    let cover = required(cover, "cover")?;
    let markdown = body.trim().to_owned();
    check_texts(&title, &description, &cover, &markdown)?;
    let html = render_markdown(&markdown);
    // Unpublished until its publisher says from when (`admin::content`'s `publish_post`).
    Ok(BlogPost { key, title, description, date, cover, markdown, html, publish_at: None })
}

fn unquote(value: &str) -> &str {
    value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value)
}

/// A stored post as the file `parse_post` reads (the operator console edits posts so);
/// values in double quotes, so a colon or a leading quote in them reads back the same.
pub fn post_file(post: &BlogPost) -> String {
    format!(
        "---\nkey: {}\ntitle: \"{}\"\ndescription: \"{}\"\ndate: {}\ncover: \"{}\"\n---\n{}",
        post.key,
        post.title,
        post.description,
        post.date.as_str(),
        post.cover,
        post.markdown
    )
}

/// Publishes the shipped articles when the blog has no post yet (a new store), so an
/// operator who unpublished or deleted them all does not get them back on a restart.
pub async fn ensure_seeded(store: &Store) -> StoreResult<()> {
    if !store.blog.list_all(1).await?.is_empty() {
        return Ok(());
    }
    for file in SEEDED {
        let mut post = parse_post(file).map_err(|e| amora_store::StoreError::Corrupt(format!("a seeded post: {e}")))?;
        post.publish_at = Some(0);
        store.blog.put(post).await?;
    }
    tracing::info!(posts = SEEDED.len(), "blog seeded");
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn a_post_file_written_from_a_post_reads_back_as_the_same_post() {
        let file = "---\nkey: a-post\ntitle: \"Love: a \"field\" guide\"\ndescription: One: two.\ndate: 2026-11-30\ncover: /blog/covers/a.svg\n---\n# Hello\n\nBody: text.\n";
        let post = super::parse_post(file).unwrap_or_else(|e| panic!("{e}"));
        let again = super::parse_post(&super::post_file(&post)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again, post);
        assert_eq!(again.title, "Love: a \"field\" guide");
    }

    use super::*;

    #[test]
    fn script_and_event_handlers_never_survive() {
        let html = render_markdown(
            "Hi <script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3)) <a href=\"https://ok.example\">ok</a>",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(html.contains(r#"rel="noopener noreferrer nofollow""#), "{html}");
    }

    #[test]
    fn markdown_becomes_html() {
        let html = render_markdown("## Heading\n\nSome *emphasis* and a [link](https://example.com).\n\n- one\n- two");
        assert!(html.contains("<h2>Heading</h2>"), "{html}");
        assert!(html.contains("<em>emphasis</em>"), "{html}");
        assert!(html.contains("<li>two</li>"), "{html}");
    }

    #[test]
    fn front_matter_is_read_and_checked() {
        let post = parse_post(
            "---\nkey: a-post\ntitle: \"A: title\"\ndescription: Short.\ndate: 2024-10-20\ncover: /blog/covers/a.svg\n---\n\nBody *text*.\n",
        )
        .unwrap();
        assert_eq!(post.key.as_str(), "a-post");
        assert_eq!(post.title, "A: title");
        assert_eq!(post.markdown, "Body *text*.");
        assert_eq!(post.html.trim(), "<p>Body <em>text</em>.</p>");

        assert_eq!(parse_post("no front matter").unwrap_err().field, "frontMatter");
        let missing = "---\nkey: a\ntitle: T\ndate: 2024-10-20\ncover: /c.svg\n---\nbody";
        assert_eq!(parse_post(missing).unwrap_err().field, "description");
        let unknown = "---\nkey: a\nauthor: me\n---\nbody";
        assert_eq!(parse_post(unknown).unwrap_err().field, "frontMatter");
        let bad_date = "---\nkey: a\ntitle: T\ndescription: D\ndate: 20 Oct\ncover: /c.svg\n---\nbody";
        assert_eq!(parse_post(bad_date).unwrap_err().field, "date");
    }

    #[test]
    fn every_shipped_article_parses() {
        for file in SEEDED {
            let post = parse_post(file).unwrap();
            assert!(post.markdown.split_whitespace().count() > 400, "{} is too short to be an article", post.key);
            assert!(post.description.chars().count() <= 160, "{}", post.key);
        }
    }
}
