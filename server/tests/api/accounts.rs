//! Signing in and staying signed in, end to end: mailed links through a real SMTP server,
//! ID and password, Google and Discord, sessions, limits and account deletion.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app_env, spawn_app_with};
use crate::support::{IdentityProvider, SmtpSink, code_for, google_id_token, link_in};

async fn app_with_mail(sink: &SmtpSink, extra: &[(&str, &str)]) -> TestApp {
    let mut env = vec![("AMORA_MAIL__SMTP_URL".to_owned(), sink.url())];
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    spawn_app_env(env).await
}

/// The session cookie a response sets, as `name=value`.
pub(crate) fn session_cookie(headers: &reqwest::header::HeaderMap) -> Option<String> {
    headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("amora_session=") && !v.starts_with("amora_session=;"))
        .map(|v| v.split(';').next().unwrap_or_default().to_owned())
}

pub(crate) fn voucher_of(cookie: &str) -> String {
    cookie.trim_start_matches("amora_session=").to_owned()
}

/// Follows a mailed link; returns where it redirected and the session cookie it set.
pub(crate) async fn follow(app: &TestApp, link: &str) -> (String, Option<String>) {
    let path = link.split_once("/lust/api").map(|(_, rest)| format!("/lust/api{rest}")).unwrap();
    let response = app.get(&path).await;
    assert_eq!(response.status(), 302);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    (location, session_cookie(response.headers()))
}

/// Signs a new person in by mailed link and returns their voucher.
pub(crate) async fn sign_in_by_email(app: &TestApp, sink: &SmtpSink, email: &str) -> String {
    let before = sink.messages_to(email).len();
    assert_eq!(app.send_sign_in_link(email).await.data, json!(true));
    let link = link_in(&sink.wait_for_nth(email, before + 1).await);
    let (location, cookie) = follow(app, &link).await;
    assert_eq!(location, "/");
    voucher_of(&cookie.expect("a session cookie"))
}

#[actix_rt::test]
async fn a_mailed_link_signs_a_new_person_in_and_works_only_once() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[("AMORA_HTTP__PUBLIC_BASE_URL", "http://amora.test:8080")]).await;
    assert_eq!(app.send_sign_in_link("  Mia.Rossi@Example.com ").await.data, json!(true));

    let mail = sink.wait_for("mia.rossi@example.com").await;
    assert_eq!(mail["subject"], "Your Amora sign-in link");
    let link = link_in(&mail);
    assert!(link.starts_with("http://amora.test:8080/lust/api/login/v1/emailLoginBack?token="), "{link}");
    assert!(mail["text"].as_str().unwrap().contains("15 minutes"));

    let (location, cookie) = follow(&app, &link).await;
    assert_eq!(location, "/");
    let cookie = cookie.expect("the link sets a session cookie");
    let info = app.get_api_with_cookie(&cookie, "/user/v1/getUserInfo").await;
    assert_eq!(info.data["email"], "mia.rossi@example.com");
    let user_no = info.data["userNo"].as_str().unwrap();
    assert!(!user_no.is_empty() && user_no.len() <= 10);
    assert_eq!(info.data["userVipType"], 0);

    // The same link again: refused, no session.
    let (location, cookie) = follow(&app, &link).await;
    assert_eq!(location, "/?signInLinkExpired=1");
    assert!(cookie.is_none());
}

#[actix_rt::test]
async fn a_second_link_signs_into_the_same_account() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[]).await;
    let first = sign_in_by_email(&app, &sink, "same@example.com").await;
    let id = app.user_info_as(&first).await.data["userId"].clone();
    assert_eq!(app.send_sign_in_link("same@example.com").await.code, 200);
    let link = link_in(&sink.wait_for_nth("same@example.com", 2).await);
    let (_, cookie) = follow(&app, &link).await;
    let second = voucher_of(&cookie.unwrap());
    assert_ne!(first, second);
    assert_eq!(app.user_info_as(&second).await.data["userId"], id);
}

