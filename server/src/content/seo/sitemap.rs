//! `/sitemap.xml`: every indexed route in every language (with its hreflang alternates),
//! every character a signed-out visitor may see, and every blog post. `/robots.txt`
//! points crawlers at it and away from the API and private screens.

use amora_domain::gender::Gender;
use amora_domain::paging::{MAX_PAGE_NO, MAX_PAGE_SIZE, PageRequest};
use amora_domain::viewer::Viewer;
use amora_store::{Store, StoreResult};

use super::head::escape_html;
use super::routes::{PAGES, localized};
use super::{LANGUAGES, Site};

/// Screens no crawler should index (their pages also say `noindex`).
const PRIVATE_PATHS: &[&str] = &[
    "/lust/",
    "/setting",
    "/myai",
    "/buytokens",
    "/subscriptionmanage",
    "/orders",
    "/pay/",
    "/zpay/",
    "/paymentResults/",
    "/checkEmailTip",
    "/privacyPolicyForApp",
    "/communityGuidelinesForApp",
];

pub fn robots_txt(site: &Site) -> String {
    let mut out = String::from("User-agent: *\nAllow: /\n");
    for path in PRIVATE_PATHS {
        out.push_str(&format!("Disallow: {path}\n"));
        if *path != "/lust/" {
            // The same screens under a language prefix (`/de/setting`).
            out.push_str(&format!("Disallow: /*{path}\n"));
        }
    }
    out.push_str(&format!("\nSitemap: {}/sitemap.xml\n", site.base));
    out
}

pub async fn sitemap_xml(site: &Site, store: &Store) -> StoreResult<String> {
    let base = &site.base;
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n",
    );
    for page in PAGES.iter().filter(|page| page.indexed && !page.path.ends_with("/*")) {
        for lng in LANGUAGES {
            out.push_str("  <url>\n");
            out.push_str(&format!("    <loc>{}</loc>\n", escape_html(&format!("{base}{}", localized(page.path, lng)))));
            for alternate in LANGUAGES {
                let href = format!("{base}{}", localized(page.path, alternate));
                out.push_str(&format!(
                    "    <xhtml:link rel=\"alternate\" hreflang=\"{alternate}\" href=\"{}\"/>\n",
                    escape_html(&href)
                ));
            }
            out.push_str("  </url>\n");
        }
    }
    for gender in [Gender::Girls, Gender::Guys] {
        for page_no in 1..=MAX_PAGE_NO {
            let page =
                PageRequest::parse(i64::from(page_no), i64::from(MAX_PAGE_SIZE)).unwrap_or_else(|_| unreachable!());
            let cards = store.characters.list_cards(gender, Viewer::SignedOut, page).await?;
            for card in &cards {
                let loc = format!("{base}/chat/{}", card.character_id);
                out.push_str(&format!("  <url><loc>{}</loc></url>\n", escape_html(&loc)));
            }
            if page.is_last(cards.len()) {
                break;
            }
        }
    }
    // The posts live now: a scheduled one joins when its time comes, an unpublished one leaves.
    let now = crate::auth::now();
    for page_no in 1..=MAX_PAGE_NO {
        let page = PageRequest::parse(i64::from(page_no), i64::from(MAX_PAGE_SIZE)).unwrap_or_else(|_| unreachable!());
        let posts = store.blog.list(page, now).await?;
        for post in &posts {
            let loc = format!("{base}/blogs/{}", post.key);
            out.push_str(&format!(
                "  <url><loc>{}</loc><lastmod>{}</lastmod></url>\n",
                escape_html(&loc),
                post.date.as_str()
            ));
        }
        if page.is_last(posts.len()) {
            break;
        }
    }
    out.push_str("</urlset>\n");
    Ok(out)
}
