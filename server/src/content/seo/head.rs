//! Writes a page's metadata into the app shell: title, description, keywords, robots,
//! canonical, hreflang alternates, Open Graph and Twitter tags and JSON-LD. The tags carry
//! the names and ids the client's `applyPageMeta` looks for, so it updates them in place
//! instead of adding second copies.

use serde_json::{Value, json};

use super::LANGUAGES;
use super::routes::localized;
use crate::web::raster::preview_address;

pub const APP_NAME: &str = "Amora";
/// The picture of a page without one of its own: the site's logo (the build's
/// `logo.svg`, previewed as its JPEG twin).
pub const DEFAULT_IMAGE: &str = "/logo.svg";
/// Spec section 9: meta descriptions are at most 160 characters.
pub const META_DESCRIPTION_MAX: usize = 160;
const ELLIPSIS: char = '…';

/// Everything the head of one page says.
#[derive(Debug, Clone)]
pub struct PageHead {
    pub lang: &'static str,
    pub title: String,
    pub description: String,
    pub keywords: String,
    /// The path as requested, language prefix included (the canonical follows the path).
    pub path: String,
    /// The language-free route path, for the hreflang alternates.
    pub route_path: String,
    pub noindex: bool,
    /// Name and path of each step from the home page down to this page.
    pub breadcrumbs: Vec<(String, String)>,
    /// A picture for link previews: absolute, or a path on this site; the site's logo when
    /// `None`. Sent as a raster copy ([`preview_address`]): previews ignore SVG.
    pub image: Option<String>,
    /// Extra JSON-LD (an Article for blog posts).
    pub article: Option<Value>,
}

/// The client's `truncateDescription`: whitespace collapsed, at most `max` characters, a
/// trailing ellipsis when cut.
pub fn truncate_description(text: &str, max: usize) -> String {
    let clean = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if clean.chars().count() <= max {
        return clean;
    }
    let kept: String = clean.chars().take(max - 1).collect();
    format!("{}{ELLIPSIS}", kept.trim_end())
}