#[actix_rt::test]
async fn an_expired_link_is_refused() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[("AMORA_ACCOUNTS__SIGN_IN_LINK_TTL_SECS", "1")]).await;
    app.send_sign_in_link("late@example.com").await;
    let link = link_in(&sink.wait_for("late@example.com").await);
    actix_rt::time::sleep(Duration::from_millis(2100)).await;
    let (location, cookie) = follow(&app, &link).await;
    assert_eq!(location, "/?signInLinkExpired=1");
    assert!(cookie.is_none());
}

#[actix_rt::test]
async fn a_bad_address_or_missing_bot_check_is_refused_before_any_mail() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[]).await;
    assert_eq!(app.send_sign_in_link("not-an-address").await.code, 10001);
    let no_token =
        app.post_api("/login/v1/sendRegisterUserEmail", json!({ "emailAddress": "a@example.com", "cfToken": "" }));
    assert_eq!(no_token.await.code, 10008);
    actix_rt::time::sleep(Duration::from_millis(300)).await;
    assert!(sink.messages().is_empty());
}

#[actix_rt::test]
async fn without_smtp_the_mail_goes_to_the_outbox_folder() {
    let app = spawn_app_with(&[]).await;
    assert_eq!(app.send_sign_in_link("local@example.com").await.code, 200);
    let outbox = app.data_dir.join("outbox");
    let files: Vec<_> = std::fs::read_dir(&outbox).unwrap().filter_map(Result::ok).collect();
    assert_eq!(files.len(), 1);
    let eml = std::fs::read_to_string(files[0].path()).unwrap();
    assert!(eml.contains("To: local@example.com"), "{eml}");
    assert!(eml.contains("Subject: Your Amora sign-in link"));
}

#[actix_rt::test]
async fn a_session_expires() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[("AMORA_ACCOUNTS__SESSION_TTL_SECS", "1")]).await;
    let voucher = sign_in_by_email(&app, &sink, "brief@example.com").await;
    assert_eq!(app.user_info_as(&voucher).await.data["email"], "brief@example.com");
    actix_rt::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(app.user_info_as(&voucher).await.data, Value::Null);
    assert_eq!(app.get_api_as(Some(&voucher), "/user/v1/getOwnUserInfoDetail").await.code, 10004);
}

#[actix_rt::test]
async fn signing_out_revokes_the_session() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[]).await;
    let voucher = sign_in_by_email(&app, &sink, "leaving@example.com").await;
    assert_eq!(app.get_api_as(Some(&voucher), "/user/v1/getOwnUserInfoDetail").await.code, 200);
    assert_eq!(app.sign_out(&voucher).await.data, json!(true));
    assert_eq!(app.get_api_as(Some(&voucher), "/user/v1/getOwnUserInfoDetail").await.code, 10004);
    assert_eq!(app.user_info_as(&voucher).await.data, Value::Null);
}

#[actix_rt::test]
async fn a_password_set_in_settings_signs_in_with_the_id() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[]).await;
    let voucher = sign_in_by_email(&app, &sink, "pat@example.com").await;
    let user_no = app.user_info_as(&voucher).await.data["userNo"].as_str().unwrap().to_owned();

    assert_eq!(app.set_password(&voucher, None, "12345").await.code, 10001, "too short");
    assert_eq!(app.set_password(&voucher, None, "first-pass").await.data, json!(true));
    let detail = app.get_api_as(Some(&voucher), "/user/v1/getOwnUserInfoDetail").await;
    assert_eq!(detail.data["hasPassword"], true);

    let login = app.password_login(&user_no, "first-pass").await;
    assert_eq!(login.code, 200);
    let new_voucher = login.data["voucher"].as_str().unwrap().to_owned();
    assert_eq!(login.data["userInfo"]["email"], "pat@example.com");
    assert_eq!(app.user_info_as(&new_voucher).await.data["userNo"], user_no.as_str());

    let wrong = app.password_login(&user_no, "not-the-pass").await;
    assert_eq!((wrong.code, wrong.msg.as_str()), (10012, "Incorrect username or password."));
    assert_eq!(app.password_login("99999999", "first-pass").await.code, 10012, "unknown IDs answer the same");
    assert_eq!(app.password_login("12345678901", "x").await.code, 10012, "overlong IDs too");

    // Changing it needs the old one.
    assert_eq!(app.set_password(&voucher, None, "second-pass").await.code, 10001);
    assert_eq!(app.set_password(&voucher, Some("wrong-old"), "second-pass").await.code, 10012);
    assert_eq!(app.set_password(&voucher, Some("first-pass"), "second-pass").await.code, 200);
    assert_eq!(app.password_login(&user_no, "first-pass").await.code, 10012);
    assert_eq!(app.password_login(&user_no, "second-pass").await.code, 200);
}

