//! The body of a public page as plain HTML (issue 34): what a crawler, a link preview or
//! a browser without JavaScript reads before the React app takes over. It goes inside the
//! app's root element, which the app replaces when it first renders, and the data it was
//! made from goes beside it as an inline JSON document (`#ssr-data`, data only: the
//! content security policy runs no inline script) that the app reads instead of fetching
//! the same thing again.
//!
//! Everything here is what a signed-out visitor may see: the catalogue as
//! `Viewer::SignedOut` lists it (no private, hidden or restricted character), a public
//! character's own page, the legal texts, the blog and the landing pages' copy.

use amora_domain::blog::BlogPost;
use amora_domain::character::{Character, CharacterCard};
use amora_domain::chat::fill_placeholders;
use amora_store::BlogSummary;
use serde_json::{Value, json};

use super::head::escape_html;
use super::routes::localized;
use super::texts::Texts;

/// Characters in the home page's first page (the frontend's `HOME_PAGE_SIZE`).
pub const HOME_PAGE_SIZE: u32 = 30;
/// Posts in the blog list's first page (the frontend's `BLOG_PAGE_SIZE`).
pub const BLOG_PAGE_SIZE: u32 = 9;
/// Characters on a landing page (the frontend's `TOPIC_GRID_SIZE`).
pub const TOPIC_GRID_SIZE: u32 = 12;
/// Who writes the legal texts and how to reach them (the frontend's `lib/site.ts`).
const OPERATOR_NAME: &str = "Amora Ltd";
const CONTACT_EMAIL: &str = "support@amora.chat";

/// A page's body and the data the app takes over with.
pub struct Body {
    pub html: String,
    /// `{kind, path, data}`; the app uses `data` only on `path`.
    pub data: Option<Value>,
}

/// Writes the bodies of one request's pages, in its language.
pub struct BodyWriter<'a> {
    pub texts: &'a Texts,
    pub lang: &'static str,
    /// The request's language prefix (`None`: English, unprefixed).
    pub prefix: Option<&'static str>,
    /// The path as requested, for the data's `path`.
    pub full_path: &'a str,
}

