//! What the site publishes and what readers flag: the character catalogue (`catalogue`),
//! the blog (`blog`: posts as the operator writes them; `blog_routes`: reading them), the
//! legal texts operators published (`legal`),
//! reports of what breaks the guidelines (`reports`), the site's configuration for the
//! browser (`site_config`) and the pages crawlers read (`seo`, rendered into the app's
//! shell by `web::spa`). The operator's side of these is `admin::content`.

pub mod blog;
pub mod blog_routes;
pub mod catalogue;
pub mod landing;
pub mod landing_routes;
pub mod legal;
pub mod reports;
pub mod seo;
pub mod site_config;

use actix_web::web;

/// The calls under `/lust/api`, inside the envelope.
pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/user/v1/character/getCharacterList", web::post().to(catalogue::get_character_list))
        .route("/user/v1/character/getCharacterInfo", web::post().to(catalogue::get_character_info))
        .route("/user/v1/config/getWebConfig", web::post().to(site_config::get_web_config))
        .route("/user/v1/blog/getBlogList", web::post().to(blog_routes::get_blog_list))
        .route("/user/v1/blog/getBlogInfo", web::post().to(blog_routes::get_blog_info))
        .route("/user/v1/legal/getLegalTexts", web::post().to(legal::get_legal_texts))
        .route("/user/v1/landing/getLandingCopy", web::post().to(landing_routes::get_landing_copy))
        .route("/user/v1/report/reportContent", web::post().to(reports::report_content));
}