#[actix_rt::test]
async fn password_login_sets_an_httponly_lax_cookie() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[]).await;
    let voucher = sign_in_by_email(&app, &sink, "cookie@example.com").await;
    let user_no = app.user_info_as(&voucher).await.data["userNo"].as_str().unwrap().to_owned();
    app.set_password(&voucher, None, "cookie-pass").await;
    let (envelope, headers) = app
        .post_api_as(None, "/login/v1/userPasswordLogin", json!({ "userNo": user_no, "password": "cookie-pass" }))
        .await;
    assert_eq!(envelope.code, 200);
    let raw =
        headers.get_all("set-cookie").iter().map(|v| v.to_str().unwrap().to_owned()).collect::<Vec<_>>().join("\n");
    assert!(raw.contains("amora_session="), "{raw}");
    assert!(raw.contains("HttpOnly") && raw.contains("SameSite=Lax"), "{raw}");
    assert!(!raw.contains("Secure"), "plain http installs must still get the cookie: {raw}");
    let cookie = session_cookie(&headers).unwrap();
    assert_eq!(voucher_of(&cookie), envelope.data["voucher"].as_str().unwrap());
}

#[actix_rt::test]
async fn the_password_attempt_after_the_free_failures_waits_at_that_address() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[("AMORA_LIMITS__PASSWORD_LOGIN_FREE_FAILURES", "3")]).await;
    let voucher = sign_in_by_email(&app, &sink, "target@example.com").await;
    let user_no = app.user_info_as(&voucher).await.data["userNo"].as_str().unwrap().to_owned();
    app.set_password(&voucher, None, "real-pass").await;
    for _ in 0..3 {
        assert_eq!(app.password_login(&user_no, "guess").await.code, 10012);
    }
    assert_eq!(
        app.password_login(&user_no, "real-pass").await.code,
        10003,
        "this address waits, even with the right password"
    );
}

#[actix_rt::test]
async fn the_password_attempt_after_the_address_limit_is_refused() {
    let app = spawn_app_with(&[("AMORA_LIMITS__PASSWORD_LOGIN_PER_IP_PER_MINUTE", "4")]).await;
    for n in 0..4 {
        assert_eq!(app.password_login(&format!("1000000{n}"), "guess").await.code, 10012);
    }
    assert_eq!(app.password_login("10000009", "guess").await.code, 10003);
}

#[actix_rt::test]
async fn the_link_after_the_email_limit_is_refused() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[("AMORA_LIMITS__SIGN_IN_LINKS_PER_EMAIL_PER_HOUR", "2")]).await;
    assert_eq!(app.send_sign_in_link("inbox@example.com").await.code, 200);
    assert_eq!(app.send_sign_in_link("inbox@example.com").await.code, 200);
    assert_eq!(app.send_sign_in_link("inbox@example.com").await.code, 10003);
    assert_eq!(app.send_sign_in_link("other@example.com").await.code, 200, "other inboxes are not affected");
}

