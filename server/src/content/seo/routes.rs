//! The routes of spec section 2 as the server knows them: which texts describe each page,
//! whether crawlers should index it, and how a request path maps to one.

use super::LANGUAGES;

/// Where a page's title, description and keywords come from in the locale files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaSource {
    /// `seo.<key>` = { title, description, keywords } (the pages crawlers come for).
    Seo(&'static str),
    /// `<section>.metaTitle` / `<section>.metaDescription` (app screens that set their own).
    Section(&'static str),
}

/// One fixed route of the app.
#[derive(Debug, PartialEq, Eq)]
pub struct PageDef {
    /// The path without a language prefix; a trailing `/*` takes one more segment.
    pub path: &'static str,
    pub meta: MetaSource,
    /// The translation key of the page's short name (breadcrumbs, fallback title).
    pub label: &'static str,
    /// The English name, used only while no locale file has `label` yet.
    pub name: &'static str,
    /// Listed in the sitemap and open to indexing; private screens are `noindex`.
    pub indexed: bool,
}

const fn page(path: &'static str, meta: MetaSource, label: &'static str, name: &'static str, indexed: bool) -> PageDef {
    PageDef { path, meta, label, name, indexed }
}

use MetaSource::{Section, Seo};

/// Every fixed route of spec section 2 (the character and blog pages are resolved from the
/// store). The route page keys match those of the frontend's `usePageMeta` calls.
pub static PAGES: &[PageDef] = &[
    page("/", Seo("homeGirls"), "landing.aiGirlfriend", "AI Girlfriend", true),
    page("/ai-boyfriend", Seo("homeGuys"), "landing.aiBoyfriend", "AI Boyfriend", true),
    page("/chat", Section("chat"), "nav.chat", "Chat", false),
    page("/gallery", Seo("gallery"), "nav.gallery", "Gallery", true),
    page("/generateimage", Seo("generateImage"), "nav.generateImage", "Generate Image", true),
    page("/createcharacter", Seo("createCharacter"), "nav.createCharacter", "Create Character", true),
    page("/myai", Seo("myAi"), "nav.myAi", "My AI", false),
    page("/pricing", Seo("pricing"), "nav.upgrade", "Pricing", true),
    page("/buytokens", Seo("buyTokens"), "nav.buyTokens", "Buy Tokens", false),
    page("/setting", Section("settings"), "settings.title", "Settings", false),
    page("/subscriptionmanage", Seo("subscriptionManage"), "nav.upgrade", "Subscription", false),
    page("/orders", Seo("orders"), "nav.orders", "Order history", false),
    page("/pay/*", Seo("pay"), "nav.upgrade", "Payment", false),
    page("/zpay/*", Seo("pay"), "nav.upgrade", "Payment", false),
    page("/blog", Section("blog"), "nav.blog", "Blog", true),
    page("/privacy-policy", Seo("privacyPolicy"), "nav.privacyPolicy", "Privacy Policy", true),
    page("/terms-of-service", Seo("termsOfService"), "legal.termsOfService", "Terms of Service", true),
    page("/legal-information", Seo("termsOfUse"), "nav.termsOfUse", "Terms of Use", true),
    page("/communityguidelines", Seo("communityGuidelines"), "legal.communityGuidelines", "Community Guidelines", true),
    page("/pay-disclaimer", Seo("payDisclaimer"), "legal.payDisclaimer", "Pay Disclaimer", true),
    page("/refund-policy", Seo("refundPolicy"), "legal.refundPolicy", "Refund Policy", true),
    page("/complaint-policy", Seo("complaintPolicy"), "legal.complaintPolicy", "Complaint Policy", true),
    page("/2257", Seo("compliance2257"), "footer.compliance", "18 U.S.C. 2257 Compliance Statement", true),
    page("/membership-policy", Seo("membershipPolicy"), "legal.membershipPolicy", "Membership Policy", true),
    page("/ai-sex", Seo("aiSex"), "landing.aiSex", "AI Sex", true),
    page("/ai-porn", Seo("aiPorn"), "landing.aiPorn", "AI Porn", true),
    page("/ai-nude", Seo("aiNude"), "landing.aiNude", "AI Nude", true),
    page("/spicy-ai", Seo("spicyAi"), "landing.spicyAi", "Spicy AI", true),
    page("/hentai-ai", Seo("hentaiAi"), "landing.hentaiAi", "Hentai AI", true),
    page("/ai-gay", Seo("aiGay"), "landing.aiGay", "AI Gay", true),
    page("/ai-incest", Seo("aiIncest"), "landing.aiIncest", "AI Incest", true),
    page("/ai-futa", Seo("aiFuta"), "landing.aiFuta", "AI Futa", true),
    // The embedded copies of two policies: the same text, so the web pages stay canonical.
    page("/privacyPolicyForApp", Seo("privacyPolicy"), "nav.privacyPolicy", "Privacy Policy", false),
    page(
        "/communityGuidelinesForApp",
        Seo("communityGuidelines"),
        "legal.communityGuidelines",
        "Community Guidelines",
        false,
    ),
    page("/checkEmailTip", Seo("checkEmailTip"), "login.checkEmailTitle", "Check your email", false),
    page("/paymentResults/*", Seo("paymentResults"), "nav.upgrade", "Payment result", false),
    page("/creategf", Seo("createGf"), "nav.createCharacter", "Create your AI girlfriend", true),
    page("/your-ai-girlfriend", Seo("yourAiGirlfriend"), "landing.aiGirlfriend", "Your AI Girlfriend", true),
];

/// The Not Found page (also what `/404` shows).
pub static NOT_FOUND: PageDef = page("/404", Seo("notFound"), "notFound.title", "Not Found", false);

/// What a request path names.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    Page(&'static PageDef),
    /// `/chat/{characterId}`: a character's page, looked up in the store.
    Character(String),
    /// `/blogs/{blogKey}`: an article, looked up in the store.
    BlogPost(String),
    NotFound,
}

