//! What is served outside the API: probes, metrics, media, translations and the app.

use crate::helpers::spawn_app;

#[actix_rt::test]
async fn health_and_readiness_answer_200() {
    let app = spawn_app().await;
    assert_eq!(app.get("/healthz").await.status(), 200);
    let ready = app.get("/readyz").await;
    assert_eq!(ready.status(), 200);
    assert_eq!(ready.text().await.unwrap(), "ready");
}

#[actix_rt::test]
async fn metrics_are_exposed_for_prometheus() {
    let app = crate::helpers::spawn_app_with(&[("AMORA_ADMIN__TOKEN", "site-operator-token")]).await;
    app.web_config().await;
    let text = app.metrics("site-operator-token").await;
    assert!(text.contains("amora_http_requests_total"), "{text}");
}

#[actix_rt::test]
async fn a_portrait_is_an_svg_image() {
    let app = spawn_app().await;
    let card = app.character_list(1, 1, 0).await.data[0].clone();
    for url in [card["characterPhoto"].as_str().unwrap(), card["characterImageList"][0].as_str().unwrap()] {
        let response = app.get(url).await;
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.headers()["content-type"], "image/svg+xml");
        let body = response.text().await.unwrap();
        assert!(body.starts_with("<svg") && body.trim_end().ends_with("</svg>"));
    }
    assert_eq!(app.get("/media/no-such-image").await.status(), 404);
    assert_eq!(app.get("/media/..%2F..%2Fetc").await.status(), 404);
}

#[actix_rt::test]
async fn client_routes_get_the_app_and_missing_files_get_404() {
    let app = spawn_app().await;
    for route in ["/", "/ai-boyfriend", "/chat/gf-001", "/de/pricing"] {
        let response = app.get(route).await;
        assert_eq!(response.status(), 200, "{route}");
        let body = response.text().await.unwrap();
        // The build's shell, its own title replaced by the route's.
        assert!(body.starts_with("<!doctype html>") || body.contains("<!doctype html>"), "{body}");
        assert!(!body.contains("Amora test build"), "{body}");
        assert!(body.contains("<link rel=\"canonical\""), "{body}");
    }
    assert_eq!(app.get("/no-such-page").await.status(), 404);
    assert_eq!(app.get("/assets/app-1234.js").await.status(), 200);
    assert_eq!(app.get("/assets/missing.js").await.status(), 404);
    assert_eq!(app.get("/../Cargo.toml").await.status(), 404);
}

#[actix_rt::test]
async fn translations_are_served_for_known_languages_only() {
    let app = spawn_app().await;
    let response = app.get("/locales/en/translation.json").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), r#"{"hello":"Hello"}"#);
    assert_eq!(app.get("/locales/xx/translation.json").await.status(), 404);
    assert_eq!(app.get("/locales/en/..%2F..%2Findex.json").await.status(), 404);
    assert_eq!(app.get("/locales/de/translation.json").await.status(), 404, "not in the test build");
}
