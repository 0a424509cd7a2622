//! Pages crawlers can read: every route of spec section 2 fetched with plain HTTP (no
//! JavaScript) carries its own title, description, canonical link and JSON-LD; unknown
//! paths answer 404; the sitemap lists every page and parses as XML.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, spawn_app_with};

/// What `http.public_base_url` is in the tests (config/default.toml).
const BASE: &str = "http://localhost:8080";

/// Every route of spec section 2's route table, parameters filled in.
const SPEC_ROUTES: &[&str] = &[
    "/",
    "/ai-boyfriend",
    "/chat",
    "/chat/gf-001",
    "/gallery",
    "/generateimage",
    "/createcharacter",
    "/myai",
    "/pricing",
    "/buytokens",
    "/setting",
    "/subscriptionmanage",
    "/pay/month_1",
    "/zpay/month_1",
    "/blog",
    "/blogs/what-is-an-ai-companion",
    "/privacy-policy",
    "/terms-of-service",
    "/legal-information",
    "/communityguidelines",
    "/pay-disclaimer",
    "/refund-policy",
    "/complaint-policy",
    "/2257",
    "/membership-policy",
    "/ai-sex",
    "/ai-porn",
    "/ai-nude",
    "/spicy-ai",
    "/hentai-ai",
    "/ai-gay",
    "/ai-incest",
    "/ai-futa",
    "/privacyPolicyForApp",
    "/communityGuidelinesForApp",
    "/checkEmailTip",
    "/paymentResults/r-123",
    "/404",
    "/creategf",
    "/your-ai-girlfriend",
];

/// The page keys the frontend gives its legal, landing and blog pages (`seo.<key>`).
const NEW_PAGE_KEYS: &[&str] = &[
    "termsOfService",
    "termsOfUse",
    "privacyPolicy",
    "communityGuidelines",
    "payDisclaimer",
    "refundPolicy",
    "complaintPolicy",
    "compliance2257",
    "membershipPolicy",
    "aiSex",
    "aiPorn",
    "aiNude",
    "spicyAi",
    "hentaiAi",
    "aiGay",
    "aiIncest",
    "aiFuta",
    "blog",
];

/// A build like Vite's: the real index.html shape and the real translations, with English
/// `seo.<key>` texts added for the pages whose texts the frontend has not written yet.
pub(crate) fn write_build(app: &TestApp) {
    let dist = app.data_dir.parent().unwrap().join("dist");
    std::fs::write(
        dist.join("index.html"),
        "<!doctype html>\n<html lang=\"en\">\n  <head>\n    <meta charset=\"UTF-8\" />\n    \
         <title>Amora – AI Girlfriend &amp; AI Boyfriend Chat</title>\n    <meta\n      name=\"description\"\n      \
         content=\"Chat 24/7 with AI girlfriend and boyfriend characters who remember you.\"\n    />\n  </head>\n  \
         <body>\n    <div id=\"root\"></div>\n  </body>\n</html>\n",
    )
    .unwrap();
    // The pictures Vite copies from public/: the logo and the blog's covers.
    let public = Path::new(env!("CARGO_MANIFEST_DIR")).join("../frontend/public");
    std::fs::copy(public.join("logo.svg"), dist.join("logo.svg")).unwrap();
    std::fs::create_dir_all(dist.join("blog/covers")).unwrap();
    for entry in std::fs::read_dir(public.join("blog/covers")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dist.join("blog/covers").join(entry.file_name())).unwrap();
    }
    let locales = Path::new(env!("CARGO_MANIFEST_DIR")).join("../frontend/public/locales");
    for entry in std::fs::read_dir(&locales).unwrap() {
        let entry = entry.unwrap();
        let lng = entry.file_name().to_string_lossy().into_owned();
        let mut texts: Value =
            serde_json::from_str(&std::fs::read_to_string(entry.path().join("translation.json")).unwrap()).unwrap();
        if lng == "en" {
            for key in NEW_PAGE_KEYS {
                if texts["seo"].get(key).is_none() {
                    texts["seo"][key] = json!({
                        "title": format!("{key} page – Amora"),
                        "description": format!("What the {key} page of Amora says, in one or two sentences for search results."),
                        "keywords": format!("{key}, Amora"),
                    });
                }
            }
        }
        if lng == "de" {
            // One page without its German texts, to show the fallback to English.
            texts["seo"].as_object_mut().unwrap().remove("aiSex");
        }
        std::fs::create_dir_all(dist.join("locales").join(&lng)).unwrap();
        std::fs::write(dist.join("locales").join(&lng).join("translation.json"), texts.to_string()).unwrap();
        // The other namespaces as they are (the legal texts, the landing pages' copy).
        for namespace in ["legal", "topics"] {
            let file = format!("{namespace}.json");
            std::fs::copy(entry.path().join(&file), dist.join("locales").join(&lng).join(&file)).unwrap();
        }
    }
}