#[actix_rt::test]
async fn the_link_after_the_address_limit_is_refused() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[("AMORA_LIMITS__SIGN_IN_LINKS_PER_IP_PER_HOUR", "3")]).await;
    for n in 0..3 {
        assert_eq!(app.send_sign_in_link(&format!("p{n}@example.com")).await.code, 200);
    }
    assert_eq!(app.send_sign_in_link("p9@example.com").await.code, 10003);
}

#[actix_rt::test]
async fn a_deleted_account_is_gone_and_its_email_waits_seven_days() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[]).await;
    let voucher = sign_in_by_email(&app, &sink, "gone@example.com").await;
    app.set_password(&voucher, None, "gone-pass").await;
    let user_no = app.user_info_as(&voucher).await.data["userNo"].as_str().unwrap().to_owned();

    assert_eq!(app.delete_user(&voucher).await.data, json!(true));
    assert_eq!(app.get_api_as(Some(&voucher), "/user/v1/getOwnUserInfoDetail").await.code, 10004);
    assert_eq!(app.password_login(&user_no, "gone-pass").await.code, 10012);
    let email = amora_domain::account::EmailAddress::parse("gone@example.com").unwrap();
    assert!(app.store.users.by_email(&email).await.unwrap().is_none());

    let again = app.send_sign_in_link("gone@example.com").await;
    assert_eq!(again.code, 10007);
    assert_eq!(again.msg, "Sorry, your account has already been deleted. You will need to wait 7 days to re-register.");
    let until = app.store.deletion_blocks.blocked_until(&email, 0).await.unwrap().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!((until - now - 7 * 86_400).abs() < 60, "blocked for 7 days");
}

#[actix_rt::test]
async fn after_the_block_the_email_may_register_again() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[("AMORA_ACCOUNTS__DELETION_BLOCK_SECS", "1")]).await;
    let voucher = sign_in_by_email(&app, &sink, "back@example.com").await;
    let old_id = app.user_info_as(&voucher).await.data["userId"].clone();
    app.delete_user(&voucher).await;
    actix_rt::time::sleep(Duration::from_millis(2100)).await;
    let voucher = sign_in_by_email(&app, &sink, "back@example.com").await;
    assert_ne!(app.user_info_as(&voucher).await.data["userId"], old_id, "a new account");
}

#[actix_rt::test]
async fn every_protected_endpoint_answers_token_invalid_without_a_session() {
    let app = spawn_app_with(&[]).await;
    assert_eq!(app.get_api("/user/v1/getOwnUserInfoDetail").await.code, 10004);
    for (path, payload) in [
        ("/user/v1/updateUserInfo", json!({ "userName": "x" })),
        ("/user/v1/updateUserPassword", json!({ "newPassword": "abcdef" })),
        ("/user/v1/updateWebData", json!({ "nsfw": 1 })),
        ("/user/v1/deleteUser", json!({})),
    ] {
        assert_eq!(app.post_api(path, payload.clone()).await.code, 10004, "{path}");
        let (envelope, _) = app.post_api_as(Some("forged-voucher"), path, payload).await;
        assert_eq!(envelope.code, 10004, "{path} with a forged voucher");
    }
}

#[actix_rt::test]
async fn settings_change_name_preferences_and_avatar() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[]).await;
    let voucher = sign_in_by_email(&app, &sink, "prefs@example.com").await;
    let (updated, _) = app
        .post_api_as(
            Some(&voucher),
            "/user/v1/updateUserInfo",
            json!({ "userName": "  Prefs ", "userAvatar": "/media/portrait-gf-001-1" }),
        )
        .await;
    assert_eq!(updated.data["userName"], "Prefs");
    assert_eq!(updated.data["userAvatar"], "/media/portrait-gf-001-1");
    let (bad, _) = app
        .post_api_as(
            Some(&voucher),
            "/user/v1/updateUserInfo",
            json!({ "userAvatar": "https://tracker.example/p.gif" }),
        )
        .await;
    assert_eq!(bad.code, 10001);
    let (done, _) = app
        .post_api_as(
            Some(&voucher),
            "/user/v1/updateWebData",
            json!({ "interestedGender": 1, "nsfw": 1, "language": "de" }),
        )
        .await;
    assert_eq!(done.data, json!(true));
    let detail = app.get_api_as(Some(&voucher), "/user/v1/getOwnUserInfoDetail").await.data;
    assert_eq!(
        (detail["interestedGender"].clone(), detail["nsfw"].clone(), detail["language"].clone()),
        (json!(1), json!(true), json!("de"))
    );
    let (bad, _) = app.post_api_as(Some(&voucher), "/user/v1/updateWebData", json!({ "language": "xx" })).await;
    assert_eq!(bad.code, 10001);
}

