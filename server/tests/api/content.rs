//! The blog (published by the operator, read through the API) and reports of characters
//! and replies, acted on by the operator hiding the character.

use serde_json::{Value, json};

use crate::chat::{FREE_CHARACTER, messages};
use crate::cluster::make_user;
use crate::helpers::{TestApp, spawn_app, spawn_app_with};

const TOKEN: &str = "operator-token";

async fn admin_post(app: &TestApp, path: &str, body: Value) -> (u16, Value) {
    let response =
        app.client.post(app.url(&format!("/lust/admin/{path}"))).bearer_auth(TOKEN).json(&body).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

async fn admin_get(app: &TestApp, path: &str) -> (u16, Value) {
    let response = app.client.get(app.url(&format!("/lust/admin/{path}"))).bearer_auth(TOKEN).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

async fn blog_list(app: &TestApp, page_no: i64, page_size: i64) -> Value {
    let envelope = app.post_api("/user/v1/blog/getBlogList", json!({ "pageNo": page_no, "pageSize": page_size })).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    envelope.data
}

fn keys(page: &Value) -> Vec<String> {
    page["list"].as_array().unwrap().iter().map(|p| p["blogKey"].as_str().unwrap().to_owned()).collect()
}

#[actix_rt::test]
async fn the_seeded_articles_are_listed_newest_first_and_read_as_sanitised_html() {
    let app = spawn_app().await;
    let page = blog_list(&app, 1, 3).await;
    assert_eq!(page["total"], 5);
    assert_eq!(
        keys(&page),
        ["healthy-habits-with-an-ai-companion", "privacy-and-ai-companions", "designing-your-own-ai-character"]
    );
    assert_eq!(keys(&blog_list(&app, 2, 3).await), ["how-ai-companions-remember-you", "what-is-an-ai-companion"]);
    let first = &page["list"][0];
    assert_eq!(first["date"], "2024-12-16");
    assert_eq!(first["cover"], "/blog/covers/healthy-habits-with-an-ai-companion.svg");
    assert!(first.get("html").is_none(), "the list carries no bodies");

    let post = app.post_api("/user/v1/blog/getBlogInfo", json!({ "blogKey": "designing-your-own-ai-character" })).await;
    assert_eq!(post.code, 200);
    assert_eq!(post.data["title"], "Designing your own AI character: a practical guide");
    let html = post.data["html"].as_str().unwrap();
    assert!(html.contains("<h2>Start with a want</h2>"), "{html}");
    assert!(html.contains("<blockquote>"), "{html}");
    assert!(html.contains(r#"<a href="/communityguidelines" rel="noopener noreferrer nofollow">"#), "{html}");

    let missing = app.post_api("/user/v1/blog/getBlogInfo", json!({ "blogKey": "no-such-post" })).await;
    assert_eq!(missing.code, 10006, "{}", missing.msg);
    let bad = app.post_api("/user/v1/blog/getBlogInfo", json!({ "blogKey": "../etc" })).await;
    assert_eq!(bad.code, 10001);
    assert_eq!(app.post_api("/user/v1/blog/getBlogList", json!({ "pageNo": 0, "pageSize": 3 })).await.code, 10001);
}

#[actix_rt::test]
async fn the_operator_publishes_replaces_and_unpublishes_a_post_from_markdown() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    let file = "---\nkey: meet-the-new-characters\ntitle: Meet the new characters\ndescription: Ten new companions joined Amora this week.\ndate: 2025-01-10\ncover: /blog/covers/what-is-an-ai-companion.svg\n---\n\n## Who is new\n\nSay hello to *everyone*. <script>alert('x')</script><img src=\"/a.png\" onerror=\"alert(1)\">\n";
    let (status, answer) = admin_post(&app, "blog/publish", json!({ "file": file })).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["outcome"], "published");
    assert_eq!(answer["url"], "http://localhost:8080/blogs/meet-the-new-characters");
    assert_eq!(keys(&blog_list(&app, 1, 1).await), ["meet-the-new-characters"], "the newest leads");

    let post = app.post_api("/user/v1/blog/getBlogInfo", json!({ "blogKey": "meet-the-new-characters" })).await.data;
    let html = post["html"].as_str().unwrap();
    assert!(html.contains("<h2>Who is new</h2>") && html.contains("<em>everyone</em>"), "{html}");
    assert!(!html.contains("<script") && !html.contains("onerror") && !html.contains("alert('x')"), "{html}");
    assert_eq!(app.get("/blogs/meet-the-new-characters").await.status(), 200);

    let replaced = file.replace("Ten new companions", "Twelve new companions");
    let (status, answer) = admin_post(&app, "blog/publish", json!({ "file": replaced })).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("replaced")));
    assert_eq!(blog_list(&app, 1, 1).await["list"][0]["description"], "Twelve new companions joined Amora this week.");
    assert_eq!(blog_list(&app, 1, 1).await["total"], 6);

    // Bad files are refused with the field at fault, and nothing changes.
    for (bad, field) in [
        ("no front matter", "frontMatter"),
        ("---\nkey: Bad Key\ntitle: T\ndescription: D\ndate: 2025-01-10\ncover: /c.svg\n---\nbody", "key"),
        ("---\nkey: ok\ntitle: T\ndescription: D\ndate: 2025-02-30\ncover: /c.svg\n---\nbody", "date"),
        ("---\nkey: ok\ntitle: T\ndescription: D\ndate: 2025-01-10\ncover: javascript:alert(1)\n---\nbody", "cover"),
        ("---\nkey: ok\ntitle: T\ndescription: D\ndate: 2025-01-10\ncover: /c.svg\n---\n", "body"),
    ] {
        let (status, answer) = admin_post(&app, "blog/publish", json!({ "file": bad })).await;
        assert_eq!(status, 400, "{bad}");
        assert!(answer["error"].as_str().unwrap().starts_with(field), "{answer}");
    }
    assert_eq!(blog_list(&app, 1, 1).await["total"], 6);

    let (status, _) = admin_post(&app, "blog/unpublish", json!({ "key": "meet-the-new-characters" })).await;
    assert_eq!(status, 200);
    // Unpublished, the post is kept (unpublishing it again is no error); an unknown key is 404.
    assert_eq!(admin_post(&app, "blog/unpublish", json!({ "key": "meet-the-new-characters" })).await.0, 200);
    assert_eq!(admin_post(&app, "blog/unpublish", json!({ "key": "never-written" })).await.0, 404);
    assert_eq!(app.get("/blogs/meet-the-new-characters").await.status(), 404);
    assert_eq!(blog_list(&app, 1, 1).await["total"], 5);
    let stranger = app
        .client
        .post(app.url("/lust/admin/blog/publish"))
        .bearer_auth("guess")
        .json(&json!({ "file": file }))
        .send()
        .await
        .unwrap();
    assert_eq!(stranger.status(), 401);
}

