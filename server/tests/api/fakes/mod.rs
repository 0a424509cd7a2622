//! Loopback servers that follow payment processors' published protocols, so each provider
//! is tested over real HTTP against its processor's behaviour (issue 14).

pub mod paypal;
