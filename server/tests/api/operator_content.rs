//! The console's Content and Users desks against the real server (issue 33): a blog post
//! scheduled for a time to come is nowhere readers look (the blog's API, its pages, the
//! sitemap) until then and everywhere after, without a restart; unpublished, it leaves and
//! is kept; a landing page's copy published in a language shows on the page the server
//! renders and in the app's call, its old version kept; one session of a user ended alone,
//! its socket closed, the user's other session going on.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app_with};
use crate::operator::{TOKEN, console_get, console_post, two_operators};

const KEY: &str = "scheduled-news";

fn post_file() -> String {
    format!(
        "---\nkey: {KEY}\ntitle: \"News from the team\"\ndescription: \"What is new this month.\"\n\
         date: 2026-11-30\ncover: /blog/covers/what-is-an-ai-companion.svg\n---\n\
         We added a few things this month. Read on for the details of each.\n"
    )
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

/// Where readers may find the post: the blog's list call, its article call, the sitemap,
/// the server-rendered `/blog` and `/blogs/{key}` (status and whether the list shows it).
async fn seen_by_readers(app: &TestApp) -> [bool; 5] {
    let list = app.post_api("/user/v1/blog/getBlogList", json!({ "pageNo": 1, "pageSize": 20 })).await;
    let listed = list.data["list"].as_array().unwrap().iter().any(|post| post["blogKey"] == KEY);
    let article = app.post_api("/user/v1/blog/getBlogInfo", json!({ "blogKey": KEY })).await.code == 200;
    let sitemap = app.get("/sitemap.xml").await.text().await.unwrap().contains(&format!("/blogs/{KEY}<"));
    let blog_page = app.get("/blog").await.text().await.unwrap().contains("News from the team");
    let post_page = app.get(&format!("/blogs/{KEY}")).await.status() == 200;
    [listed, article, sitemap, blog_page, post_page]
}

async fn console_state(app: &TestApp, admin: &str) -> Value {
    let (status, posts) = console_get(app, admin, "blog/posts").await;
    assert_eq!(status, 200, "{posts}");
    posts["posts"].as_array().unwrap().iter().find(|p| p["key"] == KEY).cloned().unwrap_or(Value::Null)
}

#[actix_rt::test]
async fn a_scheduled_post_appears_at_its_time_and_an_unpublished_one_leaves_and_is_kept() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    crate::seo::write_build(&app);
    let (admin, moderator) = two_operators(&app).await;
    let at = now() + 3;
    let publish = json!({ "file": post_file(), "publishAt": at, "reason": "monthly news" });
    assert_eq!(console_post(&app, &moderator, "blog/publish", publish.clone()).await.0, 403);
    let (status, answer) = console_post(&app, &admin, "blog/publish", publish).await;
    assert_eq!((status, answer["outcome"].as_str(), answer["publishAt"].as_i64()), (200, Some("scheduled"), Some(at)));

    // Stored, listed to the operator as scheduled, and nowhere a reader looks.
    let listed = console_state(&app, &admin).await;
    assert_eq!((listed["state"].as_str(), listed["publishAt"].as_i64()), (Some("scheduled"), Some(at)), "{listed}");
    assert_eq!(seen_by_readers(&app).await, [false; 5], "before its time");

    // Its time comes: everywhere, with no write and no restart.
    let deadline = Instant::now() + Duration::from_secs(15);
    while seen_by_readers(&app).await != [true; 5] {
        assert!(Instant::now() < deadline, "the post never appeared: {:?}", seen_by_readers(&app).await);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(now() >= at, "not before its time");
    assert_eq!(console_state(&app, &admin).await["state"], "published");

    // Unpublished: gone from every reader's view, kept for the operator.
    let unpublish = json!({ "key": KEY, "reason": "wrong month" });
    let (status, answer) = console_post(&app, &admin, "blog/unpublish", unpublish).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("unpublished")), "{answer}");
    assert_eq!(seen_by_readers(&app).await, [false; 5], "after unpublishing");
    let kept = console_state(&app, &admin).await;
    assert_eq!((kept["state"].as_str(), &kept["publishAt"]), (Some("unpublished"), &Value::Null), "{kept}");
    let (status, post) = console_get(&app, &admin, &format!("blog/post?key={KEY}")).await;
    assert_eq!(status, 200, "{post}");
    assert!(post["file"].as_str().unwrap().contains("We added a few things"), "{post}");
    let (_, log) = console_get(&app, &admin, "audit?limit=1").await;
    let entry = &log["entries"][0];
    assert_eq!((entry["action"].as_str(), entry["reason"].as_str()), (Some("blog/unpublish"), Some("wrong month")));
    assert_eq!(entry["target"], format!("key {KEY}"));

    // Published again from its file: back at once.
    let again = json!({ "file": post["file"], "reason": "right month after all" });
    let (status, answer) = console_post(&app, &admin, "blog/publish", again).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("replaced")), "{answer}");
    assert_eq!(seen_by_readers(&app).await, [true; 5]);
    let unknown = json!({ "key": "no-such-post", "reason": "x" });
    assert_eq!(console_post(&app, &admin, "blog/unpublish", unknown).await.0, 404);
}

