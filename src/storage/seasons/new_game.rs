//! A game to store and why it could not be stored: what game entry (`totals::record_game`) and
//! corrections (`games`) share, kept apart so neither module needs the other for it.

/// A game to store.
#[derive(Debug, Clone)]
pub struct NewGame {
    pub table_id: i64,
    pub number: i32,
    pub east_player: i64,
    pub outcome: String,
    pub submitted: serde_json::Value,
    pub engine: serde_json::Value,
    pub line_id: Option<String>,
    pub line_value: Option<i32>,
    pub winner: Option<i64>,
    pub discarder: Option<i64>,
    pub won_by: Option<String>,
    pub jokerless: bool,
    /// (player, seat, score, breakdown, dead)
    pub scores: Vec<(i64, String, i64, String, bool)>,
    /// When it was entered (a new game's `created_at`; an amendment's `updated_at`), taken
    /// before it is written so that the answer and the events made before the write say it.
    pub at: chrono::DateTime<chrono::Utc>,
    /// Open play: the game waits for the other players to confirm it before it counts.
    pub awaiting: bool,
    /// Open play: the player at the table who entered it (who has confirmed it by entering).
    pub entered_by: Option<i64>,
}

/// Why a game could not be stored.
pub enum InsertError {
    /// Another recorded game holds the number.
    Taken,
    /// The table was taken away (its night deleted: a match called off or left) while the game
    /// waited for the league's lock.
    TableGone,
    Db(sqlx::Error),
}

impl From<sqlx::Error> for InsertError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::Database(d) if d.constraint() == Some("games_table_number") => {
                InsertError::Taken
            }
            sqlx::Error::Database(d) if d.constraint() == Some("games_table_id_fkey") => {
                InsertError::TableGone
            }
            _ => InsertError::Db(e),
        }
    }
}