impl BodyWriter<'_> {
    fn t(&self, key: &str) -> String {
        self.texts.get(self.lang, key).unwrap_or_default().to_owned()
    }

    fn localize(&self, path: &str) -> String {
        match self.prefix {
            Some(lng) => localized(path, lng),
            None => path.to_owned(),
        }
    }

    fn data(&self, kind: &str, data: Value) -> Option<Value> {
        Some(json!({ "kind": kind, "path": self.full_path, "data": data }))
    }

    /// "24 years" in the language's plural (the card's `home.age`).
    fn age(&self, years: u8) -> String {
        let category = plural_category(self.lang, u64::from(years));
        let text = self
            .texts
            .get(self.lang, &format!("home.age_{category}"))
            .or_else(|| self.texts.get(self.lang, "home.age_other"))
            .unwrap_or("{{count}}");
        text.replace("{{count}}", &years.to_string())
    }

    /// What a signed-out visitor is called in character texts (the chat's "You").
    fn visitor(&self) -> String {
        self.texts.get(self.lang, "chat.you").unwrap_or("You").to_owned()
    }

    /// A character's text with `{{char}}`, `{{user}}` and the like filled in, as the chat does.
    pub fn filled(&self, text: &str, character_name: &str) -> String {
        fill_placeholders(text, &self.visitor(), character_name)
    }

    fn cards(&self, cards: &[CharacterCard]) -> String {
        let mut html = String::from("<ul class=\"ssr-characters\">\n");
        for card in cards {
            let name = escape_html(&card.character_name);
            html.push_str(&format!(
                "<li><a href=\"{href}\"><img src=\"{photo}\" alt=\"{name}\" width=\"300\" height=\"400\" \
                 loading=\"lazy\" /><h3>{name}</h3></a><p>{age}</p><p>{intro}</p></li>\n",
                href = escape_html(&self.localize(&format!("/chat/{}", card.character_id.as_str()))),
                photo = escape_html(&card.character_photo),
                age = escape_html(&self.age(card.character_age.years())),
                intro = escape_html(&self.filled(&card.introduction, &card.character_name)),
            ));
        }
        html.push_str("</ul>\n");
        html
    }

    /// `/` and `/ai-boyfriend`: the heading, the first page of characters, the FAQ.
    pub fn home(&self, guys: bool, cards: &[CharacterCard]) -> Body {
        let (heading, faq) = if guys { ("home.headingGuys", "guys") } else { ("home.headingGirls", "girls") };
        let mut html = format!("<main id=\"ssr-page\">\n<h1>{}</h1>\n", escape_html(&self.t(heading)));
        html.push_str(&self.cards(cards));
        if let Some(items) =
            self.texts.value("translation", self.lang, &format!("faq.{faq}")).and_then(Value::as_object)
        {
            html.push_str(&format!("<section><h2>{}</h2>\n", escape_html(&self.t("home.faqTitle"))));
            for item in items.values() {
                let (q, a) = (item["title"].as_str().unwrap_or_default(), item["content"].as_str().unwrap_or_default());
                html.push_str(&format!("<h3>{}</h3><p>{}</p>\n", escape_html(q), escape_html(a)));
            }
            html.push_str("</section>\n");
        }
        html.push_str("</main>\n");
        Body { html, data: self.data("catalogue", json!({ "gender": u8::from(guys), "list": cards })) }
    }

    /// `/chat/{id}` of a public character: name, age, portrait, introduction and greeting.
    pub fn character(&self, character: &Character) -> Body {
        let card = &character.card;
        let name = escape_html(&card.character_name);
        let html = format!(
            "<main id=\"ssr-page\">\n<article>\n<h1>{name}</h1>\n<img src=\"{photo}\" alt=\"{name}\" width=\"600\" \
             height=\"800\" />\n<p>{age}</p>\n<p>{intro}</p>\n<blockquote>{greeting}</blockquote>\n</article>\n\
             <p><a href=\"{home}\">{explore}</a></p>\n</main>\n",
            photo = escape_html(&card.character_photo),
            age = escape_html(&self.age(card.character_age.years())),
            intro = escape_html(&self.filled(&card.introduction, &card.character_name)),
            greeting = escape_html(&self.filled(&character.greeting, &card.character_name)),
            home = escape_html(&self.localize("/")),
            explore = escape_html(&self.t("nav.explore")),
        );
        Body { html, data: self.data("character", json!(character)) }
    }

    /// A legal page: the version an operator published (`published`), else the `legal`
    /// namespace's document `key`; its links as plain links.
    pub fn legal(&self, key: &str, published: Option<&Value>) -> Option<Body> {
        let doc = match published {
            Some(doc) => doc,
            None => self.texts.value("legal", self.lang, &format!("docs.{key}"))?,
        };
        let rich = |text: &str| self.rich(text);
        let mut html = format!(
            "<main id=\"ssr-page\">\n<article>\n<h1>{}</h1>\n",
            escape_html(doc["title"].as_str().unwrap_or_default())
        );
        if let Some(binding) = self.texts.value("legal", self.lang, "binding").and_then(Value::as_str) {
            html.push_str(&format!("<p>{}</p>\n", escape_html(binding)));
        }
        html.push_str(&format!("<p>{}</p>\n", rich(doc["intro"].as_str().unwrap_or_default())));
        for section in doc["sections"].as_array().into_iter().flatten() {
            html.push_str(&format!(
                "<section>\n<h2>{}</h2>\n",
                escape_html(&fill_site(section["heading"].as_str().unwrap_or_default()))
            ));
            for paragraph in section["paragraphs"].as_array().into_iter().flatten() {
                html.push_str(&format!("<p>{}</p>\n", rich(paragraph.as_str().unwrap_or_default())));
            }
            if let Some(items) = section["items"].as_array() {
                html.push_str("<ul>\n");
                for item in items {
                    html.push_str(&format!("<li>{}</li>\n", rich(item.as_str().unwrap_or_default())));
                }
                html.push_str("</ul>\n");
            }
            html.push_str("</section>\n");
        }
        html.push_str("</article>\n</main>\n");
        Some(Body { html, data: None })
    }

    /// A legal text's markup: `<privacy>Privacy Policy</privacy>` links that document,
    /// `<mail>…</mail>` the contact mailbox (the frontend's `parseTagged` and `LINK_TAGS`);
    /// everything else escaped.
    fn rich(&self, source: &str) -> String {
        let source = fill_site(source);
        let mut html = String::new();
        let mut rest = source.as_str();
        while let Some(open) = rest.find('<') {
            let after = &rest[open + 1..];
            let tag_end = after.find('>').filter(|end| after[..*end].chars().all(|c| c.is_ascii_alphanumeric()));
            let closed = tag_end.and_then(|end| {
                let tag = &after[..end];
                let inner = &after[end + 1..];
                let close = format!("</{tag}>");
                inner.find(&close).map(|at| (tag, &inner[..at], &inner[at + close.len()..]))
            });
            let Some((tag, text, tail)) = closed.filter(|(tag, _, _)| !tag.is_empty()) else {
                html.push_str(&escape_html(&rest[..=open]));
                rest = &rest[open + 1..];
                continue;
            };
            html.push_str(&escape_html(&rest[..open]));
            let href = if tag == "mail" {
                Some(format!("mailto:{CONTACT_EMAIL}"))
            } else {
                legal_link(tag).map(|path| self.localize(path))
            };
            match href {
                Some(href) => html.push_str(&format!("<a href=\"{}\">{}</a>", escape_html(&href), escape_html(text))),
                None => html.push_str(&escape_html(text)),
            }
            rest = tail;
        }
        html.push_str(&escape_html(rest));
        html
    }

    /// `/blog`: the heading, the first page of posts, each a plain link.
    pub fn blog(&self, posts: &[BlogSummary], total: u64) -> Body {
        let mut html = format!(
            "<main id=\"ssr-page\">\n<h1>{}</h1>\n<p>{}</p>\n<ul class=\"ssr-posts\">\n",
            escape_html(&self.t("blog.heading")),
            escape_html(&self.t("blog.intro"))
        );
        let mut list = Vec::new();
        for post in posts {
            html.push_str(&format!(
                "<li><a href=\"{href}\"><h2>{title}</h2></a><time datetime=\"{date}\">{date}</time><p>{description}</p></li>\n",
                href = escape_html(&self.localize(&format!("/blogs/{}", post.key.as_str()))),
                title = escape_html(&post.title),
                date = escape_html(post.date.as_str()),
                description = escape_html(&post.description),
            ));
            list.push(json!({
                "blogKey": post.key.as_str(),
                "title": post.title,
                "description": post.description,
                "date": post.date.as_str(),
                "cover": post.cover,
            }));
        }
        html.push_str("</ul>\n</main>\n");
        Body { html, data: self.data("blogList", json!({ "list": list, "total": total })) }
    }

    /// `/blogs/{key}`: the post (its HTML was sanitised when it was published).
    pub fn post(&self, post: &BlogPost) -> Body {
        let html = format!(
            "<main id=\"ssr-page\">\n<article>\n<h1>{title}</h1>\n<time datetime=\"{date}\">{date}</time>\n\
             <img src=\"{cover}\" alt=\"\" />\n{body}\n</article>\n<p><a href=\"{blog}\">{blog_name}</a></p>\n</main>\n",
            title = escape_html(&post.title),
            date = escape_html(post.date.as_str()),
            cover = escape_html(&post.cover),
            body = post.html,
            blog = escape_html(&self.localize("/blog")),
            blog_name = escape_html(&self.t("nav.blog")),
        );
        let data = json!({
            "blogKey": post.key.as_str(),
            "title": post.title,
            "description": post.description,
            "date": post.date.as_str(),
            "cover": post.cover,
            "html": post.html,
        });
        Body { html, data: self.data("post", data) }
    }

    /// A landing page: the topic's copy (the version an operator published, `published`,
    /// else the `topics` namespace's), its characters, its FAQ. The data carries the
    /// published copy (null: as built) so the app shows the same without asking.
    pub fn topic(&self, topic: &str, published: Option<Value>, cards: &[CharacterCard]) -> Option<Body> {
        let copy = match &published {
            Some(copy) => copy,
            None => self.texts.value("topics", self.lang, topic)?,
        };
        let text = |value: &Value| escape_html(value.as_str().unwrap_or_default());
        let mut html = format!(
            "<main id=\"ssr-page\">\n<h1>{}</h1>\n<p>{}</p>\n<ul>\n",
            text(&copy["heading"]),
            text(&copy["intro"])
        );
        for point in copy["points"].as_array().into_iter().flatten() {
            html.push_str(&format!("<li>{}</li>\n", text(point)));
        }
        html.push_str(&format!("</ul>\n<h2>{}</h2>\n", escape_html(&self.t("landingPage.charactersTitle"))));
        html.push_str(&self.cards(cards));
        html.push_str(&format!(
            "<p><a href=\"{}\">{}</a></p>\n<section><h2>{}</h2>\n",
            escape_html(&self.localize("/")),
            escape_html(&self.t("landingPage.exploreAll")),
            escape_html(&self.t("home.faqTitle"))
        ));
        for item in copy["faq"].as_array().into_iter().flatten() {
            html.push_str(&format!("<h3>{}</h3><p>{}</p>\n", text(&item["q"]), text(&item["a"])));
        }
        html.push_str("</section>\n</main>\n");
        let data = json!({ "topic": topic, "list": cards, "copy": published });
        Some(Body { html, data: self.data("topic", data) })
    }
}

