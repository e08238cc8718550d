//! A real SMTP server for the tests: it speaks SMTP over TCP on 127.0.0.1 (EHLO, AUTH, MAIL,
//! RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT), keeps every message it accepts, and can be
//! stopped and started again on the same port (an SMTP server that is away for a while).

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A message as the server received it.
#[derive(Debug, Clone)]
pub struct Received {
    pub from: String,
    pub to: Vec<String>,
    /// The message as sent after DATA, dot-unstuffed, with CRLF line ends.
    pub data: Vec<u8>,
}

impl Received {
    /// The message parsed.
    pub fn parsed(&self) -> mail_parser::Message<'_> {
        mail_parser::MessageParser::default()
            .parse(&self.data)
            .expect("a message that parses")
    }

    /// The plain-text part.
    pub fn text(&self) -> String {
        self.parsed()
            .body_text(0)
            .expect("a plain-text part")
            .into_owned()
    }

    /// The HTML part.
    pub fn html(&self) -> String {
        self.parsed()
            .body_html(0)
            .expect("an HTML part")
            .into_owned()
    }

    /// What the message is, from its Message-ID (`<mail-N.kind@…>`): `signup`, `invitation`, …
    pub fn kind(&self) -> String {
        self.parsed()
            .message_id()
            .and_then(|id| id.split('@').next())
            .and_then(|local| local.split('.').nth(1))
            .unwrap_or_default()
            .to_string()
    }

    /// The first link to this service's `path_start` in the plain-text part.
    pub fn link(&self, path_start: &str) -> String {
        let text = self.text();
        text.split_whitespace()
            .find(|w| w.starts_with("http") && w.contains(path_start))
            .unwrap_or_else(|| panic!("no link to {path_start} in {text}"))
            .to_string()
    }
}

pub struct SmtpSink {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    server: Option<tokio::task::JoinHandle<()>>,
}

impl SmtpSink {
    /// A server on a free port.
    pub async fn start() -> SmtpSink {
        SmtpSink::start_on(0).await
    }

    /// A server on `port` (0: a free one).
    pub async fn start_on(port: u16) -> SmtpSink {
        let received: Arc<Mutex<Vec<Received>>> = Arc::default();
        let (port, server) = listen(port, received.clone()).await;
        SmtpSink {
            port,
            received,
            server: Some(server),
        }
    }

    /// Its URL for `--smtp-url` (plain SMTP, with a user and password).
    pub fn url(&self) -> String {
        format!("smtp://league:secret@127.0.0.1:{}", self.port)
    }

    /// Stops listening (the port refuses connections until it is started again).
    pub fn stop(&mut self) {
        if let Some(server) = self.server.take() {
            server.abort();
        }
    }

    /// Starts listening again on the same port, keeping what was received.
    pub async fn restart(&mut self) {
        self.stop();
        let (_, server) = listen(self.port, self.received.clone()).await;
        self.server = Some(server);
    }

    /// The messages received, but the links that finish a sign-up: those are the setup of the
    /// accounts a test uses (`common::signed_up`), and a test of sign-up reads `signups`.
    pub fn messages(&self) -> Vec<Received> {
        self.all()
            .into_iter()
            .filter(|m| m.kind() != "signup")
            .collect()
    }

    /// The sign-up links received.
    pub fn signups(&self) -> Vec<Received> {
        self.all()
            .into_iter()
            .filter(|m| m.kind() == "signup")
            .collect()
    }

    fn all(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until at least `n` messages have arrived (at most 20 s), and answers them all.
    pub async fn wait_for(&self, n: usize) -> Vec<Received> {
        for _ in 0..200 {
            let got = self.messages();
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let got: Vec<String> = self
            .messages()
            .iter()
            .map(|m| format!("{:?}: {:?}", m.to, m.parsed().subject().unwrap_or("")))
            .collect();
        panic!("{n} messages did not arrive; {} did: {got:#?}", got.len());
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Accepts connections on `port` until aborted, keeping messages in `kept`.
async fn listen(port: u16, kept: Arc<Mutex<Vec<Received>>>) -> (u16, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("bind the SMTP sink");
    let port = listener.local_addr().unwrap().port();
    let server = tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let kept = kept.clone();
            tokio::spawn(async move {
                let _ = session(socket, kept).await;
            });
        }
    });
    (port, server)
}

async fn session(
    socket: tokio::net::TcpStream,
    kept: Arc<Mutex<Vec<Received>>>,
) -> std::io::Result<()> {
    let (read, mut write) = socket.into_split();
    let mut lines = BufReader::new(read);
    write.write_all(b"220 sink.test ESMTP ready\r\n").await?;
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_string();
        let verb = command
            .split([' ', ':'])
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        match verb.as_str() {
            "EHLO" => write
                .write_all(
                    b"250-sink.test\r\n250-AUTH PLAIN LOGIN\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n",
                )
                .await?,
            "HELO" => write.write_all(b"250 sink.test\r\n").await?,
            "AUTH" => write.write_all(b"235 2.7.0 accepted\r\n").await?,
            "MAIL" => {
                from = address_in(&command);
                to.clear();
                write.write_all(b"250 2.1.0 OK\r\n").await?
            }
            "RCPT" => {
                to.push(address_in(&command));
                write.write_all(b"250 2.1.5 OK\r\n").await?
            }
            "DATA" => {
                write.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                let mut data = Vec::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line).await? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    let text = line.strip_prefix('.').unwrap_or(&line);
                    data.extend_from_slice(text.as_bytes());
                }
                kept.lock().unwrap().push(Received {
                    from: from.clone(),
                    to: to.clone(),
                    data,
                });
                write.write_all(b"250 2.0.0 queued\r\n").await?
            }
            "RSET" | "NOOP" => write.write_all(b"250 2.0.0 OK\r\n").await?,
            "QUIT" => {
                write.write_all(b"221 2.0.0 bye\r\n").await?;
                return Ok(());
            }
            _ => write.write_all(b"502 5.5.2 not understood\r\n").await?,
        }
    }
}

/// `user@host` from `MAIL FROM:<user@host> ...` or `RCPT TO:<user@host>`.
fn address_in(command: &str) -> String {
    command
        .split('<')
        .nth(1)
        .and_then(|r| r.split('>').next())
        .unwrap_or("")
        .to_string()
}
