//! The operator console's API (issue 33): operators made by the token API (as
//! `amora admin create-operator` does) sign in with a TOTP code computed here from the
//! secret; a wrong code, or a right one used a second time, is refused and repeated failures meet the limit; a moderator is
//! refused the money routes; an admin's credit moves the ledger and the balance; every
//! action lands in the audit log with its operator, target and reason; the shared-token
//! `/lust/admin` keeps working and is never accepted in the console.

use serde_json::{Value, json};
use totp_rs::{Algorithm, Secret, TOTP};

use crate::chat::FREE_CHARACTER;
use crate::cluster::make_user;
use crate::helpers::{TestApp, spawn_app_with};

pub(crate) const TOKEN: &str = "operator-token";

pub(crate) struct Created {
    pub(crate) email: String,
    pub(crate) password: String,
    pub(crate) secret: String,
}

pub(crate) async fn create_operator(app: &TestApp, email: &str, role: &str) -> Created {
    let response = app
        .client
        .post(app.url("/lust/admin/operators/create"))
        .bearer_auth(TOKEN)
        .json(&json!({ "email": email, "role": role }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert!(answer["otpauthUri"].as_str().unwrap().starts_with("otpauth://totp/Amora:"), "{answer}");
    Created {
        email: email.to_owned(),
        password: answer["password"].as_str().unwrap().to_owned(),
        secret: answer["totpSecret"].as_str().unwrap().to_owned(),
    }
}

/// The code an authenticator app shows now for `secret` (RFC 6238, SHA-1, 6 digits, 30 s).
pub(crate) fn current_code(secret: &str) -> String {
    let bytes = Secret::Encoded(secret.to_owned()).to_bytes().unwrap();
    TOTP::new(Algorithm::SHA1, 6, 1, 30, bytes, None, String::new()).unwrap().generate_current().unwrap()
}

/// A code that is none of the accepted ones (now, the step before, the step after).
fn wrong_code(secret: &str) -> String {
    let right: u32 = current_code(secret).parse().unwrap();
    format!("{:06}", (right + 333_333) % 1_000_000)
}

pub(crate) async fn sign_in(app: &TestApp, operator: &Created, code: &str) -> (u16, Option<String>, Value) {
    let response = app
        .client
        .post(app.url("/lust/operator/api/signIn"))
        .header("X-Amora-Operator", "1")
        .json(&json!({ "email": operator.email, "password": operator.password, "code": code }))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let cookie = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("amora_operator="))
        .map(str::to_owned);
    (status, cookie, response.json().await.unwrap_or(Value::Null))
}

/// The `name=value` part of a Set-Cookie header.
pub(crate) fn cookie_pair(set_cookie: &str) -> String {
    set_cookie.split(';').next().unwrap().to_owned()
}

pub(crate) async fn console_post(app: &TestApp, cookie: &str, path: &str, body: Value) -> (u16, Value) {
    let response = app
        .client
        .post(app.url(&format!("/lust/operator/api/{path}")))
        .header("cookie", cookie)
        .header("X-Amora-Operator", "1")
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

pub(crate) async fn console_get(app: &TestApp, cookie: &str, path: &str) -> (u16, Value) {
    let response =
        app.client.get(app.url(&format!("/lust/operator/api/{path}"))).header("cookie", cookie).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

#[actix_rt::test]
async fn an_operator_signs_in_with_a_totp_code_and_a_wrong_one_is_refused_until_the_limit() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    let admin = create_operator(&app, "boss@example.com", "admin").await;

    let (status, cookie, answer) = sign_in(&app, &admin, &wrong_code(&admin.secret)).await;
    assert_eq!(status, 403, "{answer}");
    assert!(cookie.is_none());
    assert_eq!(answer["error"], "wrong e-mail, password or code");

    let code = current_code(&admin.secret);
    let (status, cookie, answer) = sign_in(&app, &admin, &code).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["role"], "admin");
    // The same code a second time (still within its 90 s) is refused as a wrong one: a code
    // seen over a shoulder or in a recorded screen signs in nobody (RFC 6238 section 5.2).
    let (status, again, answer) = sign_in(&app, &admin, &code).await;
    assert_eq!((status, again.is_none()), (403, true), "{answer}");
    assert_eq!(answer["error"], "wrong e-mail, password or code");
    let set_cookie = cookie.expect("the operator cookie");
    assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
    assert!(set_cookie.contains("SameSite=Strict"), "{set_cookie}");
    assert!(set_cookie.contains("Path=/lust/operator"), "{set_cookie}");
    let cookie = cookie_pair(&set_cookie);
    let (status, me) = console_get(&app, &cookie, "me").await;
    assert_eq!((status, me["email"].as_str()), (200, Some("boss@example.com")));

    // Without the cookie, or with the shared token instead, the console answers 401.
    let (status, _) = console_get(&app, "", "me").await;
    assert_eq!(status, 401);
    let with_token =
        app.client.get(app.url("/lust/operator/api/reports")).bearer_auth(TOKEN).send().await.unwrap().status();
    assert_eq!(with_token, 401, "the shared token is never accepted in the console");

    // Wrong codes again and again: the limit answers 429, the right code included.
    let mut statuses = Vec::new();
    for _ in 0..8 {
        statuses.push(sign_in(&app, &admin, &wrong_code(&admin.secret)).await.0);
    }
    assert!(statuses.contains(&429), "{statuses:?}");
    assert_eq!(sign_in(&app, &admin, &current_code(&admin.secret)).await.0, 429);

    // signOut ends the session.
    let (status, _) = console_post(&app, &cookie, "signOut", json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(console_get(&app, &cookie, "me").await.0, 401);
}

#[actix_rt::test]
async fn roles_reasons_the_ledger_and_the_audit_log() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    let admin = create_operator(&app, "admin@example.com", "admin").await;
    let moderator = create_operator(&app, "mod@example.com", "moderator").await;
    let admin_cookie = cookie_pair(&sign_in(&app, &admin, &current_code(&admin.secret)).await.1.unwrap());
    let moderator_cookie = cookie_pair(&sign_in(&app, &moderator, &current_code(&moderator.secret)).await.1.unwrap());
    let (user_id, user_no, _) = make_user(&app.store, "Ann").await;
    let moderator_id = console_get(&app, &moderator_cookie, "me").await.1["operatorId"].as_str().unwrap().to_owned();
    let admin_id = console_get(&app, &admin_cookie, "me").await.1["operatorId"].as_str().unwrap().to_owned();

    // A moderator is refused money, with a clear error, and the refusal is audited.
    let body = json!({ "user": user_no, "coins": 50, "reason": "goodwill" });
    let (status, answer) = console_post(&app, &moderator_cookie, "credit", body.clone()).await;
    assert_eq!(status, 403, "{answer}");
    assert_eq!(answer["error"], "credit needs the admin role; you are a moderator");
    // A POST without the console header is refused before anything else.
    let bare = app
        .client
        .post(app.url("/lust/operator/api/credit"))
        .header("cookie", &admin_cookie)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), 403);
    // An acting route without a reason is refused.
    let (status, answer) = console_post(&app, &admin_cookie, "credit", json!({ "user": user_no, "coins": 50 })).await;
    assert_eq!(status, 400, "{answer}");

    // The admin credits: the ledger gains a row and the balance follows.
    let before = app.store.users.by_id(&user_id).await.unwrap().unwrap().coin.units();
    let rows_before = app.store.ledger.rows(&user_id).await.unwrap().len();
    let (status, answer) = console_post(&app, &admin_cookie, "credit", body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["outcome"], "applied");
    let rows = app.store.ledger.rows(&user_id).await.unwrap();
    assert_eq!(rows.len(), rows_before + 1);
    assert_eq!(rows.iter().map(|row| row.delta.units()).sum::<i64>(), before + 50);
    assert_eq!(app.store.users.by_id(&user_id).await.unwrap().unwrap().coin.units(), before + 50);

    // A moderator suspends (its desk), with a reason the handler never sees.
    let (status, answer) =
        console_post(&app, &moderator_cookie, "suspend", json!({ "user": user_no, "reason": "spam" })).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("suspended")), "{answer}");

    // The audit log has each of them, newest first, with operator, target, reason, outcome.
    let (status, log) = console_get(&app, &moderator_cookie, "audit?limit=50").await;
    assert_eq!(status, 200, "{log}");
    let entries = log["entries"].as_array().unwrap();
    let find = |operator: &str, action: &str, outcome: &str| {
        entries.iter().find(|e| e["operatorId"] == operator && e["action"] == action && e["outcome"] == outcome)
    };
    let suspended = find(&moderator_id, "suspend", "ok").expect("the suspension is audited");
    assert_eq!(suspended["target"], format!("user {user_no}"));
    assert_eq!(suspended["reason"], "spam");
    let credited = find(&admin_id, "credit", "ok").expect("the credit is audited");
    assert_eq!(credited["reason"], "goodwill");
    assert_eq!(credited["target"], format!("user {user_no}"));
    assert_eq!(credited["operatorEmail"], "admin@example.com");
    assert!(find(&moderator_id, "credit", "403 role").is_some(), "the refusal is audited");
    assert!(find(&admin_id, "credit", "400 reason missing").is_some());
    assert!(find(&admin_id, "signIn", "ok").is_some());
    // Paging: `before` the newest entry leaves it out.
    let newest = entries[0]["entryId"].as_str().unwrap();
    let (_, older) = console_get(&app, &moderator_cookie, &format!("audit?before={newest}&limit=50")).await;
    assert_eq!(older["entries"].as_array().unwrap().len(), entries.len() - 1);

    // The shared-token API still works, beside the console.
    let response = app
        .client
        .post(app.url("/lust/admin/unsuspend"))
        .bearer_auth(TOKEN)
        .json(&json!({ "user": user_no }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

/// An admin and a moderator, signed in: their cookies.
pub(crate) async fn two_operators(app: &TestApp) -> (String, String) {
    let admin = create_operator(app, "admin@example.com", "admin").await;
    let moderator = create_operator(app, "mod@example.com", "moderator").await;
    let admin_cookie = cookie_pair(&sign_in(app, &admin, &current_code(&admin.secret)).await.1.unwrap());
    let moderator_cookie = cookie_pair(&sign_in(app, &moderator, &current_code(&moderator.secret)).await.1.unwrap());
    (admin_cookie, moderator_cookie)
}

#[actix_rt::test]
async fn reports_are_decided_and_users_found_seen_signed_out_and_deleted() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    let (admin, moderator) = two_operators(&app).await;
    let (user_id, user_no, voucher) = make_user(&app.store, "Rita").await;
    let filed = app
        .post_api_as(
            Some(&voucher),
            "/user/v1/report/reportContent",
            json!({ "characterId": FREE_CHARACTER, "reason": "spam", "note": "ads" }),
        )
        .await
        .0;
    assert_eq!(filed.code, 200, "{}", filed.msg);
    let report_id = filed.data["reportId"].as_str().unwrap().to_owned();

    // A report is open until decided; the decision shows on the queue.
    let (_, queue) = console_get(&app, &moderator, "reports").await;
    assert_eq!(queue["reports"][0]["decision"], Value::Null, "{queue}");
    let decide = json!({ "reportId": report_id, "decision": "dismissed", "reason": "not spam" });
    let (status, answer) = console_post(&app, &moderator, "report/decide", decide).await;
    assert_eq!((status, answer["decision"].as_str()), (200, Some("dismissed")), "{answer}");
    let (_, queue) = console_get(&app, &moderator, "reports").await;
    assert_eq!(queue["reports"][0]["decision"]["decision"], "dismissed", "{queue}");
    let unknown = json!({ "reportId": "12345", "decision": "dismissed", "reason": "x" });
    assert_eq!(console_post(&app, &moderator, "report/decide", unknown).await.0, 404);
    let odd = json!({ "reportId": report_id, "decision": "ignored", "reason": "x" });
    assert_eq!(console_post(&app, &moderator, "report/decide", odd).await.0, 400);

    // Found by number, e-mail-less account, or id; a moderator may search, not open the page.
    for query in [user_no.clone(), user_id.to_string()] {
        let (status, found) = console_get(&app, &moderator, &format!("users?q={query}")).await;
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["users"][0]["userNo"], user_no.as_str(), "{found}");
    }
    assert_eq!(console_get(&app, &moderator, "users?q=99999999").await.1["users"], json!([]));
    assert_eq!(console_get(&app, &moderator, &format!("user?user={user_no}")).await.0, 403);
    let body = json!({ "user": user_no, "coins": 70, "reason": "welcome back" });
    assert_eq!(console_post(&app, &admin, "credit", body).await.0, 200);
    let (status, page) = console_get(&app, &admin, &format!("user?user={user_no}")).await;
    assert_eq!(status, 200, "{page}");
    let ledger = page["ledger"].as_array().unwrap();
    let sum: i64 = ledger.iter().map(|row| row["coins"].as_i64().unwrap()).sum();
    assert_eq!(page["account"]["coin"].as_i64(), Some(sum), "the balance is the ledger's sum: {page}");
    assert_eq!(ledger[0]["coins"], 70, "newest first: {page}");
    assert_eq!(page["reportsMade"][0]["reportId"], report_id.as_str());

    // Ending the sessions signs the user out; a moderator may not delete; an admin may.
    let end = json!({ "user": user_no, "reason": "stolen phone" });
    assert_eq!(console_post(&app, &admin, "user/endSessions", end).await.0, 200);
    let again = json!({ "characterId": FREE_CHARACTER, "reason": "hate" });
    let signed_out = app.post_api_as(Some(&voucher), "/user/v1/report/reportContent", again).await.0;
    assert_eq!(signed_out.code, 10004, "the session the report was filed in has ended: {}", signed_out.msg);
    let delete = json!({ "user": user_no, "reason": "asked by e-mail" });
    assert_eq!(console_post(&app, &moderator, "user/delete", delete.clone()).await.0, 403);
    assert_eq!(console_post(&app, &admin, "user/delete", delete).await.0, 200);
    assert!(app.store.users.by_id(&user_id).await.unwrap().is_none());
}

