//! Sending one message: over SMTP (`--smtp-url`) or, with no SMTP server set, into an `.eml`
//! file in `<data-dir>/mail/`. What to send, and when, is the domain's (`domain::outbox::mail`).

use std::path::PathBuf;
use std::time::Duration;

use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::storage::outbox::mail::QueuedMail;

/// Where messages go.
pub enum Transport {
    /// An SMTP server.
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    /// `.eml` files in a directory (no SMTP server set).
    Files(PathBuf),
}

/// How the service sends mail: the transport and the sender. (Links in messages start with
/// `AppState::public_url`.)
pub struct Mailer {
    pub transport: Transport,
    pub from: Mailbox,
}

impl Mailer {
    /// A mailer for `smtp_url` (`smtp://`, `smtps://`; `?tls=required` for STARTTLS; user and
    /// password in the URL), or writing files to `dir` when there is none.
    pub fn new(smtp_url: Option<&str>, from: &str, dir: PathBuf) -> anyhow::Result<Mailer> {
        let transport = match smtp_url {
            Some(url) => Transport::Smtp(
                AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .map_err(|e| anyhow::anyhow!("--smtp-url: {e}"))?
                    .timeout(Some(Duration::from_secs(20)))
                    .build(),
            ),
            None => Transport::Files(dir),
        };
        let from: Mailbox = from
            .parse()
            .map_err(|e| anyhow::anyhow!("--mail-from {from:?} is not a mail address: {e}"))?;
        Ok(Mailer { transport, from })
    }

    /// Builds the message (plain text and HTML; `List-Unsubscribe` for a message sent to many).
    pub fn message(&self, m: &QueuedMail) -> anyhow::Result<Message> {
        let to = Mailbox::new(m.to_name.as_deref().map(header_text), m.to_address.parse()?);
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(header_text(&m.subject))
            .message_id(Some(format!(
                "<mail-{}.{}@{}>",
                m.id,
                m.kind,
                self.from.email.domain()
            )));
        if let Some(url) = &m.unsubscribe {
            builder = builder
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe"),
                    format!("<{}>", header_text(url)),
                ))
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                    "List-Unsubscribe=One-Click".to_string(),
                ));
        }
        Ok(builder.multipart(
            MultiPart::alternative()
                .singlepart(SinglePart::plain(m.text_body.clone()))
                .singlepart(SinglePart::html(m.html_body.clone())),
        )?)
    }

    /// Sends one message: to the SMTP server, or into its file.
    pub async fn send(&self, m: &QueuedMail) -> std::result::Result<(), String> {
        let message = self
            .message(m)
            .map_err(|e| format!("building the message: {e}"))?;
        match &self.transport {
            Transport::Smtp(smtp) => smtp.send(message).await.map(|_| ()).map_err(|e| {
                let text = e.to_string();
                // An SMTP server's refusal can quote the address; keep the log line short.
                text.chars().take(300).collect()
            }),
            Transport::Files(dir) => {
                let path = dir.join(format!("{:06}-{}.eml", m.id, m.kind));
                let bytes = message.formatted();
                let written = tokio::fs::create_dir_all(dir)
                    .await
                    .and(tokio::fs::write(&path, bytes).await);
                match written {
                    Ok(()) => {
                        tracing::info!(to = %m.to_address, kind = %m.kind, file = %path.display(),
                            "mail written (no SMTP server set: --smtp-url)");
                        Ok(())
                    }
                    Err(e) => Err(format!("writing {}: {e}", path.display())),
                }
            }
        }
    }
}

/// Whether `text` is one mailbox, as the mail sender will take it (`rose@example.org`; not
/// `Rose <rose@example.org>`, not two addresses, not `a@b@c.example`).
pub fn is_mailbox(text: &str) -> bool {
    text.parse::<lettre::Address>().is_ok()
}

/// Text for a header: line breaks and other control characters become spaces, so a name or a
/// subject can never start a header of its own.
pub fn header_text(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Text for an HTML body.
pub fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_sender_or_smtp_url_is_refused_naming_the_setting() {
        let dir = PathBuf::from("/nonexistent");
        let e = Mailer::new(None, "not an address", dir.clone())
            .err()
            .unwrap();
        assert!(
            e.to_string().contains("--mail-from \"not an address\""),
            "{e}"
        );
        let e = Mailer::new(Some("gopher://x"), "a@example.org", dir.clone())
            .err()
            .unwrap();
        assert!(e.to_string().starts_with("--smtp-url:"), "{e}");
        assert!(Mailer::new(None, "League <league@example.org>", dir).is_ok());
    }

    #[test]
    fn line_breaks_never_reach_a_header() {
        assert_eq!(
            header_text("Ann\r\nBcc: all@example.org"),
            "Ann  Bcc: all@example.org"
        );
        assert_eq!(header_text(" Rose\u{0}\t"), "Rose");
    }
}
