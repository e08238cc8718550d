//! Leagues.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::PgPool;

use crate::storage::people::clubs::Club;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct League {
    pub id: i64,
    pub club_id: i64,
    pub name: String,
    pub card_id: Option<i64>,
    pub builtin_card: Option<String>,
    pub ruleset: serde_json::Value,
    pub games_per_table: i32,
    pub visibility: String,
    pub board: String,
    pub min_games: i32,
    pub starts_on: Option<NaiveDate>,
    pub ends_on: Option<NaiveDate>,
    /// `league` (its sessions are nights) or `tournament` (its sessions are rounds).
    pub kind: String,
    /// On a `best_per_night` board: how many of a player's best game scores count each night.
    pub best_per_night: i32,
    /// On any board: how many of a player's lowest nights do not count.
    pub drop_worst_nights: i32,
    /// On a `best_per_week` board: how many of a player's best match scores count each week.
    pub best_per_week: i32,
    /// Open play: hours a game waits for the other players before it counts unconfirmed.
    pub confirm_hours: i32,
    /// Open play: counted matches a week with the same three opponents (`None`: no limit).
    pub same_table_per_week: Option<i32>,
    /// Where the event is held (for results).
    pub place: Option<String>,
    /// The event's sanctioning number at a ranking body (for results).
    pub sanctioning_number: Option<String>,
    /// The season this league follows, and the one that follows it.
    pub previous_id: Option<i64>,
    pub next_id: Option<i64>,
    /// Some players carry points in from before the league was kept here (`opening_balances`).
    pub carried_in: bool,
    pub created_at: DateTime<Utc>,
    /// The standings revision when the row was read (bumped by every write that can move them).
    pub revision: i64,
}

/// The fields of a league that can be set.
#[derive(Debug, Clone)]
pub struct LeagueFields {
    pub name: String,
    pub card_id: Option<i64>,
    pub builtin_card: Option<String>,
    pub ruleset: serde_json::Value,
    pub games_per_table: i32,
    pub visibility: String,
    pub board: String,
    pub min_games: i32,
    pub starts_on: Option<NaiveDate>,
    pub ends_on: Option<NaiveDate>,
    pub kind: String,
    pub best_per_night: i32,
    pub drop_worst_nights: i32,
    pub best_per_week: i32,
    pub confirm_hours: i32,
    pub same_table_per_week: Option<i32>,
    pub place: Option<String>,
    pub sanctioning_number: Option<String>,
}

impl LeagueFields {
    /// A league's fields as stored.
    pub fn of(l: &League) -> LeagueFields {
        LeagueFields {
            name: l.name.clone(),
            card_id: l.card_id,
            builtin_card: l.builtin_card.clone(),
            ruleset: l.ruleset.clone(),
            games_per_table: l.games_per_table,
            visibility: l.visibility.clone(),
            board: l.board.clone(),
            min_games: l.min_games,
            starts_on: l.starts_on,
            ends_on: l.ends_on,
            kind: l.kind.clone(),
            best_per_night: l.best_per_night,
            drop_worst_nights: l.drop_worst_nights,
            best_per_week: l.best_per_week,
            confirm_hours: l.confirm_hours,
            same_table_per_week: l.same_table_per_week,
            place: l.place.clone(),
            sanctioning_number: l.sanctioning_number.clone(),
        }
    }
}

impl League {
    /// What the league calls one of its sessions: "Night" for a league, "Round" for a
    /// tournament, "Match" in open play.
    pub fn session(&self) -> &'static str {
        match self.kind.as_str() {
            "tournament" => "Round",
            "open" => "Match",
            _ => "Night",
        }
    }

    /// The same word as it reads inside a sentence ("night", "round", "match").
    pub fn session_lower(&self) -> &'static str {
        match self.kind.as_str() {
            "tournament" => "round",
            "open" => "match",
            _ => "night",
        }
    }

    /// The plural: "Nights", "Rounds" in a tournament, "Matches" in open play.
    pub fn sessions(&self) -> &'static str {
        match self.kind.as_str() {
            "tournament" => "Rounds",
            "open" => "Matches",
            _ => "Nights",
        }
    }

    /// An open-play league: members arrange their own matches.
    pub fn is_open_play(&self) -> bool {
        self.kind == "open"
    }

    /// "tonight", "this round" in a tournament, "in this match" in open play.
    pub fn tonight(&self) -> &'static str {
        match self.kind.as_str() {
            "tournament" => "this round",
            "open" => "in this match",
            _ => "tonight",
        }
    }
}

const COLUMNS: &str = "id, club_id, name, card_id, builtin_card, ruleset, games_per_table, visibility, board, min_games, starts_on, ends_on, kind, best_per_night, drop_worst_nights, best_per_week, confirm_hours, same_table_per_week, place, sanctioning_number, previous_id, next_id, carried_in, created_at, revision";