/// A request path split into its language and the route path the app matches.
#[derive(Debug, PartialEq, Eq)]
pub struct Located<'a> {
    /// The language named by the first segment, if any (`/de/...`).
    pub prefix: Option<&'static str>,
    /// The path without the language segment; `/` at least.
    pub path: &'a str,
}

/// Splits `/de/ai-boyfriend` into `de` and `/ai-boyfriend`, as the client's `stripLanguage`.
pub fn locate(full: &str) -> Located<'_> {
    let first = full.trim_start_matches('/').split('/').next().unwrap_or_default();
    match LANGUAGES.iter().find(|lng| **lng == first) {
        Some(lng) => {
            let rest = &full[1 + lng.len()..];
            Located { prefix: Some(*lng), path: if rest.is_empty() { "/" } else { rest } }
        }
        None => Located { prefix: None, path: if full.is_empty() { "/" } else { full } },
    }
}

/// The route a language-free path names. A trailing slash is not a different page, except
/// for `/` itself.
pub fn resolve(path: &str) -> Route {
    let path = if path.len() > 1 { path.trim_end_matches('/') } else { path };
    if path == NOT_FOUND.path {
        return Route::Page(&NOT_FOUND);
    }
    if let Some(id) = single_segment(path, "/chat/") {
        return Route::Character(id.to_owned());
    }
    if let Some(key) = single_segment(path, "/blogs/") {
        return Route::BlogPost(key.to_owned());
    }
    for page in PAGES {
        let matched = match page.path.strip_suffix("/*") {
            Some(prefix) => single_segment(path, &format!("{prefix}/")).is_some(),
            None => page.path == path,
        };
        if matched {
            return Route::Page(page);
        }
    }
    Route::NotFound
}

/// The one non-empty segment after `prefix`, if that is all the path holds.
fn single_segment<'a>(path: &'a str, prefix: &str) -> Option<&'a str> {
    path.strip_prefix(prefix).filter(|rest| !rest.is_empty() && !rest.contains('/'))
}

/// `path` under `lng`'s prefix, English unprefixed (the client's `withLanguage` for the
/// hreflang alternates and the sitemap).
pub fn localized(path: &str, lng: &str) -> String {
    match (lng, path) {
        ("en", _) => path.to_owned(),
        (_, "/") => format!("/{lng}/"),
        _ => format!("/{lng}{path}"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_language_prefix_is_split_off_like_the_client_does() {
        assert_eq!(locate("/de/ai-boyfriend"), Located { prefix: Some("de"), path: "/ai-boyfriend" });
        assert_eq!(locate("/de"), Located { prefix: Some("de"), path: "/" });
        assert_eq!(locate("/de/"), Located { prefix: Some("de"), path: "/" });
        assert_eq!(locate("/design"), Located { prefix: None, path: "/design" });
        assert_eq!(locate("/"), Located { prefix: None, path: "/" });
    }

    #[test]
    fn routes_resolve_with_and_without_parameters() {
        assert!(matches!(resolve("/"), Route::Page(p) if p.path == "/"));
        assert!(matches!(resolve("/ai-futa/"), Route::Page(p) if p.path == "/ai-futa"));
        assert!(matches!(resolve("/pay/123"), Route::Page(p) if p.path == "/pay/*"));
        assert_eq!(resolve("/pay/"), Route::NotFound);
        assert_eq!(resolve("/pay/1/2"), Route::NotFound);
        assert_eq!(resolve("/chat/gf-001"), Route::Character("gf-001".into()));
        assert_eq!(resolve("/blogs/hello"), Route::BlogPost("hello".into()));
        assert!(matches!(resolve("/404"), Route::Page(p) if p.path == "/404"));
        assert_eq!(resolve("/no-such-page"), Route::NotFound);
    }

    #[test]
    fn alternates_keep_english_unprefixed() {
        assert_eq!(localized("/", "en"), "/");
        assert_eq!(localized("/", "de"), "/de/");
        assert_eq!(localized("/blog", "ja"), "/ja/blog");
    }
}
