//! Pages crawlers can read: for every route of spec section 2 the server writes the page's
//! own title, description, keywords, canonical link, hreflang alternates, Open Graph and
//! Twitter tags and JSON-LD into the `index.html` it sends, so a crawler without
//! JavaScript sees what the React app will show. Unknown paths answer 404 with the same
//! shell (the app then renders Not Found). Also `/sitemap.xml` and `/robots.txt`.
//!
//! Texts come from the build's own translation files (`seo.<pageKey>`), so the server and
//! the client's `usePageMeta` say the same; they and the shell are read once and read again
//! only when a new build replaces `index.html`.

pub mod body;
pub mod head;
pub mod routes;
pub mod sitemap;
pub mod texts;

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use amora_domain::account::LANGUAGES;
use amora_domain::blog::{BlogKey, BlogPost};
use amora_domain::character::{Character, CharacterCard, CharacterId, Exposure};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::tag::TagFilter;
use amora_domain::viewer::Viewer;
use amora_store::seed::{localize_card, localize_character};
use amora_store::{Store, StoreResult};
use serde_json::json;

use body::{Body, BodyWriter};
use head::{APP_NAME, PageHead, Shell};
use routes::{Located, MetaSource, NOT_FOUND, PageDef, Route};
use texts::Texts;

use crate::web::raster::{StaticPreviews, preview_address};

/// The build as last read: the shell and the translations.
pub struct Build {
    pub shell: Shell,
    pub texts: Texts,
    modified: SystemTime,
}

/// The site's pages as the server renders them.
pub struct Site {
    static_dir: PathBuf,
    /// The public origin (`http.public_base_url`), no trailing slash.
    pub base: String,
    build: RwLock<Option<Arc<Build>>>,
    /// JPEG twins of the build's SVG pictures, for link previews.
    pub previews: StaticPreviews,
}

/// A rendered page and the status it is sent with.
pub struct RenderedPage {
    pub found: bool,
    pub html: String,
}

impl Site {
    pub fn new(static_dir: PathBuf, public_base_url: &str) -> Self {
        Self {
            static_dir,
            base: public_base_url.trim_end_matches('/').to_owned(),
            build: RwLock::new(None),
            previews: StaticPreviews::default(),
        }
    }

    /// The current build, read again when `index.html` changed; `None` while there is none.
    pub fn build(&self) -> Option<Arc<Build>> {
        let index = self.static_dir.join("index.html");
        let modified = std::fs::metadata(&index).and_then(|m| m.modified()).ok()?;
        if let Some(build) = self.build.read().ok().and_then(|b| b.clone())
            && build.modified == modified
        {
            return Some(build);
        }
        let html = std::fs::read_to_string(&index).ok()?;
        let build = Arc::new(Build { shell: Shell::parse(&html), texts: Texts::load(&self.static_dir), modified });
        if let Ok(mut slot) = self.build.write() {
            *slot = Some(build.clone());
        }
        Some(build)
    }

    /// The page for a request path (language prefix included): its head, and for a public
    /// page its body and the data the app takes over with. `personal`: the request comes
    /// with a session, whose catalogue may hold more than a signed-out visitor's, so the
    /// lists' data is left for the app to ask for (the body's text is the same).
    pub async fn render(
        &self,
        build: &Build,
        store: &Store,
        full_path: &str,
        personal: bool,
    ) -> StoreResult<RenderedPage> {
        let located = routes::locate(full_path);
        let lang = located.prefix.unwrap_or("en");
        let writer = HeadWriter {
            texts: &build.texts,
            shell: &build.shell,
            base: &self.base,
            lang,
            located: &located,
            full_path,
        };
        let bodies = BodyWriter { texts: &build.texts, lang, prefix: located.prefix, full_path };
        let (head, body) = match routes::resolve(located.path) {
            Route::Page(page) if std::ptr::eq(page, &NOT_FOUND) => (None, None),
            Route::Page(page) => (Some(writer.page(page)), page_body(&bodies, store, page).await?),
            Route::Character(id) => match CharacterId::parse(&id) {
                Ok(id) => {
                    let character = store.characters.get(&id).await?;
                    let hidden = character.is_some() && store.characters.is_hidden(&id).await?;
                    // A created character that is not public is nobody's page but its
                    // creator's app view: crawlers and everyone else find nothing.
                    match character.filter(|c| !hidden && c.status.is_listed()) {
                        Some(mut character) => {
                            localize_character(&mut character, lang);
                            character.creator_id = None;
                            // A restricted character's page says nothing of it to those
                            // it is kept from (signed-out visitors, crawlers).
                            let body =
                                (character.exposure != Exposure::Restricted).then(|| bodies.character(&character));
                            (Some(writer.character(&character, &bodies)), body)
                        }
                        None => (None, None),
                    }
                }
                Err(_) => (None, None),
            },
            Route::BlogPost(key) => match BlogKey::parse(&key) {
                // A post scheduled for later or unpublished is nobody's page yet.
                Ok(key) => match store.blog.get(&key).await?.filter(|post| post.is_live(crate::auth::now())) {
                    Some(post) => (Some(writer.post(&post)), Some(bodies.post(&post))),
                    None => (None, None),
                },
                Err(_) => (None, None),
            },
            Route::NotFound => (None, None),
        };
        let found = head.is_some();
        let head = head.unwrap_or_else(|| writer.not_found());
        let body = body.map(|body| {
            let kind = body.data.as_ref().and_then(|data| data["kind"].as_str()).unwrap_or_default();
            let viewer_bound = matches!(kind, "catalogue" | "topic");
            (body.html, body.data.filter(|_| !(personal && viewer_bound)))
        });
        Ok(RenderedPage { found, html: build.shell.page(lang, &head.render(&self.base), body) })
    }
}