/// A league of the club with this name (any case), other than `except`: (id, name as stored).
/// Read on a transaction holding the club's row, so two saves of one name cannot both pass.
async fn name_taken(
    tx: &mut sqlx::PgConnection,
    club_id: i64,
    name: &str,
    except: Option<i64>,
) -> sqlx::Result<Option<(i64, String)>> {
    sqlx::query("SELECT 1 FROM clubs WHERE id = $1 FOR NO KEY UPDATE")
        .bind(club_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query_as(
        "SELECT id, name FROM leagues WHERE club_id = $1 AND lower(name) = lower($2) \
         AND ($3::bigint IS NULL OR id <> $3) ORDER BY id LIMIT 1",
    )
    .bind(club_id)
    .bind(name)
    .bind(except)
    .fetch_optional(&mut *tx)
    .await
}

/// A league saved, or the club's other league that already has its name.
pub enum Saved {
    League(Box<League>),
    NameTaken {
        id: i64,
        name: String,
    },
    /// The league already has a next season (this one).
    NextTaken {
        id: i64,
        name: String,
    },
}

/// Creates a league unless the club has one of that name.
pub async fn create(pool: &PgPool, club_id: i64, f: &LeagueFields) -> sqlx::Result<Saved> {
    let mut tx = pool.begin().await?;
    if let Some((id, name)) = name_taken(&mut tx, club_id, &f.name, None).await? {
        return Ok(Saved::NameTaken { id, name });
    }
    let league = insert(&mut tx, club_id, f).await?;
    tx.commit().await?;
    Ok(Saved::League(Box::new(league)))
}

async fn insert(
    tx: &mut sqlx::PgConnection,
    club_id: i64,
    f: &LeagueFields,
) -> sqlx::Result<League> {
    sqlx::query_as::<_, League>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO leagues (club_id, name, card_id, builtin_card, ruleset, games_per_table, visibility, board, min_games, starts_on, ends_on, kind, best_per_night, drop_worst_nights, place, sanctioning_number, best_per_week, confirm_hours, same_table_per_week) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING {COLUMNS}"
    )))
    .bind(club_id)
    .bind(&f.name)
    .bind(f.card_id)
    .bind(&f.builtin_card)
    .bind(&f.ruleset)
    .bind(f.games_per_table)
    .bind(&f.visibility)
    .bind(&f.board)
    .bind(f.min_games)
    .bind(f.starts_on)
    .bind(f.ends_on)
    .bind(&f.kind)
    .bind(f.best_per_night)
    .bind(f.drop_worst_nights)
    .bind(&f.place)
    .bind(&f.sanctioning_number)
    .bind(f.best_per_week)
    .bind(f.confirm_hours)
    .bind(f.same_table_per_week)
    .fetch_one(&mut *tx)
    .await
}

/// Makes `fields` the next season of league `previous` (linked both ways), unless the club has
/// a league of that name or `previous` has a next season already (`NextTaken`, naming it).
pub async fn create_next(
    pool: &PgPool,
    club_id: i64,
    previous: i64,
    f: &LeagueFields,
) -> sqlx::Result<Saved> {
    let mut tx = pool.begin().await?;
    if let Some((id, name)) = name_taken(&mut tx, club_id, &f.name, None).await? {
        return Ok(Saved::NameTaken { id, name });
    }
    let taken: Option<(Option<i64>,)> =
        sqlx::query_as("SELECT next_id FROM leagues WHERE id = $1 FOR NO KEY UPDATE")
            .bind(previous)
            .fetch_optional(&mut *tx)
            .await?;
    if let Some((Some(next),)) = taken {
        let name: String = sqlx::query_scalar("SELECT name FROM leagues WHERE id = $1")
            .bind(next)
            .fetch_one(&mut *tx)
            .await?;
        return Ok(Saved::NextTaken { id: next, name });
    }
    let league = insert(&mut tx, club_id, f).await?;
    sqlx::query("UPDATE leagues SET previous_id = $2 WHERE id = $1")
        .bind(league.id)
        .bind(previous)
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE leagues SET next_id = $2, revision = revision + 1 WHERE id = $1")
        .bind(previous)
        .bind(league.id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Saved::League(Box::new(League {
        previous_id: Some(previous),
        ..league
    })))
}

/// A league's name, for links between seasons.
pub async fn name_of(pool: &PgPool, id: i64) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT name FROM leagues WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await
}