fn english() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../frontend/public/locales/en/translation.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// What a crawler reads in a page's head.
#[derive(Debug)]
struct Head {
    status: u16,
    html: String,
    title: String,
    description: String,
    canonical: String,
    robots: String,
    json_ld: Vec<Value>,
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let length = text[from..].find(end)?;
    Some(&text[from..from + length])
}

fn meta(html: &str, attribute: &str, key: &str) -> String {
    let tag = between(html, &format!("<meta {attribute}=\"{key}\" content=\""), "\"").unwrap_or_default();
    unescape(tag)
}

async fn head(app: &TestApp, path: &str) -> Head {
    let response = app.get(path).await;
    let status = response.status().as_u16();
    assert_eq!(response.headers()["content-type"], "text/html; charset=utf-8", "{path}");
    let html = response.text().await.unwrap();
    assert_eq!(html.matches("<title>").count(), 1, "{path}: one title");
    assert_eq!(html.matches("name=\"description\"").count(), 1, "{path}: one description");
    let json_ld = html
        .split("<script type=\"application/ld+json\"")
        .skip(1)
        .map(|part| {
            let json = between(part, ">", "</script>").unwrap();
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{path}: JSON-LD {e}: {json}"))
        })
        .collect();
    Head {
        status,
        title: unescape(between(&html, "<title>", "</title>").unwrap_or_default()),
        description: meta(&html, "name", "description"),
        canonical: unescape(between(&html, "<link rel=\"canonical\" href=\"", "\"").unwrap_or_default()),
        robots: meta(&html, "name", "robots"),
        json_ld,
        html,
    }
}

#[actix_rt::test]
async fn every_route_of_the_spec_has_its_own_title_description_canonical_and_json_ld() {
    let app = spawn_app().await;
    write_build(&app);
    let mut titles = HashSet::new();
    for &route in SPEC_ROUTES {
        let page = head(&app, route).await;
        let expected_status = if route == "/404" { 404 } else { 200 };
        assert_eq!(page.status, expected_status, "{route}");
        // The app-embedded policies and the second payment page are the same documents.
        let alias = ["/privacyPolicyForApp", "/communityGuidelinesForApp", "/zpay/month_1"].contains(&route);
        assert!(alias || titles.insert(page.title.clone()), "{route} shares its title {:?}", page.title);
        assert!(!page.description.is_empty() && page.description.chars().count() <= 160, "{route}: {page:?}");
        assert_eq!(page.canonical, format!("{BASE}{route}"), "{route}");
        assert!(page.html.starts_with("<!doctype html>\n<html lang=\"en\">"), "{route}");
        let types: Vec<&str> = page.json_ld.iter().map(|v| v["@type"].as_str().unwrap()).collect();
        assert!(types.starts_with(&["Organization", "BreadcrumbList"]), "{route}: {types:?}");
        let crumbs = page.json_ld[1]["itemListElement"].as_array().unwrap();
        assert_eq!(crumbs[0]["item"], format!("{BASE}/"), "{route}: breadcrumbs start at home");
        assert_eq!(meta(&page.html, "property", "og:title"), page.title, "{route}");
        assert_eq!(meta(&page.html, "name", "twitter:title"), page.title, "{route}");
        assert_eq!(meta(&page.html, "property", "og:url"), page.canonical, "{route}");
    }

    // Texts come from the translations, as the client's usePageMeta takes them.
    let en = english();
    let home = head(&app, "/").await;
    assert_eq!(home.title, en["seo"]["homeGirls"]["title"].as_str().unwrap());
    assert_eq!(home.description, en["seo"]["homeGirls"]["description"].as_str().unwrap());
    assert_eq!(meta(&home.html, "name", "keywords"), en["seo"]["homeGirls"]["keywords"].as_str().unwrap());
    assert_eq!(home.robots, "index,follow");
    assert_eq!(head(&app, "/ai-sex").await.title, en["seo"]["aiSex"]["title"].as_str().unwrap());
    assert_eq!(head(&app, "/chat").await.title, en["chat"]["metaTitle"].as_str().unwrap());
    assert_eq!(head(&app, "/setting").await.robots, "noindex", "private screens are not indexed");
    assert_eq!(head(&app, "/404").await.title, en["seo"]["notFound"]["title"].as_str().unwrap());
}