async fn report(app: &TestApp, voucher: Option<&str>, body: Value) -> crate::helpers::Envelope {
    app.post_api_as(voucher, "/user/v1/report/reportContent", body).await.0
}

#[actix_rt::test]
async fn a_report_is_filed_listed_for_the_operator_and_the_character_hidden_from_everyone() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    let (_, _, voucher) = make_user(&app.store, "Rita").await;
    let voucher = voucher.as_str();

    let signed_out = report(&app, None, json!({ "characterId": FREE_CHARACTER, "reason": "minor" })).await;
    assert_eq!(signed_out.code, 10004, "reports need an account");

    // The character itself.
    let filed = report(
        &app,
        Some(voucher),
        json!({ "characterId": FREE_CHARACTER, "reason": "minor", "note": "Looks underage" }),
    )
    .await;
    assert_eq!(filed.code, 200, "{}", filed.msg);
    assert!(filed.data["reportId"].as_str().is_some());

    // One of its replies: the greeting that opens the conversation.
    let page = messages(&app, voucher, FREE_CHARACTER, None, 30).await;
    let greeting = page["messages"].as_array().unwrap().iter().find(|m| m["speaker"] == "character").unwrap().clone();
    let greeting_id = greeting["messageId"].as_str().unwrap();
    let filed = report(
        &app,
        Some(voucher),
        json!({ "characterId": FREE_CHARACTER, "messageId": greeting_id, "reason": "harassment", "note": "" }),
    )
    .await;
    assert_eq!(filed.code, 200, "{}", filed.msg);

    // What cannot be reported, each with a clear code.
    for (body, code) in [
        (json!({ "characterId": FREE_CHARACTER, "reason": "boring" }), 10001),
        (json!({ "characterId": FREE_CHARACTER, "reason": "other" }), 10001),
        (json!({ "characterId": FREE_CHARACTER, "reason": "spam", "note": "x".repeat(1001) }), 10001),
        (json!({ "characterId": "no-such-character", "reason": "spam" }), 10006),
        (json!({ "characterId": FREE_CHARACTER, "messageId": "123", "reason": "spam" }), 10006),
        (json!({ "characterId": "gf-003", "messageId": greeting_id, "reason": "spam" }), 10006),
    ] {
        let answer = report(&app, Some(voucher), body.clone()).await;
        assert_eq!(answer.code, code, "{body}: {}", answer.msg);
    }

    let (status, listed) = admin_get(&app, "reports?limit=10").await;
    assert_eq!(status, 200);
    let reports = listed["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 2, "{listed}");
    assert_eq!(reports[0]["reason"], "harassment");
    assert_eq!(reports[0]["messageId"], greeting_id);
    assert_eq!(reports[0]["messageText"], greeting["content"]);
    assert_eq!(reports[1]["reason"], "minor");
    assert_eq!(reports[1]["note"], "Looks underage");
    assert_eq!(reports[1]["characterName"], app.character_info(FREE_CHARACTER).await.data["characterName"]);
    assert_eq!(reports[1]["characterHidden"], false);

    // The operator hides the character: it leaves the catalogue, its page and its chats.
    let in_catalogue = |cards: &Value| cards.as_array().unwrap().iter().any(|c| c["characterId"] == FREE_CHARACTER);
    assert!(in_catalogue(&app.character_list(1, 30, 0).await.data));
    let (status, answer) = admin_post(&app, "character/hide", json!({ "characterId": FREE_CHARACTER })).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("hidden")));
    assert!(!in_catalogue(&app.character_list(1, 30, 0).await.data));
    assert_eq!(app.character_info(FREE_CHARACTER).await.code, 10006);
    assert_eq!(app.get(&format!("/chat/{FREE_CHARACTER}")).await.status(), 404);
    assert!(!app.get("/sitemap.xml").await.text().await.unwrap().contains(&format!("/chat/{FREE_CHARACTER}<")));
    let chats = app.post_api_as(Some(voucher), "/user/v1/chat/getChatList", json!({})).await.0;
    assert!(!in_catalogue(&chats.data), "{}", chats.data);
    let history = app
        .post_api_as(
            Some(voucher),
            "/user/v1/chat/getMessageList",
            json!({ "characterId": FREE_CHARACTER, "pageSize": 30 }),
        )
        .await
        .0;
    assert_ne!(history.code, 200, "nobody chats with a hidden character");
    assert_eq!(admin_get(&app, "reports").await.1["reports"][0]["characterHidden"], true);

    assert_eq!(admin_post(&app, "character/hide", json!({ "characterId": "no-such-character" })).await.0, 404);
    let (status, _) = admin_post(&app, "character/unhide", json!({ "characterId": FREE_CHARACTER })).await;
    assert_eq!(status, 200);
    assert!(in_catalogue(&app.character_list(1, 30, 0).await.data));
    assert_eq!(app.get(&format!("/chat/{FREE_CHARACTER}")).await.status(), 200);
}

#[actix_rt::test]
async fn reports_are_limited_per_account() {
    let app = spawn_app_with(&[("AMORA_LIMITS__CONTENT_REPORTS_PER_USER_PER_HOUR", "3")]).await;
    let (_, _, first) = make_user(&app.store, "Flo").await;
    let (_, _, second) = make_user(&app.store, "Gus").await;
    let body = json!({ "characterId": FREE_CHARACTER, "reason": "spam" });
    for _ in 0..3 {
        assert_eq!(report(&app, Some(&first), body.clone()).await.code, 200);
    }
    assert_eq!(report(&app, Some(&first), body.clone()).await.code, 10003, "the fourth in an hour");
    assert_eq!(report(&app, Some(&second), body.clone()).await.code, 200, "another account is not slowed");
    assert_eq!(app.store.reports.recent(50).await.unwrap().len(), 4, "the refused one was not kept");
}