fn copy(heading: &str) -> Value {
    json!({
        "heading": heading,
        "intro": "Our companions are fictional adults who love a good story.",
        "points": ["Memory that lasts", "Pictures on request"],
        "faq": [{ "q": "Is it private?", "a": "Your chats are yours." }],
    })
}

#[actix_rt::test]
async fn a_landing_pages_copy_is_published_per_language_and_its_old_version_kept() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    crate::seo::write_build(&app);
    let (admin, moderator) = two_operators(&app).await;
    let shipped = "AI Sex Chat with Companions Who Remember You";
    assert!(app.get("/ai-sex").await.text().await.unwrap().contains(shipped), "as built first");
    let read = |lang: &'static str| {
        let app = &app;
        async move { app.post_api("/user/v1/landing/getLandingCopy", json!({ "lang": lang, "topic": "aiSex" })).await }
    };
    assert_eq!(read("en").await.data["copy"], Value::Null);

    let publish =
        |heading: &str| json!({ "topic": "aiSex", "lang": "en", "copy": copy(heading), "reason": "new copy" });
    assert_eq!(console_post(&app, &moderator, "landing/publish", publish("H")).await.0, 403);
    for heading in ["Stories that remember you", "Companions that remember you"] {
        let (status, answer) = console_post(&app, &admin, "landing/publish", publish(heading)).await;
        assert_eq!(status, 200, "{answer}");
    }
    // Checked as a legal text is: required fields, lengths, a known page and language.
    let mut no_heading = publish("x");
    no_heading["copy"]["heading"] = json!(" ");
    let (status, answer) = console_post(&app, &admin, "landing/publish", no_heading).await;
    assert_eq!(
        (status, answer["error"].as_str().map(|e| e.starts_with("copy.heading"))),
        (400, Some(true)),
        "{answer}"
    );
    let mut too_long = publish("x");
    too_long["copy"]["intro"] = json!("y".repeat(2_001));
    assert_eq!(console_post(&app, &admin, "landing/publish", too_long).await.0, 400);
    let mut elsewhere = publish("x");
    elsewhere["topic"] = json!("termsOfService");
    assert_eq!(console_post(&app, &admin, "landing/publish", elsewhere).await.0, 400);

    // The page the server renders and the app's call show the newest; German keeps its own.
    let page = app.get("/ai-sex").await.text().await.unwrap();
    assert!(page.contains("<h1>Companions that remember you</h1>"), "{page}");
    assert!(page.contains("Pictures on request") && !page.contains(shipped), "{page}");
    assert!(page.contains("\"copy\":{"), "the app takes over with the published copy: {page}");
    assert_eq!(read("en").await.data["copy"], copy("Companions that remember you"));
    assert_eq!(read("de").await.data["copy"], Value::Null);
    assert!(!app.get("/de/ai-sex").await.text().await.unwrap().contains("Companions that remember you"));

    let (status, versions) = console_get(&app, &admin, "landing?topic=aiSex&lang=en").await;
    assert_eq!(status, 200, "{versions}");
    assert_eq!(versions["current"], copy("Companions that remember you"));
    assert_eq!(versions["shipped"]["heading"], shipped);
    let headings: Vec<&str> =
        versions["versions"].as_array().unwrap().iter().map(|v| v["text"]["heading"].as_str().unwrap()).collect();
    assert_eq!(headings, ["Companions that remember you", "Stories that remember you"], "the old version is kept");
    // Every attempt is audited, the refused ones with their status.
    let (_, log) = console_get(&app, &admin, "audit?limit=20").await;
    let published: Vec<(&str, &str)> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "landing/publish")
        .map(|e| (e["target"].as_str().unwrap(), e["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        published,
        [
            ("lang en, topic termsOfService", "400"),
            ("lang en, topic aiSex", "400"),
            ("lang en, topic aiSex", "400"),
            ("lang en, topic aiSex", "ok"),
            ("lang en, topic aiSex", "ok"),
            ("lang en, topic aiSex", "403 role"),
        ],
        "{log}"
    );
}

#[actix_rt::test]
async fn one_session_of_a_user_is_listed_and_ended_alone() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    let (admin, moderator) = two_operators(&app).await;
    let (user_id, user_no, first) = crate::cluster::make_user(&app.store, "Sam").await;
    // A second sign-in of the same user, as another browser would have.
    let second = amora_server::auth::random_token();
    let started = now();
    let record = amora_store::SessionRecord {
        token_hash: amora_server::auth::token_hash(&second),
        user_id: user_id.clone(),
        created_at: started,
        expires_at: started + 3_600,
    };
    app.store.sessions.create(record).await.unwrap();

    let (status, page) = console_get(&app, &admin, &format!("user?user={user_no}")).await;
    assert_eq!(status, 200, "{page}");
    let sessions = page["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2, "{page}");
    let first_id = amora_server::auth::token_hash(&first)[..16].to_owned();
    let listed = sessions.iter().find(|s| s["sessionId"] == first_id.as_str()).expect("the first session listed");
    assert!(listed["createdAt"].is_i64() && listed["expiresAt"].as_i64() > Some(started), "{listed}");
    assert!(!page.to_string().contains(&amora_server::auth::token_hash(&first)), "never the whole hash");

    let url = |voucher: &str| format!("{}/lust/api/ws?voucher={voucher}", app.address.replacen("http", "ws", 1));
    let mut socket = crate::cluster::Socket { stream: tokio_tungstenite::connect_async(url(&first)).await.unwrap().0 };
    socket.wait_for("hello", Duration::from_secs(10)).await.expect("hello");

    let end = json!({ "user": user_no, "session": first_id, "reason": "lost laptop" });
    assert_eq!(console_post(&app, &moderator, "user/endSession", end.clone()).await.0, 403);
    let (status, answer) = console_post(&app, &admin, "user/endSession", end.clone()).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("sessionEnded")), "{answer}");

    // The ended session's socket closes and its calls answer "session ended"; the other goes on.
    let closing = Instant::now();
    while socket.next_event(Duration::from_secs(10)).await.is_some() {}
    assert!(closing.elapsed() < Duration::from_secs(9), "the ended session's socket closed");
    assert_eq!(app.get_api_as(Some(&first), "/user/v1/getOwnUserInfoDetail").await.code, 10004);
    assert_eq!(app.get_api_as(Some(&second), "/user/v1/getOwnUserInfoDetail").await.code, 200);
    let (_, page) = console_get(&app, &admin, &format!("user?user={user_no}")).await;
    assert_eq!(page["sessions"].as_array().unwrap().len(), 1, "{page}");
    assert_eq!(console_post(&app, &admin, "user/endSession", end).await.0, 404, "ended already");
    let (_, log) = console_get(&app, &admin, "audit?limit=1").await;
    let entry = &log["entries"][0];
    assert_eq!(entry["action"], "user/endSession");
    assert_eq!(entry["target"], format!("user {user_no}, session {first_id}"), "{entry}");
}