#[actix_rt::test]
async fn a_new_account_does_not_see_restricted_characters_but_an_established_one_does() {
    let sink = SmtpSink::start();
    let fresh = app_with_mail(&sink, &[]).await;
    let voucher = sign_in_by_email(&fresh, &sink, "new@example.com").await;
    let signed_out = fresh.character_list(1, 60, 0).await.data.as_array().unwrap().len();
    let (as_new, _) = fresh
        .post_api_as(
            Some(&voucher),
            "/user/v1/character/getCharacterList",
            json!({ "pageNo": 1, "pageSize": 60, "gender": 0 }),
        )
        .await;
    let new_ids = crate::helpers::ids(&as_new.data);

    let established = app_with_mail(&sink, &[("AMORA_ACCOUNTS__ESTABLISHED_AFTER_SECS", "0")]).await;
    let voucher = sign_in_by_email(&established, &sink, "old@example.com").await;
    let mut seen = Vec::new();
    for page in 1..=2 {
        let (envelope, _) = established
            .post_api_as(
                Some(&voucher),
                "/user/v1/character/getCharacterList",
                json!({ "pageNo": page, "pageSize": 60, "gender": 0 }),
            )
            .await;
        seen.extend(crate::helpers::ids(&envelope.data));
    }
    assert_eq!(new_ids.len(), signed_out);
    let public_total = {
        let mut all = Vec::new();
        for page in 1..=2 {
            all.extend(crate::helpers::ids(&established.character_list(page, 60, 0).await.data));
        }
        all.len()
    };
    assert!(seen.len() > public_total, "members see {} of which {} are public", seen.len(), public_total);
}

#[actix_rt::test]
async fn restricted_characters_show_only_while_the_browser_has_adult_content_on() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[("AMORA_ACCOUNTS__ESTABLISHED_AFTER_SECS", "0")]).await;
    let voucher = sign_in_by_email(&app, &sink, "adult@example.com").await;
    let list = |nsfw: &'static str| {
        let (app, voucher) = (&app, voucher.clone());
        async move {
            let mut ids = Vec::new();
            for page in 1..=2 {
                let (envelope, _) = app
                    .post_api_with(
                        Some(&voucher),
                        &[("nsfw", nsfw)],
                        "/user/v1/character/getCharacterList",
                        json!({ "pageNo": page, "pageSize": 60, "gender": 0 }),
                    )
                    .await;
                ids.extend(crate::helpers::ids(&envelope.data));
            }
            ids
        }
    };
    let mut public = Vec::new();
    for page in 1..=2 {
        public.extend(crate::helpers::ids(&app.character_list(page, 60, 0).await.data));
    }
    let off = list("0").await;
    let on = list("1").await;
    assert_eq!(off, public, "adult content off shows what signed-out visitors see");
    assert!(on.len() > off.len(), "adult content on adds the restricted characters ({} vs {})", on.len(), off.len());
}