#[actix_rt::test]
async fn a_legal_text_is_published_as_a_new_version_and_readers_get_it() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    let (admin, moderator) = two_operators(&app).await;
    let read = |lang: &'static str| {
        let app = &app;
        async move { app.post_api("/user/v1/legal/getLegalTexts", json!({ "lang": lang })).await }
    };
    assert_eq!(read("en").await.data["docs"], json!([]), "as built until an operator publishes");

    let text = |title: &str| json!({ "title": title, "intro": "Read me.", "sections": [{ "heading": "1. Use", "paragraphs": ["Be kind."] }] });
    let publish = |date: &str, title: &str| json!({ "doc": "termsOfService", "lang": "en", "lastModified": date, "text": text(title), "reason": "new terms" });
    assert_eq!(console_post(&app, &moderator, "legal/publish", publish("2026-11-01", "T")).await.0, 403);
    for (date, title) in [("2026-11-01", "Terms one"), ("2026-11-30", "Terms two")] {
        let (status, answer) = console_post(&app, &admin, "legal/publish", publish(date, title)).await;
        assert_eq!(status, 200, "{answer}");
    }
    let bad_day = console_post(&app, &admin, "legal/publish", publish("2026-02-30", "T")).await;
    assert_eq!(bad_day.0, 400, "{}", bad_day.1);
    let mut no_title = publish("2026-11-30", "T");
    no_title["text"]["title"] = json!("");
    assert_eq!(console_post(&app, &admin, "legal/publish", no_title).await.0, 400);

    let docs = read("en").await.data["docs"].clone();
    assert_eq!(docs, json!([{ "docKey": "termsOfService", "lastModified": "2026-11-30", "text": text("Terms two") }]));
    assert_eq!(read("de").await.data["docs"], json!([]), "other languages keep theirs");
    // The page the server renders (crawlers, and readers before the app starts) shows it too.
    crate::seo::write_build(&app);
    let page = app.get("/terms-of-service").await.text().await.unwrap();
    assert!(page.contains("<h1>Terms two</h1>"), "{page}");
    let (status, versions) = console_get(&app, &admin, "legal?doc=termsOfService&lang=en").await;
    assert_eq!(status, 200, "{versions}");
    assert_eq!(versions["current"]["lastModified"], "2026-11-30");
    let dates: Vec<&str> =
        versions["versions"].as_array().unwrap().iter().map(|v| v["lastModified"].as_str().unwrap()).collect();
    assert_eq!(dates, ["2026-11-30", "2026-11-01"], "the old version is kept");
    assert_eq!(console_get(&app, &admin, "legal?doc=nothing&lang=en").await.0, 400);
}