/// The body of a fixed route that has content of its own: the homes, the blog list, the
/// legal texts and the landing pages; `None` for the app's screens.
async fn page_body(bodies: &BodyWriter<'_>, store: &Store, page: &PageDef) -> StoreResult<Option<Body>> {
    let first_page = |size: u32| PageRequest::parse(1, i64::from(size)).ok();
    let localized_cards = |mut cards: Vec<CharacterCard>| {
        cards.iter_mut().for_each(|card| localize_card(card, bodies.lang));
        cards
    };
    match (page.path, page.meta) {
        ("/" | "/ai-boyfriend", _) => {
            let guys = page.path == "/ai-boyfriend";
            let gender = if guys { Gender::Guys } else { Gender::Girls };
            let Some(request) = first_page(body::HOME_PAGE_SIZE) else { return Ok(None) };
            let cards = store.characters.list_cards(gender, Viewer::SignedOut, request).await?;
            Ok(Some(bodies.home(guys, &localized_cards(cards))))
        }
        ("/blog", _) => {
            let Some(request) = first_page(body::BLOG_PAGE_SIZE) else { return Ok(None) };
            let now = crate::auth::now();
            let posts = store.blog.list(request, now).await?;
            Ok(Some(bodies.blog(&posts, store.blog.count(now).await?)))
        }
        (_, MetaSource::Seo(key)) if body::LEGAL_DOCS.contains(&key) => {
            // The newest version an operator published shows here as in the app.
            let newest = store.legal.legal_versions(key, bodies.lang, 1).await?.into_iter().next();
            let published = newest.and_then(|version| serde_json::from_str::<serde_json::Value>(&version.body).ok());
            Ok(bodies.legal(key, published.as_ref()))
        }
        (path, _) => {
            let Some((_, topic, gender, tags)) = body::TOPICS.iter().find(|(p, ..)| *p == path) else {
                return Ok(None);
            };
            let tags: Vec<String> = tags.iter().map(|t| (*t).to_owned()).collect();
            let (Ok(tags), Some(request)) = (TagFilter::parse(&tags), first_page(body::TOPIC_GRID_SIZE)) else {
                return Ok(None);
            };
            let cards = store.characters.list_cards_tagged(*gender, &tags, Viewer::SignedOut, request).await?;
            // The newest copy an operator published shows here as in the app.
            let published = crate::content::landing::published(store, topic, bodies.lang).await?;
            Ok(bodies.topic(topic, published, &localized_cards(cards)))
        }
    }
}

/// Builds the head of one request's page.
struct HeadWriter<'a> {
    texts: &'a Texts,
    shell: &'a Shell,
    base: &'a str,
    lang: &'static str,
    located: &'a Located<'a>,
    full_path: &'a str,
}