#[actix_rt::test]
async fn google_credential_sign_up_creates_then_finds_the_account() {
    let provider = IdentityProvider::start().await;
    let app = spawn_app_env(provider.settings()).await;
    let credential = google_id_token(json!({ "sub": "g-123", "email": "gina@example.com" }));
    let first = app.post_api("/login/v1/googleSignUp", json!({ "credential": credential })).await;
    assert_eq!(first.code, 200);
    assert_eq!(first.data["userInfo"]["email"], "gina@example.com");
    assert_eq!(first.data["userInfo"]["userName"], "Gina");
    let again = app.post_api("/login/v1/googleSignUp", json!({ "credential": credential })).await;
    assert_eq!(again.data["userInfo"]["userId"], first.data["userInfo"]["userId"]);

    let wrong_audience = google_id_token(json!({ "aud": "someone-else" }));
    assert_eq!(app.post_api("/login/v1/googleSignUp", json!({ "credential": wrong_audience })).await.code, 10004);
    let expired = google_id_token(json!({ "exp": 1_000_000 }));
    assert_eq!(app.post_api("/login/v1/googleSignUp", json!({ "credential": expired })).await.code, 10004);
    let forged = format!("{}x", &credential[..credential.len() - 1]);
    assert_eq!(app.post_api("/login/v1/googleSignUp", json!({ "credential": forged })).await.code, 10004);
}

/// A Google flow started from `page`: (state, nonce, PKCE challenge, flow cookie).
async fn start_google(app: &TestApp, provider: &IdentityProvider, page: &str) -> (String, String, String, String) {
    let start = app.client.get(app.url("/lust/api/googleLogin")).query(&[("state", page)]).send().await.unwrap();
    assert_eq!(start.status(), 302);
    let location = url::Url::parse(start.headers()["location"].to_str().unwrap()).unwrap();
    assert!(location.as_str().starts_with(&format!("{}/google/auth", provider.base)));
    let param = |name: &str| location.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned()).unwrap();
    assert_eq!(param("scope"), "openid profile email");
    assert_eq!(param("response_type"), "code");
    assert_eq!(param("redirect_uri"), "http://localhost:8080/lust/api/googleLoginBack");
    assert_eq!(param("code_challenge_method"), "S256");
    assert_ne!(param("state"), page, "state is a random flow id, not the page");
    let cookie = start.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
    (param("state"), param("nonce"), param("code_challenge"), cookie)
}

#[actix_rt::test]
async fn google_redirect_sign_in_checks_the_nonce_and_returns_to_the_page() {
    let provider = IdentityProvider::start().await;
    let mut env = provider.settings();
    env.push(("AMORA_HTTP__PUBLIC_BASE_URL".into(), "http://localhost:8080".into()));
    let app = spawn_app_env(env).await;
    let page = "http://localhost:8080/ai-boyfriend";

    let callback = |code: String, state: String, cookie: Option<String>| {
        let mut request =
            app.client.get(app.url("/lust/api/googleLoginBack")).query(&[("code", code.as_str()), ("state", &state)]);
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        request.send()
    };
    let (state, nonce, challenge, flow_cookie) = start_google(&app, &provider, page).await;
    // Without the flow cookie (another browser) it is refused.
    let code = code_for(&json!({ "sub": "g-9", "nonce": nonce, "code_challenge": challenge }));
    let foreign = callback(code, state.clone(), None).await.unwrap();
    assert_eq!(foreign.headers()["location"], "/?signInFailed=1");
    // A code whose ID token carries another nonce is refused (and the flow is used up).
    let code = code_for(&json!({ "sub": "g-9", "nonce": "someone-elses", "code_challenge": challenge }));
    let replayed = callback(code, state, Some(flow_cookie)).await.unwrap();
    assert_eq!(replayed.headers()["location"], "/?signInFailed=1");

    let (state, nonce, challenge, flow_cookie) = start_google(&app, &provider, page).await;
    let code = code_for(
        &json!({ "sub": "g-9", "email": "redirect@example.com", "nonce": nonce, "code_challenge": challenge }),
    );
    let response = callback(code, state, Some(flow_cookie)).await.unwrap();
    assert_eq!(response.status(), 302);
    assert_eq!(response.headers()["location"], "/ai-boyfriend");
    let cookie = session_cookie(response.headers()).expect("session cookie");
    assert_eq!(app.get_api_with_cookie(&cookie, "/user/v1/getUserInfo").await.data["email"], "redirect@example.com");
}