#[actix_rt::test]
async fn a_language_prefix_gives_that_language_and_every_page_lists_its_alternates() {
    let app = spawn_app().await;
    write_build(&app);
    let de: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../frontend/public/locales/de/translation.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let page = head(&app, "/de/ai-boyfriend").await;
    assert_eq!(page.status, 200);
    assert!(page.html.contains("<html lang=\"de\">"));
    assert_eq!(page.title, de["seo"]["homeGuys"]["title"].as_str().unwrap());
    assert_eq!(page.canonical, format!("{BASE}/de/ai-boyfriend"));
    for (lng, href) in [
        ("en", "/ai-boyfriend"),
        ("de", "/de/ai-boyfriend"),
        ("ja", "/ja/ai-boyfriend"),
        ("x-default", "/ai-boyfriend"),
    ] {
        let link = format!("<link rel=\"alternate\" hreflang=\"{lng}\" href=\"{BASE}{href}\" />");
        assert!(page.html.contains(&link), "{link}");
    }
    assert_eq!(page.html.matches("rel=\"alternate\"").count(), 11);
    let crumbs = &page.json_ld[1]["itemListElement"];
    assert_eq!(crumbs[0]["item"], format!("{BASE}/de/"));
    assert_eq!(crumbs[0]["name"], de["seo"]["breadcrumbHome"]);
    assert_eq!(crumbs[1]["item"], format!("{BASE}/de/ai-boyfriend"));
    // A page without German texts yet falls back to English, in the German frame.
    let landing = head(&app, "/de/ai-sex").await;
    assert_eq!((landing.status, landing.title.as_str()), (200, english()["seo"]["aiSex"]["title"].as_str().unwrap()));
    assert!(landing.html.contains("<html lang=\"de\">"));
    assert_eq!(head(&app, "/de").await.canonical, format!("{BASE}/de"));
}

#[actix_rt::test]
async fn made_up_paths_answer_404_with_the_not_found_page() {
    let app = spawn_app().await;
    write_build(&app);
    let en = english();
    for path in [
        "/no-such-page",
        "/de/no-such-page",
        "/xx/ai-sex",
        "/chat/no-such-character",
        "/chat/bad%20id",
        "/blogs/no-such-post",
        "/blogs/Bad_Key",
        "/pay/",
        "/ai-sex/extra",
    ] {
        let page = head(&app, path).await;
        assert_eq!(page.status, 404, "{path}");
        assert_eq!(page.robots, "noindex", "{path}");
        assert!(page.html.contains("<div id=\"root\"></div>"), "{path}: the app renders Not Found");
        if !path.starts_with("/de/") {
            assert_eq!(page.title, en["seo"]["notFound"]["title"].as_str().unwrap(), "{path}");
        }
    }
}

#[actix_rt::test]
async fn a_character_page_has_the_characters_name_introduction_and_portrait() {
    let app = spawn_app().await;
    write_build(&app);
    let card = app.character_list(1, 1, 1).await.data[0].clone();
    let id = card["characterId"].as_str().unwrap();
    let page = head(&app, &format!("/chat/{id}")).await;
    let name = card["characterName"].as_str().unwrap();
    assert!(page.title.starts_with(&format!("{name} – ")), "{}", page.title);
    let introduction = card["introduction"].as_str().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = page.description.trim_end_matches('…');
    assert!(introduction.starts_with(shown), "{shown:?} vs {introduction:?}");
    assert_eq!(page.robots, "index,follow");
    let portrait = card["characterPhoto"].as_str().unwrap();
    assert_eq!(meta(&page.html, "property", "og:image"), format!("{BASE}{portrait}?w=1080&raster=1"));
    let crumbs = page.json_ld[1]["itemListElement"].as_array().unwrap();
    assert_eq!(crumbs.len(), 3, "home, AI Boyfriend, the character");
    assert_eq!(crumbs[2]["name"], name);
}

#[actix_rt::test]
async fn a_blog_post_page_has_its_own_texts_cover_and_article_data() {
    let app = spawn_app().await;
    write_build(&app);
    let page = head(&app, "/blogs/how-ai-companions-remember-you").await;
    assert_eq!(page.status, 200);
    assert_eq!(page.title, "How AI companions remember you (and how you stay in control) – Amora");
    assert!(page.description.starts_with("Context windows, saved memories"));
    assert_eq!(meta(&page.html, "property", "og:type"), "article");
    assert_eq!(
        meta(&page.html, "property", "og:image"),
        format!("{BASE}/blog/covers/how-ai-companions-remember-you.jpg")
    );
    let article = page.json_ld.iter().find(|v| v["@type"] == "Article").expect("an Article");
    assert_eq!(article["headline"], "How AI companions remember you (and how you stay in control)");
    assert_eq!(article["datePublished"], "2024-11-04");
    assert_eq!(article["image"][0], format!("{BASE}/blog/covers/how-ai-companions-remember-you.jpg"));
    assert_eq!(article["mainEntityOfPage"], format!("{BASE}/blogs/how-ai-companions-remember-you"));
    let crumbs = page.json_ld[1]["itemListElement"].as_array().unwrap();
    assert_eq!(crumbs[1]["item"], format!("{BASE}/blog"));
}

