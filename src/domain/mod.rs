//! The product's operations, called by both adapters (`api` for JSON, `pages` for HTML forms).
//!
//! Each operation takes the shared state, the caller and typed input; it checks access first
//! (before any work that grows with the input), then calls `storage` and `rules`, and answers
//! typed output or an [`Error`]. Nothing here knows HTTP: no requests, responses, headers,
//! cookies or status codes. The types that travel as JSON derive `serde` and `utoipa`'s
//! `ToSchema` (a description of their shape), so the API documents the domain's own types.

pub mod access;
pub mod cards;
pub mod clock;
pub mod history;
pub mod outbox;
pub mod paging;
pub mod people;
pub mod play;
pub mod schemas;
pub mod seasons;
pub mod text;

use serde::Serialize;
use utoipa::ToSchema;

pub use crate::state::AppState;
pub use access::{Access, Caller, HeldTable, Need, Principal, Role};

/// One field that is wrong, and why.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq, Eq)]
pub struct FieldError {
    /// Where the problem is, as a JSON path (`exposures[1]`, `hand`).
    pub field: String,
    pub message: String,
    /// For a card file: the line of the problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// For a card file: the hand's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<String>,
    /// What was probably meant, ready to send instead (a time zone's IANA name for
    /// `Eastern`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "America/New_York")]
    pub suggestion: Option<String>,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            message: message.into(),
            line: None,
            hand: None,
            suggestion: None,
        }
    }
}

/// The game that holds a number at a table, for a 409 when another game asks for it.
#[derive(Serialize, serde::Deserialize, ToSchema, Debug, Clone)]
pub struct TakenGame {
    /// The number at the table.
    #[schema(example = 3)]
    pub number: i32,
    /// The stored game's id (`GET /api/v1/games/{id}`).
    pub game: i64,
    /// The stored game in words, with the players' names.
    #[schema(example = "Ann went out, self-pick: 2468#2 (25)")]
    pub summary: String,
}

/// A night that is closed, for a 409 when a game is sent to one of its tables.
#[derive(Serialize, serde::Deserialize, ToSchema, Debug, Clone)]
pub struct ClosedNight {
    /// The night's id (`POST /api/v1/nights/{id}/reopen`).
    pub id: i64,
    /// Its number in the league, as people call it.
    #[schema(example = 7)]
    pub number: i32,
}

/// Why an operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// There is no such thing, or the caller may not know that there is.
    #[error("{0}")]
    NotFound(String),
    /// The caller has to say who they are (log in, or send a token).
    #[error("{0}")]
    Unauthorized(String),
    /// The caller is known but not allowed.
    #[error("{0}")]
    Forbidden(String),
    /// The input does not stand: each wrong field and why.
    #[error("{detail}")]
    Invalid {
        detail: String,
        errors: Vec<FieldError>,
    },
    /// The operation clashes with what is stored (a taken name, a recorded game, a closed night).
    #[error("{0}")]
    Conflict(String),
    /// A game's number at its table is taken by another game (entered on another device): a
    /// conflict that says which game holds the number, so the scorer can tell whether the two
    /// are the same game.
    #[error("{detail}")]
    Taken { detail: String, taken: TakenGame },
    /// A game for a table whose night is closed: a conflict that names the night, so a tablet
    /// can keep the game and send it when the night is reopened.
    #[error("{detail}")]
    NightClosed { detail: String, night: ClosedNight },
    /// The caller's copy is out of date (a game's version moved on).
    #[error("{0}")]
    Stale(String),
    /// A change that must name the version it corrects did not.
    #[error("{0}")]
    VersionRequired(String),
    /// Over a rate limit: try again after the wait.
    #[error("{detail}")]
    TooManyRequests {
        detail: String,
        retry_after_secs: u64,
    },
    /// Something this operation needs does not answer; try again later.
    #[error("{0}")]
    Unavailable(String),
    /// Ours: logged, never shown in detail.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<sqlx::Error> for Error {
    /// The database away (no connection within the pool's wait, a connection lost, the server
    /// shutting down or refusing connections) is `Unavailable`: the client may try again.
    fn from(e: sqlx::Error) -> Self {
        if crate::storage::is_disk_full(&e) {
            tracing::error!(error = %e, "the database's disk is full");
            return Error::Unavailable(
                "the database's disk is full, so nothing was stored: the service's administrator must free space; then send this again".into(),
            );
        }
        if crate::storage::is_unavailable(&e) {
            // Which of the ways it was away (the pool's wait run out, the server refusing
            // connections, a connection lost) is for the log: the client is told to try again.
            tracing::warn!(error = %e, "the database did not answer; answering 503");
            return Error::Unavailable(
                "the database does not answer; try again in a moment".into(),
            );
        }
        if crate::storage::is_collision(&e) {
            tracing::warn!(error = %e, "two transactions met; the request is refused with 409");
            return Error::Conflict(
                "another change to the same thing was being saved at the same moment, so this one was not; send it again".into(),
            );
        }
        Error::Internal(e.into())
    }
}

