//! Amora's HTTP server: routing, the encrypted envelope, the static app, health and
//! metrics. `startup::Application` is the whole server; `main` only reads the command line.

pub mod admin;
pub mod api;
pub mod api_types;
pub mod auth;
pub mod blog;
pub mod client_address;
pub mod creation;
pub mod envelope;
pub mod login_throttle;
pub mod observability;
pub mod payments;
pub mod rate_limit;
pub mod request_log;
pub mod routes;
pub mod settings;
pub mod startup;
pub mod state;
pub mod web;