#[actix_rt::test]
async fn what_the_operator_writes_is_escaped_in_the_head() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", "operator-token")]).await;
    write_build(&app);
    let file = "---\nkey: tricky\ntitle: \"</title><script>alert(1)</script>\"\ndescription: A \"quoted\" <b>bold</b> & more\ndate: 2024-12-01\ncover: /blog/covers/x.svg\n---\nBody.";
    let published = app
        .client
        .post(app.url("/lust/admin/blog/publish"))
        .bearer_auth("operator-token")
        .json(&json!({ "file": file }))
        .send()
        .await
        .unwrap();
    assert_eq!(published.status(), 200);
    let page = head(&app, "/blogs/tricky").await;
    assert!(!page.html.contains("<script>alert"), "{}", page.html);
    assert!(!page.html.contains("</title><script>"), "{}", page.html);
    assert_eq!(page.title, "</title><script>alert(1)</script> – Amora");
    assert_eq!(page.description, "A \"quoted\" <b>bold</b> & more");
    let article = page.json_ld.iter().find(|v| v["@type"] == "Article").unwrap();
    assert_eq!(article["headline"], "</title><script>alert(1)</script>");
}

#[actix_rt::test]
async fn the_sitemap_lists_every_page_in_every_language_and_parses_as_xml() {
    let app = spawn_app().await;
    write_build(&app);
    let response = app.get("/sitemap.xml").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/xml; charset=utf-8");
    let xml = response.text().await.unwrap();
    let document = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "urlset");
    assert_eq!(root.tag_name().namespace(), Some("http://www.sitemaps.org/schemas/sitemap/0.9"));
    let locs: HashSet<String> =
        root.descendants().filter(|n| n.tag_name().name() == "loc").map(|n| n.text().unwrap().to_owned()).collect();

    let languages = ["en", "de", "es", "fr", "id", "it", "ja", "ko", "pl", "pt"];
    let indexed = [
        "/",
        "/ai-boyfriend",
        "/gallery",
        "/generateimage",
        "/createcharacter",
        "/pricing",
        "/blog",
        "/privacy-policy",
        "/terms-of-service",
        "/legal-information",
        "/communityguidelines",
        "/pay-disclaimer",
        "/refund-policy",
        "/complaint-policy",
        "/2257",
        "/membership-policy",
        "/ai-sex",
        "/ai-porn",
        "/ai-nude",
        "/spicy-ai",
        "/hentai-ai",
        "/ai-gay",
        "/ai-incest",
        "/ai-futa",
        "/creategf",
        "/your-ai-girlfriend",
    ];
    for path in indexed {
        for lng in languages {
            let localized = match (lng, path) {
                ("en", _) => path.to_owned(),
                (_, "/") => format!("/{lng}/"),
                _ => format!("/{lng}{path}"),
            };
            assert!(locs.contains(&format!("{BASE}{localized}")), "{localized} missing");
        }
    }
    for private in ["/setting", "/chat", "/myai", "/checkEmailTip", "/404"] {
        assert!(!locs.contains(&format!("{BASE}{private}")), "{private} listed");
    }
    // Every character a signed-out visitor sees, and no other.
    let mut public = 0;
    for gender in [0, 1] {
        for page_no in 1.. {
            let cards = app.character_list(page_no, 60, gender).await.data;
            let cards = cards.as_array().unwrap();
            for card in cards {
                let loc = format!("{BASE}/chat/{}", card["characterId"].as_str().unwrap());
                assert!(locs.contains(&loc), "{loc} missing");
            }
            public += cards.len();
            if cards.len() < 60 {
                break;
            }
        }
    }
    let characters = locs.iter().filter(|l| l.contains("/chat/")).count();
    assert!(public > 60, "the catalogue spans pages: {public}");
    assert_eq!(characters, public, "restricted characters are not listed");
    let posts = app.post_api("/user/v1/blog/getBlogList", json!({ "pageNo": 1, "pageSize": 60 })).await.data;
    for post in posts["list"].as_array().unwrap() {
        let loc = format!("{BASE}/blogs/{}", post["blogKey"].as_str().unwrap());
        assert!(locs.contains(&loc), "{loc} missing");
    }
    assert_eq!(locs.iter().filter(|l| l.contains("/blogs/")).count(), 5);

    let robots = app.get("/robots.txt").await.text().await.unwrap();
    assert!(robots.contains(&format!("Sitemap: {BASE}/sitemap.xml")), "{robots}");
    assert!(robots.contains("Disallow: /lust/") && robots.contains("Disallow: /*/setting"), "{robots}");
}

/// The headers a HEAD must repeat from the GET (the date and connection ones differ by
/// nature; content-length is checked apart, since a HEAD's body is empty).
const COMPARED_HEADERS: &[&str] =
    &["content-type", "cache-control", "content-security-policy", "x-content-type-options", "last-modified", "etag"];

