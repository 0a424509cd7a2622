//! The operator console's API (issue 33): operators made by the token API (as
//! `amora admin create-operator` does) sign in with a TOTP code computed here from the
//! secret; a wrong code is refused and repeated failures meet the limit; a moderator is
//! refused the money routes; an admin's credit moves the ledger and the balance; every
//! action lands in the audit log with its operator, target and reason; the shared-token
//! `/lust/admin` keeps working and is never accepted in the console.

use serde_json::{Value, json};
use totp_rs::{Algorithm, Secret, TOTP};

use crate::cluster::make_user;
use crate::helpers::{TestApp, spawn_app};

const TOKEN: &str = "operator-token";

struct Created {
    email: String,
    password: String,
    secret: String,
}

async fn create_operator(app: &TestApp, email: &str, role: &str) -> Created {
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
fn current_code(secret: &str) -> String {
    let bytes = Secret::Encoded(secret.to_owned()).to_bytes().unwrap();
    TOTP::new(Algorithm::SHA1, 6, 1, 30, bytes, None, String::new()).unwrap().generate_current().unwrap()
}

/// A code that is none of the accepted ones (now, the step before, the step after).
fn wrong_code(secret: &str) -> String {
    let right: u32 = current_code(secret).parse().unwrap();
    format!("{:06}", (right + 333_333) % 1_000_000)
}

async fn sign_in(app: &TestApp, operator: &Created, code: &str) -> (u16, Option<String>, Value) {
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
fn cookie_pair(set_cookie: &str) -> String {
    set_cookie.split(';').next().unwrap().to_owned()
}

async fn console_post(app: &TestApp, cookie: &str, path: &str, body: Value) -> (u16, Value) {
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

async fn console_get(app: &TestApp, cookie: &str, path: &str) -> (u16, Value) {
    let response =
        app.client.get(app.url(&format!("/lust/operator/api/{path}"))).header("cookie", cookie).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

#[actix_rt::test]
async fn an_operator_signs_in_with_a_totp_code_and_a_wrong_one_is_refused_until_the_limit() {
    let app = spawn_app().await;
    let admin = create_operator(&app, "boss@example.com", "admin").await;

    let (status, cookie, answer) = sign_in(&app, &admin, &wrong_code(&admin.secret)).await;
    assert_eq!(status, 403, "{answer}");
    assert!(cookie.is_none());
    assert_eq!(answer["error"], "wrong e-mail, password or code");

    let (status, cookie, answer) = sign_in(&app, &admin, &current_code(&admin.secret)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["role"], "admin");
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
    let app = spawn_app().await;
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