#[actix_rt::test]
async fn blog_posts_are_listed_and_read_back_as_files_and_metrics_are_json() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    let (admin, moderator) = two_operators(&app).await;
    let (status, posts) = console_get(&app, &admin, "blog/posts").await;
    assert_eq!(status, 200, "{posts}");
    assert_eq!(posts["posts"].as_array().unwrap().len(), 5, "{posts}");
    // Three of the shipped posts state the guidelines ("no minors, nothing
    // non-consensual"), which the chat rule that posts are held to refuses: edit another.
    let key = "privacy-and-ai-companions".to_owned();
    let (status, post) = console_get(&app, &admin, &format!("blog/post?key={key}")).await;
    assert_eq!(status, 200, "{post}");
    let file = post["file"].as_str().unwrap().replace("title: \"", "title: \"Edited: ");
    let (status, answer) = console_post(&app, &admin, "blog/publish", json!({ "file": file, "reason": "typo" })).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("replaced")), "{answer}");
    let (_, log) = console_get(&app, &admin, "audit?limit=1").await;
    assert_eq!(log["entries"][0]["target"], format!("key {key}"), "{log}");
    let (_, posts) = console_get(&app, &admin, "blog/posts").await;
    let edited = posts["posts"].as_array().unwrap().iter().find(|p| p["key"] == key.as_str()).unwrap();
    assert!(edited["title"].as_str().unwrap().starts_with("Edited: "), "{edited}");

    app.get("/").await;
    let (status, metrics) = console_get(&app, &admin, "metrics").await;
    assert_eq!(status, 200);
    let samples = metrics["samples"].as_array().unwrap();
    assert!(samples.iter().any(|s| s["name"] == "amora_http_requests_total" && s["value"].as_f64() > Some(0.0)));
    let gauge = |name: &str| samples.iter().find(|s| s["name"] == name).map(|s| s["value"].clone());
    assert_eq!(gauge("amora_chat_queue_depth"), Some(json!(0)));
    assert_eq!(gauge("amora_ws_sockets"), Some(json!(0)));
    assert_eq!(console_get(&app, &moderator, "metrics").await.0, 403, "health is the admin's");
}