/// `HEAD path` answers as `GET path` does: the same status and headers, no body.
async fn head_matches_get(app: &TestApp, path: &str) {
    let get = app.get(path).await;
    let head = app.client.head(app.url(path)).send().await.unwrap();
    assert_eq!(head.status(), get.status(), "HEAD {path}");
    for name in COMPARED_HEADERS {
        assert_eq!(head.headers().get(*name), get.headers().get(*name), "HEAD {path}: {name}");
    }
    let get_length = get.headers().get("content-length").cloned();
    let body = get.bytes().await.unwrap();
    if let Some(length) = get_length {
        assert_eq!(length.to_str().unwrap(), body.len().to_string(), "GET {path}");
    }
    assert!(head.bytes().await.unwrap().is_empty(), "HEAD {path} has no body");
}

#[actix_rt::test]
async fn head_answers_as_get_does_on_the_sitemap_robots_media_and_every_page() {
    let app = spawn_app().await;
    write_build(&app);
    let card = app.character_list(1, 1, 0).await.data[0].clone();
    let photo = card["characterPhoto"].as_str().unwrap().to_owned();
    assert!(photo.starts_with("/media/"), "{photo}");
    for path in
        ["/sitemap.xml", "/robots.txt", photo.as_str(), "/media/no-such-picture", "/locales/en/translation.json"]
    {
        head_matches_get(&app, path).await;
    }
    assert_eq!(app.client.head(app.url("/sitemap.xml")).send().await.unwrap().status(), 200);
    assert_eq!(app.client.head(app.url(&photo)).send().await.unwrap().status(), 200);
    for route in SPEC_ROUTES {
        head_matches_get(&app, route).await;
        head_matches_get(&app, &format!("/de{route}")).await;
    }
}

/// Fetches the picture a page's `og:image` names and decodes it as JPEG; `twitter:image` is
/// the same picture.
async fn preview_of(app: &TestApp, page: &str) -> (String, image::RgbImage) {
    let html = app.get(page).await.text().await.unwrap();
    let og = meta(&html, "property", "og:image");
    assert_eq!(meta(&html, "name", "twitter:image"), og, "{page}");
    let path = og.strip_prefix(BASE).unwrap_or_else(|| panic!("{page}: {og} is on this site")).to_owned();
    let response = app.get(&path).await;
    assert_eq!(response.status(), 200, "{page}: {path}");
    assert_eq!(response.headers()["content-type"], "image/jpeg", "{page}: {path}");
    let bytes = response.bytes().await.unwrap();
    let picture = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
        .unwrap_or_else(|e| panic!("{page}: {path} is no JPEG: {e}"));
    (path, picture.to_rgb8())
}

#[actix_rt::test]
async fn og_image_is_a_raster_picture_for_characters_posts_and_every_other_page() {
    let app = spawn_app().await;
    write_build(&app);
    // A character's portrait is SVG; its preview is drawn to JPEG and kept beside it.
    let card = app.character_list(1, 1, 0).await.data[0].clone();
    let id = card["characterId"].as_str().unwrap();
    let photo = card["characterPhoto"].as_str().unwrap();
    let media_id = photo.strip_prefix("/media/").unwrap();
    assert_eq!(app.get(photo).await.headers()["content-type"], "image/svg+xml");
    assert!(app.store.media.get_variant(media_id, 1080).await.unwrap().is_none());
    let (path, portrait) = preview_of(&app, &format!("/de/chat/{id}")).await;
    assert_eq!(path, format!("{photo}?w=1080&raster=1"));
    assert_eq!(portrait.dimensions(), (1080, 1440), "the 600x800 portrait drawn 1080 wide");
    let colours: HashSet<[u8; 3]> = portrait.pixels().step_by(997).map(|p| p.0.map(|c| c / 32)).collect();
    assert!(colours.len() > 4, "a drawing, not a blank: {colours:?}");
    let kept = app.store.media.get_variant(media_id, 1080).await.unwrap().expect("the drawing is kept");
    assert_eq!(kept.content_type, "image/jpeg");
    assert_eq!(app.get(&path).await.bytes().await.unwrap().to_vec(), kept.bytes, "served from what is kept");
    assert_eq!(app.get(&format!("{photo}?w=320&raster=1")).await.headers()["content-type"], "image/jpeg");
    assert_eq!(app.get(&format!("{photo}?raster=yes")).await.status(), 404);
    assert_eq!(app.get(&format!("{photo}?w=999&raster=1")).await.status(), 404);
    // Without `raster` the portrait stays the SVG document it is.
    assert_eq!(app.get(&format!("{photo}?w=1080")).await.headers()["content-type"], "image/svg+xml");

    // A post's SVG cover has a JPEG twin; so has the site's logo, every other page's picture.
    let (path, cover) = preview_of(&app, "/blogs/how-ai-companions-remember-you").await;
    assert_eq!(path, "/blog/covers/how-ai-companions-remember-you.jpg");
    assert_eq!(cover.dimensions(), (1080, 567), "1200x630 drawn 1080 wide");
    for page in ["/", "/de/privacy-policy", "/blog", "/ai-sex"] {
        let (path, logo) = preview_of(&app, page).await;
        assert_eq!(path, "/logo.jpg", "{page}");
        assert_eq!(logo.dimensions(), (1080, 1080), "{page}");
    }
    // Only the build's own SVGs have twins.
    assert_eq!(app.get("/blog/covers/no-such-cover.jpg").await.status(), 404);
    assert_eq!(app.get("/locales/en/translation.jpg").await.status(), 404);
}

