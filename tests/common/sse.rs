//! A Server-Sent Events client for the tests: reads a `text/event-stream` answer chunk by chunk
//! and parses it into events as the SSE format defines them (`id:`, `event:`, `data:` lines, a
//! blank line ending each event, `:` comments ignored).
#![allow(dead_code)]

use std::time::Duration;

use serde_json::Value;

#[derive(Debug, Clone)]
pub struct SseEvent {
    pub id: i64,
    pub kind: String,
    pub data: Value,
}

pub struct Sse {
    res: reqwest::Response,
    buffer: String,
    pub last_id: Option<i64>,
}

impl Sse {
    /// Opens the stream at `url` (with `Last-Event-ID` when given); panics unless it is 200.
    pub async fn open(client: &reqwest::Client, url: &str, last_id: Option<i64>) -> Sse {
        let mut req = client.get(url).header("accept", "text/event-stream");
        if let Some(id) = last_id {
            req = req.header("last-event-id", id.to_string());
        }
        let res = req.send().await.expect("stream opened");
        assert_eq!(res.status(), 200, "{url}");
        assert!(
            res.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        Sse {
            res,
            buffer: String::new(),
            last_id,
        }
    }

    /// The next event, or `None` when none comes within `wait` (or the stream ended).
    pub async fn next(&mut self, wait: Duration) -> Option<SseEvent> {
        let until = tokio::time::Instant::now() + wait;
        loop {
            if let Some(event) = self.parse_one() {
                return Some(event);
            }
            let left = until.saturating_duration_since(tokio::time::Instant::now());
            match tokio::time::timeout(left, self.res.chunk()).await {
                Ok(Ok(Some(bytes))) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                _ => return None,
            }
        }
    }

    /// Every event that arrives until none comes for `quiet`.
    pub async fn drain(&mut self, quiet: Duration) -> Vec<SseEvent> {
        let mut all = Vec::new();
        while let Some(e) = self.next(quiet).await {
            all.push(e);
        }
        all
    }

    fn parse_one(&mut self) -> Option<SseEvent> {
        loop {
            let end = self.buffer.find("\n\n")?;
            let block: String = self.buffer.drain(..end + 2).collect();
            let (mut id, mut kind, mut data) = (None, String::from("message"), String::new());
            for line in block.lines() {
                if line.starts_with(':') {
                    continue;
                }
                let (field, value) = line.split_once(':').unwrap_or((line, ""));
                let value = value.strip_prefix(' ').unwrap_or(value);
                match field {
                    "id" => id = value.parse().ok(),
                    "event" => kind = value.to_string(),
                    "data" => {
                        if !data.is_empty() {
                            data.push('\n');
                        }
                        data.push_str(value);
                    }
                    _ => {}
                }
            }
            if data.is_empty() {
                continue;
            }
            let id = id.expect("every event has an id");
            self.last_id = Some(id);
            return Some(SseEvent {
                id,
                kind,
                data: serde_json::from_str(&data).expect("data is JSON"),
            });
        }
    }
}