/// Escapes text for an HTML text node or a double-quoted attribute.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// JSON for a `<script>` element: `<`, `>` and `&` as JSON escapes, so no text inside can
/// close the element.
fn script_json(value: &Value) -> String {
    value.to_string().replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

fn absolute(base: &str, path_or_url: &str) -> String {
    if path_or_url.starts_with("http://") || path_or_url.starts_with("https://") {
        path_or_url.to_owned()
    } else {
        format!("{base}{path_or_url}")
    }
}

pub fn organization_json_ld(base: &str) -> Value {
    json!({
        "@context": "https://schema.org",
        "@type": "Organization",
        "name": APP_NAME,
        "url": format!("{base}/"),
        "logo": format!("{base}/logo.svg"),
    })
}

pub fn breadcrumb_json_ld(base: &str, crumbs: &[(String, String)]) -> Value {
    let items: Vec<Value> = crumbs
        .iter()
        .enumerate()
        .map(|(index, (name, path))| {
            json!({ "@type": "ListItem", "position": index + 1, "name": name, "item": format!("{base}{path}") })
        })
        .collect();
    json!({ "@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": items })
}

impl PageHead {
    /// The tags, one per line, for `base` (the site's public origin, no trailing slash).
    pub fn render(&self, base: &str) -> String {
        let description = truncate_description(&self.description, META_DESCRIPTION_MAX);
        let url = format!("{base}{}", self.path);
        let mut out = String::new();
        let mut line = |tag: String| {
            out.push_str("    ");
            out.push_str(&tag);
            out.push('\n');
        };
        let meta = |attribute: &str, key: &str, content: &str| {
            format!(r#"<meta {attribute}="{key}" content="{}" />"#, escape_html(content))
        };
        line(format!("<title>{}</title>", escape_html(&self.title)));
        line(meta("name", "description", &description));
        line(meta("name", "keywords", &self.keywords));
        line(meta("name", "robots", if self.noindex { "noindex" } else { "index,follow" }));
        line(format!(r#"<link rel="canonical" href="{}" />"#, escape_html(&url)));
        if !self.noindex {
            for lng in LANGUAGES {
                let href = format!("{base}{}", localized(&self.route_path, lng));
                line(format!(r#"<link rel="alternate" hreflang="{lng}" href="{}" />"#, escape_html(&href)));
            }
            let default = format!("{base}{}", self.route_path);
            line(format!(r#"<link rel="alternate" hreflang="x-default" href="{}" />"#, escape_html(&default)));
        }
        line(meta("property", "og:site_name", APP_NAME));
        line(meta("property", "og:type", if self.article.is_some() { "article" } else { "website" }));
        line(meta("property", "og:title", &self.title));
        line(meta("property", "og:description", &description));
        line(meta("property", "og:url", &url));
        line(meta("property", "og:locale", self.lang));
        let image = absolute(base, &preview_address(self.image.as_deref().unwrap_or(DEFAULT_IMAGE)));
        line(meta("property", "og:image", &image));
        // The logo is a small square: a summary card; a page's own picture a large one.
        line(meta("name", "twitter:card", if self.image.is_some() { "summary_large_image" } else { "summary" }));
        line(meta("name", "twitter:title", &self.title));
        line(meta("name", "twitter:description", &description));
        line(meta("name", "twitter:image", &image));
        let json_ld = |id: &str, value: &Value| {
            format!(r#"<script type="application/ld+json" id="{id}">{}</script>"#, script_json(value))
        };
        line(json_ld("ld-organization", &organization_json_ld(base)));
        line(json_ld("ld-breadcrumb", &breadcrumb_json_ld(base, &self.breadcrumbs)));
        if let Some(article) = &self.article {
            line(json_ld("ld-article", article));
        }
        out
    }
}

/// The app's root element as Vite's `index.html` has it.
const ROOT: &str = "<div id=\"root\"></div>";

/// The built `index.html` with its own title and description taken out, ready to take a
/// page's head.
#[derive(Debug, Clone)]
pub struct Shell {
    template: String,
    /// The build's own description: the fallback for pages without one of their own.
    pub default_description: String,
}

impl Shell {
    pub fn parse(index_html: &str) -> Self {
        let mut template = index_html.to_owned();
        remove_element(&mut template, "<title", "</title>");
        let default_description = take_meta_description(&mut template).unwrap_or_default();
        Self { template, default_description }
    }

    /// The page: `head` just before `</head>`, the `lang` attribute set, and a body (its
    /// HTML inside the app's root element, its data as `#ssr-data` after it).
    pub fn page(&self, lang: &str, head: &str, body: Option<(String, Option<Value>)>) -> String {
        let mut html = self.template.replacen("<html lang=\"en\">", &format!("<html lang=\"{lang}\">"), 1);
        if let Some((content, data)) = body {
            let data = data
                .map(|data| {
                    format!("\n<script type=\"application/json\" id=\"ssr-data\">{}</script>", script_json(&data))
                })
                .unwrap_or_default();
            html = html.replacen(ROOT, &format!("<div id=\"root\">\n{content}</div>{data}"), 1);
        }
        let at = html.find("</head>").unwrap_or_else(|| {
            // A shell without a head element: the tags lead the document, after its doctype.
            let doctype = html.get(..9).is_some_and(|start| start.eq_ignore_ascii_case("<!doctype"));
            if doctype { html.find('>').map_or(0, |end| end + 1) } else { 0 }
        });
        html.insert_str(at, head);
        html
    }
}

/// Removes the first `<start ...>...end` element, if any.
fn remove_element(html: &mut String, start: &str, end: &str) {
    if let Some(from) = html.find(start)
        && let Some(length) = html[from..].find(end)
    {
        html.replace_range(from..from + length + end.len(), "");
    }
}

/// Removes `<meta name="description" content="...">` and returns its content.
fn take_meta_description(html: &mut String) -> Option<String> {
    let mut search_from = 0;
    while let Some(offset) = html[search_from..].find("<meta") {
        let from = search_from + offset;
        let length = html[from..].find('>')? + 1;
        let tag = &html[from..from + length];
        if tag.contains(r#"name="description""#) {
            let content = tag.split(r#"content=""#).nth(1).and_then(|rest| rest.split('"').next()).map(unescape_basic);
            html.replace_range(from..from + length, "");
            return content;
        }
        search_from = from + length;
    }
    None
}

/// Undoes the entity escapes a build writes into attributes.
fn unescape_basic(text: &str) -> String {
    text.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_cut_to_160_characters_with_an_ellipsis() {
        assert_eq!(truncate_description("  short \n text ", 160), "short text");
        let long = "word ".repeat(60);
        let cut = truncate_description(&long, 160);
        assert_eq!(cut.chars().count(), 160);
        assert!(cut.ends_with("word…") || cut.ends_with("wor…"), "{cut}");
        let japanese = "あ".repeat(200);
        assert_eq!(truncate_description(&japanese, 160).chars().count(), 160);
    }

    #[test]
    fn the_shell_loses_its_own_title_and_description() {
        let index = "<!doctype html>\n<html lang=\"en\">\n<head>\n<title>Old &amp; title</title>\n<meta\n  name=\"description\"\n  content=\"Build &amp; default\"\n/>\n<meta name=\"rating\" content=\"adult\" />\n</head><body></body></html>";
        let shell = Shell::parse(index);
        assert_eq!(shell.default_description, "Build & default");
        let page = shell.page("de", "<title>Neu</title>\n", None);
        assert!(page.contains("<html lang=\"de\">"));
        assert!(!page.contains("Old"));
        assert!(page.contains("name=\"rating\""));
        assert!(page.contains("<title>Neu</title>\n</head>"));
    }

    #[test]
    fn everything_inserted_is_escaped() {
        let head = PageHead {
            lang: "en",
            title: "<script>alert(1)</script> & \"x\"".into(),
            description: "a \"quoted\" <b>".into(),
            keywords: String::new(),
            path: "/chat/x\"y".into(),
            route_path: "/chat/x\"y".into(),
            noindex: false,
            breadcrumbs: vec![("</script><b>".into(), "/".into())],
            image: None,
            article: None,
        }
        .render("https://amora.test");
        assert!(!head.contains("<script>alert"), "{head}");
        assert!(!head.contains("</script><b>"), "{head}");
        assert!(head.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"));
        assert!(head.contains(r#"href="https://amora.test/chat/x&quot;y""#));
        assert!(head.contains("\\u003c/script\\u003e"));
    }
}