impl From<crate::auth::limits::Refused> for Error {
    fn from(r: crate::auth::limits::Refused) -> Self {
        Error::TooManyRequests {
            detail: r.detail,
            retry_after_secs: r.retry_after_secs,
        }
    }
}

/// What a 503 says when every password thread is busy.
pub const BUSY_HASHING: &str =
    "too many passwords are being checked at this moment; try again in a few seconds";

impl From<crate::auth::password::HashError> for Error {
    /// Every hashing thread busy and the queue full: 503, try again in a moment.
    fn from(e: crate::auth::password::HashError) -> Self {
        match e {
            crate::auth::password::HashError::Busy => Error::Unavailable(BUSY_HASHING.into()),
            crate::auth::password::HashError::Failed(e) => Error::Internal(e),
        }
    }
}

impl Error {
    /// One field is wrong.
    pub fn invalid(field: &str, message: impl Into<String>) -> Error {
        let message = message.into();
        Error::Invalid {
            detail: format!("{field}: {message}"),
            errors: vec![FieldError::new(field, message)],
        }
    }

    /// An error of ours, from anything displayable.
    pub fn internal(e: impl std::fmt::Display) -> Error {
        Error::Internal(anyhow::anyhow!("{e}"))
    }

    /// The error for a person reading a page: the detail, and each field's problem when there
    /// are several (a card upload's lines).
    pub fn message(&self) -> String {
        match self {
            Error::Invalid { detail, errors } if errors.len() > 1 => {
                let each: Vec<String> = errors
                    .iter()
                    .map(|e| match e.line {
                        Some(line) => format!("line {line}: {}", e.message),
                        None => format!("{}: {}", e.field, e.message),
                    })
                    .collect();
                format!("{detail} — {}", each.join("; "))
            }
            // One problem: its words alone (a page's field is named by the form, not by the
            // API's field path such as `tables[1]`).
            Error::Invalid { errors, .. } if errors.len() == 1 && errors[0].line.is_none() => {
                errors[0].message.clone()
            }
            Error::NightClosed { detail, .. } => format!("{detail}."),
            Error::Taken { taken, .. } => format!(
                "Game {} was entered on another device: {}. Yours was not saved.",
                taken.number, taken.summary
            ),
            other => other.to_string(),
        }
    }

    /// The fields an invalid input names.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        let errors: &[FieldError] = match self {
            Error::Invalid { errors, .. } => errors,
            _ => &[],
        };
        errors.iter().map(|e| e.field.as_str())
    }

    /// A not-found error said again in the words of what was asked for (a game, a table),
    /// so a caller cannot tell a missing league from one it may not see.
    pub fn or_not_found(self, what: impl FnOnce() -> String) -> Error {
        match self {
            Error::NotFound(_) => Error::NotFound(what()),
            other => other,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// "1st", "2nd", "3rd", "11th", "22nd".
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A count with its noun as people write it: "1 game", "3 games", "0 points".
pub fn count(n: impl std::fmt::Display, one: &str) -> String {
    let n = n.to_string();
    if n == "1" || n == "-1" {
        format!("{n} {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// A date a club could mean: years 1900 to 2200 (a year like +262142 is a typing mistake).
pub fn sensible_date(field: &str, date: chrono::NaiveDate) -> Result<chrono::NaiveDate> {
    use chrono::Datelike;
    if (1900..=2200).contains(&date.year()) {
        Ok(date)
    } else {
        Err(Error::invalid(
            field,
            format!("{date} is out of range; give a date between 1900 and 2200"),
        ))
    }
}

/// Whether the database answers (readiness).
pub async fn ready(state: &AppState) -> bool {
    crate::storage::ping(&state.db).await
}