impl HeadWriter<'_> {
    fn t(&self, key: &str) -> Option<&str> {
        self.texts.get(self.lang, key)
    }

    /// A path under the request's language prefix, as the client's `localize` makes it.
    fn localize(&self, path: &str) -> String {
        match self.located.prefix {
            Some(lng) => routes::localized(path, lng),
            None => path.to_owned(),
        }
    }

    fn label(&self, page: &PageDef) -> String {
        self.t(page.label).unwrap_or(page.name).to_owned()
    }

    fn home_crumb(&self) -> (String, String) {
        (self.t("seo.breadcrumbHome").unwrap_or("Home").to_owned(), self.localize("/"))
    }

    fn base_head(&self, title: String, description: String, keywords: String, noindex: bool) -> PageHead {
        PageHead {
            lang: self.lang,
            title,
            description,
            keywords,
            path: self.full_path.to_owned(),
            route_path: self.located.path.to_owned(),
            noindex,
            breadcrumbs: vec![self.home_crumb()],
            image: None,
            article: None,
        }
    }

    /// A fixed route: its `seo.<key>` texts, else its label and the build's description.
    fn page(&self, page: &PageDef) -> PageHead {
        let (title, description, keywords) = match page.meta {
            MetaSource::Seo(key) => (
                self.t(&format!("seo.{key}.title")).map(str::to_owned),
                self.t(&format!("seo.{key}.description")).map(str::to_owned),
                self.t(&format!("seo.{key}.keywords")).map(str::to_owned),
            ),
            MetaSource::Section(section) => (
                self.t(&format!("{section}.metaTitle")).map(str::to_owned),
                self.t(&format!("{section}.metaDescription")).map(str::to_owned),
                self.t(&format!("{section}.metaKeywords")).map(str::to_owned),
            ),
        };
        let label = self.label(page);
        let title = title.unwrap_or_else(|| format!("{label} – {APP_NAME}"));
        let description = description.unwrap_or_else(|| self.shell.default_description.clone());
        let mut head = self.base_head(title, description, keywords.unwrap_or_default(), !page.indexed);
        if page.path != "/" {
            head.breadcrumbs.push((label, self.localize(self.located.path)));
        }
        head
    }

    /// `/chat/{id}`: the character's name, introduction and portrait. A character kept
    /// from new and signed-out visitors (restricted exposure) shows only the chat screen's
    /// texts and is not indexed.
    fn character(&self, character: &Character, bodies: &BodyWriter<'_>) -> PageHead {
        let card = &character.card;
        if character.exposure == Exposure::Restricted {
            let chat = routes::PAGES.iter().find(|p| p.path == "/chat").map(|p| self.page(p));
            return chat.unwrap_or_else(|| self.not_found());
        }
        let (kind_key, kind_name, home) = match card.gender {
            Gender::Girls => ("landing.aiGirlfriend", "AI Girlfriend", "/"),
            Gender::Guys => ("landing.aiBoyfriend", "AI Boyfriend", "/ai-boyfriend"),
        };
        let kind = self.t(kind_key).unwrap_or(kind_name);
        let title = format!("{} – {kind} – {APP_NAME}", card.character_name);
        let keywords = std::iter::once(card.character_name.as_str())
            .chain(std::iter::once(kind))
            .chain(character.tags.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(", ");
        // The introduction as the chat shows it: an imported card's `{{char}}` filled in.
        let description = bodies.filled(&card.introduction, &card.character_name);
        let mut head = self.base_head(title, description, keywords, false);
        if home != "/" {
            head.breadcrumbs.push((kind.to_owned(), self.localize(home)));
        }
        head.breadcrumbs.push((card.character_name.clone(), self.localize(self.located.path)));
        head.image = Some(card.character_photo.clone());
        head
    }

    /// `/blogs/{key}`: the post's own texts and cover, and an Article.
    fn post(&self, post: &BlogPost) -> PageHead {
        let title = format!("{} – {APP_NAME}", post.title);
        let blog = routes::PAGES.iter().find(|p| p.path == "/blog").map(|p| self.label(p)).unwrap_or_default();
        let mut head = self.base_head(title, post.description.clone(), String::new(), false);
        head.breadcrumbs.push((blog, self.localize("/blog")));
        head.breadcrumbs.push((post.title.clone(), self.localize(self.located.path)));
        head.image = Some(post.cover.clone());
        let absolute =
            |path: &str| if path.starts_with('/') { format!("{}{path}", self.base) } else { path.to_owned() };
        head.article = Some(json!({
            "@context": "https://schema.org",
            "@type": "Article",
            "headline": post.title,
            "description": post.description,
            "datePublished": post.date.as_str(),
            "dateModified": post.date.as_str(),
            "inLanguage": "en",
            "image": [absolute(&preview_address(&post.cover))],
            "author": { "@type": "Organization", "name": APP_NAME },
            "publisher": { "@type": "Organization", "name": APP_NAME },
            "mainEntityOfPage": absolute(self.full_path),
        }));
        head
    }

    fn not_found(&self) -> PageHead {
        let label = self.label(&NOT_FOUND);
        let title = self.t("seo.notFound.title").map(str::to_owned).unwrap_or_else(|| format!("{label} – {APP_NAME}"));
        let description = self.t("seo.notFound.description").unwrap_or(&self.shell.default_description).to_owned();
        self.base_head(title, description, String::new(), true)
    }
}