/// A locale file of the frontend, as the build ships it.
fn locale(lng: &str, namespace: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../frontend/public/locales/{lng}/{namespace}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// What a browser without JavaScript shows of a page: the app's root element, where the
/// server writes the page's content.
fn root_of(html: &str) -> &str {
    let start = html.find("<div id=\"root\">").unwrap_or_else(|| panic!("no root element: {html}"));
    let end = html[start..]
        .find("</div><script type=\"application/json\" id=\"ssr-data\">")
        .unwrap_or_else(|| html[start..].rfind("</div>").unwrap_or(html.len() - start));
    &html[start..start + end]
}

/// The data the server rendered the page from, as the app reads it.
fn ssr_data(html: &str) -> Value {
    let json = between(html, "<script type=\"application/json\" id=\"ssr-data\">", "</script>").expect("#ssr-data");
    serde_json::from_str(json).unwrap()
}

fn escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

async fn page_html(app: &TestApp, path: &str) -> String {
    let response = app.get(path).await;
    assert_eq!(response.status(), 200, "{path}");
    response.text().await.unwrap()
}

#[actix_rt::test]
async fn plain_http_pages_carry_their_own_words_and_plain_links_in_two_languages() {
    let app = spawn_app().await;
    write_build(&app);
    for (lng, prefix) in [("en", ""), ("de", "/de")] {
        let texts = locale(lng, "translation");
        let text = |key: &str| {
            key.split('.').fold(&texts, |node, part| &node[part]).as_str().unwrap_or_else(|| panic!("{key}")).to_owned()
        };

        // The home page: the heading and the first page of characters, each a plain link.
        let html = page_html(&app, &format!("{prefix}/")).await;
        let root = root_of(&html);
        assert!(root.contains(&escaped(&text("home.headingGirls"))), "{lng}: {root}");
        assert!(root.contains(&escaped(&text("faq.girls.nsfw.title"))), "{lng}: the FAQ");
        let (first_page, _) = app
            .post_api_with(
                None,
                &[("language", lng)],
                "/user/v1/character/getCharacterList",
                json!({ "pageNo": 1, "pageSize": 30, "gender": 0 }),
            )
            .await;
        let cards = first_page.data.as_array().unwrap().clone();
        assert_eq!(cards.len(), 30);
        for card in &cards {
            let id = card["characterId"].as_str().unwrap();
            assert!(root.contains(&format!("<a href=\"{prefix}/chat/{id}\">")), "{lng}: a link to {id}");
            assert!(root.contains(&escaped(card["characterName"].as_str().unwrap())), "{lng}: {id}'s name");
            let age = text("home.age_other").replace("{{count}}", &card["characterAge"].to_string());
            assert!(root.contains(&escaped(&age)), "{lng}: {age}");
            let intro = card["introduction"].as_str().unwrap();
            if !intro.contains('{') && !intro.contains('<') {
                assert!(root.contains(&escaped(intro)), "{lng}: {id}'s introduction");
            }
        }
        assert_eq!(root.matches("<a href=\"").count(), 30, "{lng}: one link a character, nothing more");
        let data = ssr_data(&html);
        assert_eq!((data["kind"].as_str(), data["path"].as_str()), (Some("catalogue"), Some(&*format!("{prefix}/"))));
        assert_eq!(data["data"]["list"], Value::Array(cards.clone()), "{lng}: the data is the API's first page");
        // With a session the app asks for the lists itself (a member may see more); the
        // page's text is the same.
        let with_session = app
            .client
            .get(app.url(&format!("{prefix}/")))
            .header("cookie", "amora_session=someone")
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(!with_session.contains("id=\"ssr-data\""), "{lng}");
        assert_eq!(root_of(&with_session), root, "{lng}");

        // A character's page: its description and greeting, in the page's language.
        let id = cards[0]["characterId"].as_str().unwrap();
        let (info, _) = app
            .post_api_with(
                None,
                &[("language", lng)],
                "/user/v1/character/getCharacterInfo",
                json!({ "characterId": id }),
            )
            .await;
        let html = page_html(&app, &format!("{prefix}/chat/{id}")).await;
        let root = root_of(&html);
        assert!(root.contains(&format!("<h1>{}</h1>", escaped(info.data["characterName"].as_str().unwrap()))));
        // As the chat shows them: the visitor is "You" in the page's language.
        let filled = |field: &str| {
            info.data[field]
                .as_str()
                .unwrap()
                .replace("{{user}}", &text("chat.you"))
                .replace("{{char}}", info.data["characterName"].as_str().unwrap())
        };
        assert!(root.contains(&escaped(&filled("introduction"))), "{lng}: {root}");
        assert!(root.contains(&escaped(&filled("greeting"))), "{lng}: {root}");
        assert_eq!(ssr_data(&html)["data"], info.data, "{lng}: the character as getCharacterInfo answers");

        // Each legal text, its links to the others plain links.
        let legal = locale(lng, "legal");
        for (path, key) in [
            ("/privacy-policy", "privacyPolicy"),
            ("/terms-of-service", "termsOfService"),
            ("/legal-information", "termsOfUse"),
            ("/communityguidelines", "communityGuidelines"),
            ("/pay-disclaimer", "payDisclaimer"),
            ("/refund-policy", "refundPolicy"),
            ("/complaint-policy", "complaintPolicy"),
            ("/2257", "compliance2257"),
            ("/membership-policy", "membershipPolicy"),
        ] {
            let html = page_html(&app, &format!("{prefix}{path}")).await;
            let root = root_of(&html);
            let doc = &legal["docs"][key];
            assert!(root.contains(&format!("<h1>{}</h1>", escaped(doc["title"].as_str().unwrap()))), "{lng} {path}");
            for section in doc["sections"].as_array().unwrap() {
                let heading = section["heading"].as_str().unwrap().replace("{{operator}}", "Amora Ltd");
                assert!(root.contains(&escaped(&heading)), "{lng} {path}: {heading}");
                let paragraph = section["paragraphs"][0].as_str().unwrap();
                let plain = paragraph.split('<').next().unwrap().replace("{{operator}}", "Amora Ltd");
                assert!(root.contains(&escaped(&plain)), "{lng} {path}: {plain}");
            }
        }
        let privacy = page_html(&app, &format!("{prefix}/privacy-policy")).await;
        assert!(root_of(&privacy).contains(&format!("<a href=\"{prefix}/legal-information\">")), "{lng}");

        // The blog list: every post a plain link; a post: its own text.
        let html = page_html(&app, &format!("{prefix}/blog")).await;
        let root = root_of(&html);
        assert!(root.contains(&escaped(&text("blog.heading"))), "{lng}");
        let posts = app.post_api("/user/v1/blog/getBlogList", json!({ "pageNo": 1, "pageSize": 9 })).await.data;
        for post in posts["list"].as_array().unwrap() {
            let key = post["blogKey"].as_str().unwrap();
            assert!(root.contains(&format!("<a href=\"{prefix}/blogs/{key}\">")), "{lng}: {key}");
            assert!(root.contains(&escaped(post["title"].as_str().unwrap())), "{lng}: {key}");
        }
        assert_eq!(ssr_data(&html)["data"], posts, "{lng}: the data is getBlogList's first page");
        let html = page_html(&app, &format!("{prefix}/blogs/how-ai-companions-remember-you")).await;
        let root = root_of(&html);
        let article = app
            .post_api("/user/v1/blog/getBlogInfo", json!({ "blogKey": "how-ai-companions-remember-you" }))
            .await
            .data;
        assert!(root.contains(article["html"].as_str().unwrap()), "{lng}: the post's body");
        assert!(root.contains("<h1>How AI companions remember you (and how you stay in control)</h1>"), "{lng}");
        assert_eq!(ssr_data(&html)["data"], article);

        // Each landing page: its copy, FAQ and character grid.
        let topics = locale(lng, "topics");
        for (path, key) in [
            ("/ai-sex", "aiSex"),
            ("/ai-porn", "aiPorn"),
            ("/ai-nude", "aiNude"),
            ("/spicy-ai", "spicyAi"),
            ("/hentai-ai", "hentaiAi"),
            ("/ai-gay", "aiGay"),
            ("/ai-incest", "aiIncest"),
            ("/ai-futa", "aiFuta"),
        ] {
            let html = page_html(&app, &format!("{prefix}{path}")).await;
            let root = root_of(&html);
            let copy = &topics[key];
            assert!(root.contains(&escaped(copy["heading"].as_str().unwrap())), "{lng} {path}");
            assert!(root.contains(&escaped(copy["intro"].as_str().unwrap())), "{lng} {path}");
            for item in copy["faq"].as_array().unwrap() {
                assert!(root.contains(&escaped(item["q"].as_str().unwrap())), "{lng} {path}");
                assert!(root.contains(&escaped(item["a"].as_str().unwrap())), "{lng} {path}");
            }
            let grid = ssr_data(&html)["data"]["list"].as_array().unwrap().clone();
            assert!(!grid.is_empty() && grid.len() <= 12, "{lng} {path}: {}", grid.len());
            for card in grid {
                let id = card["characterId"].as_str().unwrap();
                assert!(root.contains(&format!("<a href=\"{prefix}/chat/{id}\">")), "{lng} {path}: {id}");
            }
        }
    }
}

#[actix_rt::test]
async fn private_hidden_and_restricted_characters_never_appear_in_the_html() {
    use amora_domain::character::{CharacterId, CharacterStatus, Exposure};
    use amora_domain::gender::Gender;
    use amora_domain::paging::PageRequest;
    use amora_domain::viewer::Viewer;
    use amora_store::CatalogueEntry;

    let app = spawn_app().await;
    write_build(&app);
    let all = app
        .store
        .characters
        .list_cards(Gender::Girls, Viewer::Member, PageRequest::parse(1, 60).unwrap())
        .await
        .unwrap();
    // Restricted: kept from signed-out visitors and crawlers.
    let mut restricted = None;
    for card in &all {
        let character = app.store.characters.get(&card.character_id).await.unwrap().unwrap();
        if character.exposure == Exposure::Restricted {
            restricted = Some(character);
            break;
        }
    }
    let restricted = restricted.expect("the catalogue has restricted girlfriends");
    // Hidden by the operator.
    let hidden = all.iter().find(|c| c.character_id != restricted.card.character_id).unwrap().clone();
    assert!(app.store.characters.set_hidden(&hidden.character_id, true).await.unwrap());
    // Private: a created character nobody but its creator sees.
    let mut private = app.store.characters.get(&hidden.character_id).await.unwrap().unwrap();
    private.card.character_id = CharacterId::parse("private-one").unwrap();
    private.card.character_name = "Privatina Secretsworth".into();
    private.status = CharacterStatus::Private;
    app.store.characters.upsert(vec![CatalogueEntry { character: private, rank: 0 }]).await.unwrap();

    for prefix in ["", "/de"] {
        let home = page_html(&app, &format!("{prefix}/")).await;
        for id in [restricted.card.character_id.as_str(), hidden.character_id.as_str(), "private-one"] {
            assert!(!home.contains(&format!("/chat/{id}\"")), "{prefix}: {id} listed");
        }
        assert!(!home.contains("Privatina"));
        for id in [hidden.character_id.as_str(), "private-one"] {
            let response = app.get(&format!("{prefix}/chat/{id}")).await;
            assert_eq!(response.status(), 404, "{prefix}/chat/{id}");
            let html = response.text().await.unwrap();
            assert!(html.contains("<div id=\"root\"></div>"), "nothing but the app's Not Found");
            assert!(!html.contains("ssr-data") && !html.contains("Privatina"));
            assert!(!html.contains(&escaped(&hidden.character_name)), "{prefix}/chat/{id}");
        }
        let html = page_html(&app, &format!("{prefix}/chat/{}", restricted.card.character_id)).await;
        assert!(html.contains("<div id=\"root\"></div>"), "a restricted character's page says nothing of it");
        assert!(!html.contains(&escaped(&restricted.card.character_name)));
        assert!(!html.contains("ssr-data"));
    }
}

#[actix_rt::test]
async fn an_imported_characters_head_and_body_fill_in_the_macros() {
    use amora_domain::character::CharacterId;
    use amora_store::CatalogueEntry;

    let app = spawn_app().await;
    write_build(&app);
    let card = app.character_list(1, 1, 0).await.data[0].clone();
    let id = CharacterId::parse(card["characterId"].as_str().unwrap()).unwrap();
    let mut character = app.store.characters.get(&id).await.unwrap().unwrap();
    character.card.character_id = CharacterId::parse("imported-one").unwrap();
    character.card.character_name = "Marisol".into();
    character.card.introduction = "{{char}} keeps the lighthouse and waits for <USER>.".into();
    character.greeting = "Welcome, {{user}}. I am {{char}}.".into();
    app.store.characters.upsert(vec![CatalogueEntry { character, rank: 0 }]).await.unwrap();
    let page = head(&app, "/chat/imported-one").await;
    assert_eq!(page.description, "Marisol keeps the lighthouse and waits for You.");
    let root = root_of(&page.html);
    assert!(root.contains("Marisol keeps the lighthouse and waits for You."), "{root}");
    assert!(root.contains("Welcome, You. I am Marisol."), "{root}");
    assert!(!root.contains("{{char}}") && !root.contains("USER"), "{root}");
}
