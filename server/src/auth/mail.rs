//! Outgoing mail: SMTP (lettre) when `mail.smtp_url` is set; otherwise each message is
//! written to `<store.data_dir>/outbox/` as an `.eml` file and the link is logged, so a
//! person running Amora locally can still sign in.

use std::path::PathBuf;

use amora_domain::account::EmailAddress;
use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::api::ApiError;
use crate::settings::Settings;

#[derive(Clone)]
pub enum Mailer {
    Smtp { transport: AsyncSmtpTransport<Tokio1Executor>, from: Mailbox },
    Outbox { dir: PathBuf, from: Mailbox },
}

impl Mailer {
    pub fn from_settings(settings: &Settings) -> anyhow::Result<Self> {
        let from: Mailbox = settings.mail.from.parse().map_err(|e| anyhow::anyhow!("mail.from: {e}"))?;
        if settings.mail.smtp_url.is_empty() {
            let dir = settings.store.data_dir.join("outbox");
            tracing::warn!(dir = %dir.display(), "mail.smtp_url is empty: sign-in mail is written to the outbox folder");
            return Ok(Mailer::Outbox { dir, from });
        }
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(&settings.mail.smtp_url)
            .map_err(|e| anyhow::anyhow!("mail.smtp_url: {e}"))?
            .build();
        Ok(Mailer::Smtp { transport, from })
    }

    /// Sends the one-time sign-in link to `to`.
    pub async fn send_sign_in_link(&self, to: &EmailAddress, link: &str, minutes_valid: i64) -> Result<(), ApiError> {
        let text = format!(
            "Hi,\n\nUse this link to sign in to Amora. It works once and expires in {minutes_valid} minutes:\n\n{link}\n\n\
             If you did not ask for it, ignore this message; nobody can sign in without the link.\n"
        );
        // The link's `&` (before `to=`) is `&amp;` inside an HTML attribute.
        let href = link.replace('&', "&amp;");
        let html = format!(
            "<p>Hi,</p><p>Use this link to sign in to Amora. It works once and expires in {minutes_valid} minutes:</p>\
             <p><a href=\"{href}\">Sign in to Amora</a></p>\
             <p>If you did not ask for it, ignore this message; nobody can sign in without the link.</p>"
        );
        self.send(to, "Your Amora sign-in link", text, html).await?;
        if matches!(self, Mailer::Outbox { .. }) {
            tracing::info!(%to, %link, "sign-in link written to the outbox (no SMTP configured)");
        }
        Ok(())
    }

    /// Sends one message (plain text and HTML) to `to`, by SMTP or into the outbox.
    pub async fn send(&self, to: &EmailAddress, subject: &str, text: String, html: String) -> Result<(), ApiError> {
        let from = match self {
            Mailer::Smtp { from, .. } | Mailer::Outbox { from, .. } => from.clone(),
        };
        let to_mailbox: Mailbox =
            to.as_str().parse().map_err(|e| ApiError::Internal(format!("recipient {to} unusable: {e}")))?;
        let message = Message::builder()
            .from(from)
            .to(to_mailbox)
            .subject(subject)
            .multipart(MultiPart::alternative_plain_html(text, html))
            .map_err(|e| ApiError::Internal(format!("cannot build mail: {e}")))?;
        match self {
            Mailer::Smtp { transport, .. } => {
                transport.send(message).await.map_err(|e| ApiError::Internal(format!("SMTP send failed: {e}")))?;
            }
            Mailer::Outbox { dir, .. } => {
                let bytes = message.formatted();
                let path = dir.join(format!("{}-{}.eml", super::now(), &super::random_token()[..8]));
                let dir = dir.clone();
                tokio::task::spawn_blocking(move || {
                    std::fs::create_dir_all(&dir)?;
                    std::fs::write(&path, bytes)
                })
                .await
                .map_err(|e| ApiError::Internal(format!("outbox task failed: {e}")))?
                .map_err(|e| ApiError::Internal(format!("cannot write to the outbox: {e}")))?;
            }
        }
        Ok(())
    }
}
