//! Site configuration, the price list and the signed-out user.

use serde_json::Value;

use crate::helpers::{spawn_app, spawn_app_with};

#[actix_rt::test]
async fn web_config_has_the_default_costs_and_only_configured_social_links() {
    let app = spawn_app_with(&[("AMORA_WEB__SOCIAL__DISCORD", "https://discord.example/invite")]).await;
    let envelope = app.web_config().await;
    assert_eq!(envelope.code, 200);
    assert_eq!(envelope.data["defaultEnergy"]["genVoiceCoin"], 2);
    assert_eq!(envelope.data["defaultEnergy"]["genPictureCoin"], 20);
    assert_eq!(envelope.data["social"]["discord"], "https://discord.example/invite");
    assert!(envelope.data["social"].get("reddit").is_none());
    assert_eq!(envelope.data["appVersion"], "0.0.101");
}

#[actix_rt::test]
async fn vip_data_lists_three_plans_and_six_coin_packages() {
    let app = spawn_app().await;
    let data = app.vip_data().await.data;
    let plan_ids: Vec<&str> =
        data["plans"].as_array().unwrap().iter().map(|p| p["productId"].as_str().unwrap()).collect();
    assert_eq!(plan_ids, ["month_1", "quarter_1", "year_1"]);
    let package_ids: Vec<&str> =
        data["coinPackages"].as_array().unwrap().iter().map(|p| p["productId"].as_str().unwrap()).collect();
    assert_eq!(package_ids, ["coin_1", "coin_2", "coin_3", "coin_4", "coin_5", "coin_6"]);
    let month = &data["plans"][0];
    assert_eq!(month["price"], "12.99");
    assert_eq!(month["currency"], "USD");
    assert!(month["coinsPerPeriod"].as_i64().is_some_and(|c| c > 0));
}

#[actix_rt::test]
async fn get_user_info_is_null_when_signed_out() {
    let app = spawn_app().await;
    let envelope = app.user_info().await;
    assert_eq!(envelope.code, 200);
    assert_eq!(envelope.data, Value::Null);
}