#[actix_rt::test]
async fn discord_redirect_sign_in_links_a_verified_email_to_its_account() {
    let sink = SmtpSink::start();
    let provider = IdentityProvider::start().await;
    let mut env = provider.settings();
    env.push(("AMORA_MAIL__SMTP_URL".into(), sink.url()));
    let app = spawn_app_env(env).await;
    let voucher = sign_in_by_email(&app, &sink, "dana@example.com").await;
    let user_id = app.user_info_as(&voucher).await.data["userId"].clone();

    let start = app.get("/lust/api/discordLogin?state=%2Fgallery").await;
    let location = url::Url::parse(start.headers()["location"].to_str().unwrap()).unwrap();
    let param = |name: &str| location.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    assert_eq!(param("scope").as_deref(), Some("identify email"));
    let flow_state = param("state").unwrap();
    let flow_cookie = start.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
    let code = code_for(&json!({
        "id": "d-42", "username": "dana", "email": "dana@example.com", "verified": true,
        "code_challenge": param("code_challenge").unwrap(),
    }));
    let response = app
        .client
        .get(app.url("/lust/api/discordLoginBack"))
        .query(&[("code", code.as_str()), ("state", flow_state.as_str())])
        .header("cookie", flow_cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["location"], "/gallery");
    let cookie = session_cookie(response.headers()).unwrap();
    let info = app.get_api_with_cookie(&cookie, "/user/v1/getUserInfo").await.data;
    assert_eq!(info["userId"], user_id, "the verified email found the existing account");
    assert_eq!(info["discordEmail"], "dana@example.com");
}

#[actix_rt::test]
async fn a_deleted_accounts_provider_sign_in_lands_on_the_notice() {
    let provider = IdentityProvider::start().await;
    let app = spawn_app_env(provider.settings()).await;
    let credential = google_id_token(json!({ "sub": "g-del", "email": "del@example.com" }));
    let voucher = app.post_api("/login/v1/googleSignUp", json!({ "credential": credential })).await.data["voucher"]
        .as_str()
        .unwrap()
        .to_owned();
    app.delete_user(&voucher).await;
    assert_eq!(app.post_api("/login/v1/googleSignUp", json!({ "credential": credential })).await.code, 10007);
}

#[actix_rt::test]
async fn without_client_ids_the_providers_are_off_and_web_config_says_so() {
    let app = spawn_app_with(&[]).await;
    let config = app.web_config().await.data;
    assert_eq!(config["signIn"]["googleEnabled"], false);
    assert_eq!(config["signIn"]["discordEnabled"], false);
    assert_eq!(config["signIn"]["botCheckMode"], "development");
    assert_eq!(app.get("/lust/api/googleLogin?state=%2F").await.headers()["location"], "/?signInUnavailable=google");
    assert_eq!(app.post_api("/login/v1/googleSignUp", json!({ "credential": "x" })).await.code, 10006);
}

