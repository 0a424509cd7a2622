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
fn write_build(app: &TestApp) {
    let dist = app.data_dir.parent().unwrap().join("dist");
    std::fs::write(
        dist.join("index.html"),
        "<!doctype html>\n<html lang=\"en\">\n  <head>\n    <meta charset=\"UTF-8\" />\n    \
         <title>Amora – AI Girlfriend &amp; AI Boyfriend Chat</title>\n    <meta\n      name=\"description\"\n      \
         content=\"Chat 24/7 with AI girlfriend and boyfriend characters who remember you.\"\n    />\n  </head>\n  \
         <body>\n    <div id=\"root\"></div>\n  </body>\n</html>\n",
    )
    .unwrap();
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
    assert_eq!(meta(&page.html, "property", "og:image"), format!("{BASE}{portrait}"));
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
        format!("{BASE}/blog/covers/how-ai-companions-remember-you.svg")
    );
    let article = page.json_ld.iter().find(|v| v["@type"] == "Article").expect("an Article");
    assert_eq!(article["headline"], "How AI companions remember you (and how you stay in control)");
    assert_eq!(article["datePublished"], "2024-11-04");
    assert_eq!(article["image"][0], format!("{BASE}/blog/covers/how-ai-companions-remember-you.svg"));
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