/// Calls the user API as `voucher`'s user; the data of a call that must succeed.
async fn user_ok(app: &TestApp, voucher: &str, path: &str, payload: Value) -> Value {
    let (envelope, _) = app.post_api_as(Some(voucher), path, payload.clone()).await;
    assert_eq!(envelope.code, 200, "{path} {payload}: {}", envelope.msg);
    envelope.data
}

/// Issue 33's "reports made and received": a user's page lists the reports others filed on
/// the characters the user created, with the operator's decision, and the user's shared
/// images that were reported; a report on someone else's character is not among them.
#[actix_rt::test]
async fn a_user_page_lists_the_reports_on_the_user_s_characters_and_shared_images() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", TOKEN)]).await;
    let (admin, _) = two_operators(&app).await;
    let (maker_id, maker_no, maker) = make_user(&app.store, "Mara").await;
    let (critic_id, critic_no, critic) = make_user(&app.store, "Cole").await;

    // Mara's character, public after review, reported by Cole; Cole also reports a seeded one.
    let draft = crate::creation::draft(&app, 0, "Juniper").await;
    let created = user_ok(&app, &maker, "/user/v1/character/create", json!({ "draft": draft })).await;
    let character_id = created["character"]["characterId"].as_str().unwrap().to_owned();
    let public = json!({ "characterId": character_id, "visibility": "public" });
    user_ok(&app, &maker, "/user/v1/character/setVisibility", public).await;
    let approved = app
        .client
        .post(app.url("/lust/admin/character/approve"))
        .bearer_auth(TOKEN)
        .json(&json!({ "characterId": character_id }))
        .send()
        .await
        .unwrap();
    assert_eq!(approved.status(), 200);
    let on_hers = json!({ "characterId": character_id, "reason": "spam", "note": "copies another card" });
    let filed = user_ok(&app, &critic, "/user/v1/report/reportContent", on_hers).await;
    let report_id = filed["reportId"].as_str().unwrap().to_owned();
    let elsewhere = json!({ "characterId": FREE_CHARACTER, "reason": "hate" });
    user_ok(&app, &critic, "/user/v1/report/reportContent", elsewhere).await;

    // Mara shares an image to the feed; Cole reports it.
    let mara = crate::images::Person { user_id: maker_id, user_no: maker_no.clone(), voucher: maker.clone() };
    let (image_id, feed_id) = crate::feed_safety::shared(&app, &mara, "a woman of 30 reading by the window").await;
    user_ok(&app, &critic, "/user/v1/report/reportContent", json!({ "feedId": feed_id, "reason": "minor" })).await;

    let (status, page) = console_get(&app, &admin, &format!("user?user={maker_no}")).await;
    assert_eq!(status, 200, "{page}");
    let received = page["reportsReceived"].as_array().unwrap();
    assert_eq!(received.len(), 1, "only the report on her own character: {page}");
    assert_eq!(received[0]["reportId"], report_id.as_str());
    assert_eq!(received[0]["characterName"], "Juniper");
    assert_eq!(received[0]["reporterId"], critic_id.to_string());
    assert_eq!(
        (received[0]["reason"].as_str(), received[0]["note"].as_str()),
        (Some("spam"), Some("copies another card"))
    );
    assert_eq!(received[0]["decision"], Value::Null);
    let images = page["imagesReported"].as_array().unwrap();
    assert_eq!(images.len(), 1, "{page}");
    assert_eq!(
        (images[0]["imageId"].as_str(), images[0]["feedId"].as_str()),
        (Some(image_id.as_str()), Some(feed_id.as_str()))
    );
    assert_eq!((images[0]["reports"].as_u64(), images[0]["hidden"].as_bool()), (Some(1), Some(false)));
    assert_eq!(page["reportsMade"], json!([]));

    // The decision shows on her page; Cole's page has his two reports made and none received.
    let decide = json!({ "reportId": report_id, "decision": "dismissed", "reason": "original work" });
    assert_eq!(console_post(&app, &admin, "report/decide", decide).await.0, 200);
    let (_, page) = console_get(&app, &admin, &format!("user?user={maker_no}")).await;
    assert_eq!(page["reportsReceived"][0]["decision"]["decision"], "dismissed", "{page}");
    let (_, page) = console_get(&app, &admin, &format!("user?user={critic_no}")).await;
    assert_eq!(page["reportsMade"].as_array().map(Vec::len), Some(2), "{page}");
    let named = page["reportsMade"].as_array().unwrap().iter().any(|r| r["characterName"] == "Juniper");
    assert!(named, "a report made names its character: {page}");
    assert_eq!((page["reportsReceived"].clone(), page["imagesReported"].clone()), (json!([]), json!([])));
}