#[actix_rt::test]
async fn an_operator_creates_an_account_that_signs_in_with_its_user_no_and_password() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", "operator-token")]).await;
    let create = |body: Value| {
        app.client.post(app.url("/lust/admin/createUser")).bearer_auth("operator-token").json(&body).send()
    };
    let created = create(json!({ "email": "load-1@example.com", "password": "secret12" })).await.unwrap();
    assert_eq!(created.status(), 200);
    let created: Value = created.json().await.unwrap();
    assert_eq!(created["outcome"], "created");
    let user_no = created["userNo"].as_str().unwrap().to_owned();

    let signed_in = app.password_login(&user_no, "secret12").await;
    assert_eq!(signed_in.code, 200, "{}", signed_in.msg);
    assert_eq!(signed_in.data["userInfo"]["email"], "load-1@example.com");
    let name = signed_in.data["userInfo"]["userName"].as_str().unwrap();
    assert!(!name.to_lowercase().contains("load"), "a generated name, never the address: {name}");
    assert_eq!(app.password_login(&user_no, "wrong-one").await.code, 10012);

    let again = create(json!({ "email": "LOAD-1@example.com" })).await.unwrap();
    assert_eq!(again.status(), 409, "one account per address");
    let short = create(json!({ "email": "load-2@example.com", "password": "123" })).await.unwrap();
    assert_eq!(short.status(), 400);
    let named = create(json!({ "email": "load-3@example.com", "userName": "Zed" })).await.unwrap();
    assert_eq!(named.json::<Value>().await.unwrap()["outcome"], "created");
    let stranger = app
        .client
        .post(app.url("/lust/admin/createUser"))
        .bearer_auth("guess")
        .json(&json!({ "email": "x@example.com" }))
        .send()
        .await
        .unwrap();
    assert_eq!(stranger.status(), 401);
}

/// Issue 30: characters called people by their address's local part ("come here,
/// uxaudit8281908"), and memories were written about it.
#[actix_rt::test]
async fn a_new_account_gets_a_generated_name_never_its_email_prefix() {
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[]).await;
    let voucher = sign_in_by_email(&app, &sink, "uxaudit8281908@example.com").await;
    let info = app.user_info_as(&voucher).await;
    let name = info.data["userName"].as_str().unwrap();
    assert!(!name.to_lowercase().contains("uxaudit"), "{name}");
    assert_eq!(name.split(' ').count(), 2, "an adjective and a noun: {name}");
    // The user may still choose another.
    let (renamed, _) = app.post_api_as(Some(&voucher), "/user/v1/updateUserInfo", json!({ "userName": "Tomas" })).await;
    assert_eq!(renamed.data["userName"], "Tomas");
    assert_eq!(app.user_info_as(&voucher).await.data["userName"], "Tomas");
}

/// Accounts made before generated names keep no e-mail prefix name: the first time the
/// account is loaded (here, signing in) it gets its generated name, written to the store.
#[actix_rt::test]
async fn an_old_account_named_by_its_email_prefix_is_renamed_when_it_signs_in() {
    use amora_domain::account::{EmailAddress, GENERATED_NAMES_SINCE, UserId, UserNo};
    let sink = SmtpSink::start();
    let app = app_with_mail(&sink, &[]).await;
    let make = |id: &str, no: u32, name: &str, email: &str| amora_store::NewUser {
        user_id: UserId::parse(id).unwrap(),
        user_no: UserNo::from_random(no),
        user_name: name.into(),
        email: Some(EmailAddress::parse(email).unwrap()),
        discord_email: None,
        google_subject: None,
        discord_id: None,
        utm_source: String::new(),
        language: "en".into(),
        created_at: GENERATED_NAMES_SINCE - 30 * 86_400,
    };
    app.store.users.create(make("legacy1", 11, "uxaudit8281908", "uxaudit8281908@example.com")).await.unwrap();
    app.store.users.create(make("legacy2", 12, "Tomas", "tomas.k@example.com")).await.unwrap();

    let voucher = sign_in_by_email(&app, &sink, "uxaudit8281908@example.com").await;
    let name = app.user_info_as(&voucher).await.data["userName"].as_str().unwrap().to_owned();
    assert!(!name.to_lowercase().contains("uxaudit"), "{name}");
    let stored = app.store.users.by_id(&UserId::parse("legacy1").unwrap()).await.unwrap().unwrap();
    assert_eq!(stored.user_name, name, "written once, not only shown");

    // A name the person chose stays.
    let voucher = sign_in_by_email(&app, &sink, "tomas.k@example.com").await;
    assert_eq!(app.user_info_as(&voucher).await.data["userName"], "Tomas");
}