/// The landing pages (path, topic key, catalogue, tags).
pub use crate::content::landing::TOPICS;

/// The legal documents (`legal` namespace `docs.<key>`), by their pages' `seo` key.
pub use crate::content::legal::LEGAL_DOCS;

/// The legal texts' `{{operator}}` and `{{email}}`.
fn fill_site(text: &str) -> String {
    text.replace("{{operator}}", OPERATOR_NAME).replace("{{email}}", CONTACT_EMAIL)
}

/// The page a legal text's link tag names (the frontend's `LINK_TAGS`).
fn legal_link(tag: &str) -> Option<&'static str> {
    Some(match tag {
        "terms" => "/legal-information",
        "termsOfService" => "/terms-of-service",
        "privacy" => "/privacy-policy",
        "guidelines" => "/communityguidelines",
        "payDisclaimer" => "/pay-disclaimer",
        "refund" => "/refund-policy",
        "complaint" => "/complaint-policy",
        "compliance" => "/2257",
        "membership" => "/membership-policy",
        _ => return None,
    })
}

/// The CLDR plural category of `n` in the ten languages, as i18next picks `age_one`,
/// `age_few`, … (Indonesian, Japanese and Korean have only `other`).
fn plural_category(lang: &str, n: u64) -> &'static str {
    match lang {
        "id" | "ja" | "ko" => "other",
        "pl" => match (n % 10, n % 100) {
            _ if n == 1 => "one",
            (2..=4, rem) if !(12..=14).contains(&rem) => "few",
            _ => "many",
        },
        "fr" | "pt" if n <= 1 => "one",
        _ if n == 1 => "one",
        _ => "other",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use amora_domain::gender::Gender;

    #[test]
    fn the_landing_topics_are_the_frontends() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../frontend/src/features/home/lib/topics.ts");
        let source = std::fs::read_to_string(path).unwrap();
        for (_, key, gender, tags) in TOPICS {
            let gender = if *gender == Gender::Girls { "girls" } else { "guys" };
            let tags = tags.iter().map(|t| format!("'{t}'")).collect::<Vec<_>>().join(", ");
            let line = format!("  {key}: {{ gender: Gender.{gender}, tags: [{tags}] }},");
            assert!(source.contains(&line), "topics.ts has no {line}");
        }
    }

    #[test]
    fn plurals_follow_the_language() {
        assert_eq!(plural_category("en", 24), "other");
        assert_eq!(plural_category("en", 1), "one");
        assert_eq!(plural_category("pl", 22), "few");
        assert_eq!(plural_category("pl", 25), "many");
        assert_eq!(plural_category("pl", 12), "many");
        assert_eq!(plural_category("ja", 1), "other");
    }

    #[test]
    fn legal_markup_becomes_plain_links_and_the_rest_is_escaped() {
        let texts = Texts::default();
        let writer = BodyWriter { texts: &texts, lang: "de", prefix: Some("de"), full_path: "/de/privacy-policy" };
        assert_eq!(
            writer.rich("See our <privacy>Privacy Policy</privacy> & write to <mail>{{email}}</mail> <b>x</b> a<b"),
            "See our <a href=\"/de/privacy-policy\">Privacy Policy</a> &amp; write to \
             <a href=\"mailto:support@amora.chat\">support@amora.chat</a> x a&lt;b"
        );
    }
}