/// Saves a league's fields unless another league of its club has the name.
pub async fn update(pool: &PgPool, club_id: i64, id: i64, f: &LeagueFields) -> sqlx::Result<Saved> {
    let mut tx = pool.begin().await?;
    if let Some((other, name)) = name_taken(&mut tx, club_id, &f.name, Some(id)).await? {
        return Ok(Saved::NameTaken { id: other, name });
    }
    let league = sqlx::query_as::<_, League>(sqlx::AssertSqlSafe(format!(
        "UPDATE leagues SET name = $2, card_id = $3, builtin_card = $4, ruleset = $5, games_per_table = $6, visibility = $7, \
         board = $8, min_games = $9, starts_on = $10, ends_on = $11, kind = $12, best_per_night = $13, drop_worst_nights = $14, place = $15, sanctioning_number = $16, best_per_week = $17, confirm_hours = $18, same_table_per_week = $19, revision = revision + 1 WHERE id = $1 RETURNING {COLUMNS}"
    )))
    .bind(id)
    .bind(&f.name)
    .bind(f.card_id)
    .bind(&f.builtin_card)
    .bind(&f.ruleset)
    .bind(f.games_per_table)
    .bind(&f.visibility)
    .bind(&f.board)
    .bind(f.min_games)
    .bind(f.starts_on)
    .bind(f.ends_on)
    .bind(&f.kind)
    .bind(f.best_per_night)
    .bind(f.drop_worst_nights)
    .bind(&f.place)
    .bind(&f.sanctioning_number)
    .bind(f.best_per_week)
    .bind(f.confirm_hours)
    .bind(f.same_table_per_week)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Saved::League(Box::new(league)))
}

pub async fn list(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<League>> {
    sqlx::query_as::<_, League>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM leagues WHERE club_id = $1 ORDER BY id"
    )))
    .bind(club_id)
    .fetch_all(pool)
    .await
}

pub async fn get(pool: &PgPool, id: i64) -> sqlx::Result<Option<League>> {
    sqlx::query_as::<_, League>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM leagues WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// The columns of `League` read from `leagues l`, and of its club (`Club`) read from `clubs c`
/// as `club_slug`, `club_name` and `club_time_zone`.
pub const WITH_CLUB_COLUMNS: &str = "l.id, l.club_id, l.name, l.card_id, l.builtin_card, l.ruleset, l.games_per_table, \
     l.visibility, l.board, l.min_games, l.starts_on, l.ends_on, l.kind, l.best_per_night, l.drop_worst_nights, l.best_per_week, l.confirm_hours, l.same_table_per_week, l.place, l.sanctioning_number, l.previous_id, l.next_id, l.carried_in, l.created_at, l.revision, \
     c.slug AS club_slug, c.name AS club_name, c.time_zone AS club_time_zone";

/// A row of `WITH_CLUB_COLUMNS`.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LeagueAndClub {
    #[sqlx(flatten)]
    pub league: League,
    pub club_slug: String,
    pub club_name: String,
    pub club_time_zone: String,
}

impl LeagueAndClub {
    pub fn split(self) -> (League, Club) {
        let club = Club {
            id: self.league.club_id,
            slug: self.club_slug,
            name: self.club_name,
            time_zone: self.club_time_zone,
        };
        (self.league, club)
    }
}

/// A league and its club, in one read.
pub async fn with_club(pool: &PgPool, id: i64) -> sqlx::Result<Option<(League, Club)>> {
    let row = sqlx::query_as::<_, LeagueAndClub>(sqlx::AssertSqlSafe(format!(
        "SELECT {WITH_CLUB_COLUMNS} FROM leagues l JOIN clubs c ON c.id = l.club_id WHERE l.id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(LeagueAndClub::split))
}

/// A public league as the start page lists it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PublicLeague {
    pub id: i64,
    pub name: String,
    pub club_slug: String,
    pub club_name: String,
}

/// Public leagues, newest first (at most `limit`).
pub async fn public(pool: &PgPool, limit: i64) -> sqlx::Result<Vec<PublicLeague>> {
    sqlx::query_as::<_, PublicLeague>(
        "SELECT l.id, l.name, c.slug AS club_slug, c.name AS club_name FROM leagues l \
         JOIN clubs c ON c.id = l.club_id WHERE l.visibility = 'public' ORDER BY l.id DESC LIMIT $1",
    )
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// A club's public leagues, oldest first.
pub async fn list_public(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<League>> {
    sqlx::query_as::<_, League>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM leagues WHERE club_id = $1 AND visibility = 'public' ORDER BY id"
    )))
    .bind(club_id)
    .fetch_all(pool)
    .await
}

/// Public leagues of every club, newest first, before the league `before` (when given), whose
/// name or club's name contains `q` (case-insensitive, when given); at most `limit`.
pub async fn search_public(
    pool: &PgPool,
    q: Option<&str>,
    before: Option<i64>,
    limit: i64,
) -> sqlx::Result<Vec<(League, Club)>> {
    // `q` is matched literally: its LIKE wildcards are escaped.
    let pattern = q.map(|q| {
        let escaped = q
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        format!("%{escaped}%")
    });
    let rows = sqlx::query_as::<_, LeagueAndClub>(sqlx::AssertSqlSafe(format!(
        "SELECT {WITH_CLUB_COLUMNS} FROM leagues l JOIN clubs c ON c.id = l.club_id \
         WHERE l.visibility = 'public' AND ($1::BIGINT IS NULL OR l.id < $1) \
           AND ($2::TEXT IS NULL OR l.name ILIKE $2 OR c.name ILIKE $2 OR c.slug ILIKE $2) \
         ORDER BY l.id DESC LIMIT $3"
    )))
    .bind(before)
    .bind(pattern)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(LeagueAndClub::split).collect())
}
