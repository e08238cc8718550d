//! History brought into a league: games from another server's `games.csv` and players' opening
//! balances. Everything an import writes is written in one transaction that holds the league's
//! row lock, so an import is stored whole or not at all; a dry run does the same writes and
//! rolls them back.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{PgPool, Postgres, Transaction};

use crate::storage::seasons::events;
use crate::storage::seasons::totals;

/// An import under way: a transaction holding the league's row lock.
pub struct ImportTx {
    tx: Transaction<'static, Postgres>,
    league_id: i64,
}

/// A sequence an import takes ids from (ids are known before the rows are written, so the
/// events that report the games can be made first).
#[derive(Clone, Copy)]
pub enum Ids {
    Nights,
    Tables,
    Games,
    /// The order ratings replay games in.
    StandingsOrder,
}

/// A night to create (closed: it is history).
pub struct NewNight {
    pub id: i64,
    pub number: i32,
    pub date: NaiveDate,
}

/// A table to create, with its players in seat order (seat 0 is East at game 1).
pub struct NewTable {
    pub id: i64,
    pub night_id: i64,
    pub number: i32,
    pub players: Vec<i64>,
}

/// A game to store as the file gives it.
pub struct ImportedGame {
    pub id: i64,
    pub table_id: i64,
    pub number: i32,
    pub east_player: i64,
    pub outcome: &'static str,
    pub status: &'static str,
    pub submitted: serde_json::Value,
    pub line_id: Option<std::sync::Arc<str>>,
    pub line_value: Option<i32>,
    pub winner: Option<i64>,
    pub discarder: Option<i64>,
    pub won_by: Option<&'static str>,
    pub jokerless: bool,
    pub standings_order: i64,
    pub recorded_at: DateTime<Utc>,
    pub scores: Vec<SeatScore>,
}

/// A player's line in a game: (player, seat, score, breakdown, dead).
pub type SeatScore = (i64, &'static str, i64, Box<str>, bool);

impl ImportTx {
    /// Starts an import into the league, locking its row (every write to its games waits).
    pub async fn begin(pool: &PgPool, league_id: i64) -> sqlx::Result<ImportTx> {
        let mut tx = pool.begin().await?;
        totals::lock_league(&mut tx, league_id).await?;
        Ok(ImportTx { tx, league_id })
    }

    /// Which of these night numbers the league already has.
    pub async fn taken_nights(&mut self, numbers: &[i32]) -> sqlx::Result<Vec<i32>> {
        sqlx::query_scalar(
            "SELECT number FROM nights WHERE league_id = $1 AND number = ANY($2) ORDER BY number",
        )
        .bind(self.league_id)
        .bind(numbers)
        .fetch_all(&mut *self.tx)
        .await
    }

    /// The league's nights with these numbers as one: when the first was made, how many games
    /// they hold, and whether every one of those games came from an import.
    pub async fn taken_summary(
        &mut self,
        numbers: &[i32],
    ) -> sqlx::Result<(chrono::DateTime<chrono::Utc>, i64, bool)> {
        sqlx::query_as(
            "SELECT min(n.created_at), count(g.id), coalesce(bool_and(g.engine ? 'imported'), false) \
             FROM nights n LEFT JOIN night_tables t ON t.night_id = n.id LEFT JOIN games g ON g.table_id = t.id \
             WHERE n.league_id = $1 AND n.number = ANY($2)",
        )
        .bind(self.league_id)
        .bind(numbers)
        .fetch_one(&mut *self.tx)
        .await
    }

    /// The club's players with these names (the same name in another case, or a look-alike, is
    /// the same player: `names::key`), those missing created: (id, name as stored) of the ones
    /// found, then of the ones created. `names` are distinct by key.
    pub async fn players(
        &mut self,
        club_id: i64,
        names: &[String],
    ) -> sqlx::Result<(Vec<(i64, String)>, Vec<(i64, String)>)> {
        crate::storage::people::players::fill_keys(&mut self.tx, Some(club_id)).await?;
        let keys: Vec<String> = names
            .iter()
            .map(|n| crate::storage::people::names::key(n))
            .collect();
        let found: Vec<(i64, String, String)> = sqlx::query_as(
            "SELECT id, name, name_key FROM players WHERE club_id = $1 AND name_key = ANY($2) ORDER BY name",
        )
        .bind(club_id)
        .bind(&keys)
        .fetch_all(&mut *self.tx)
        .await?;
        let (missing, missing_keys): (Vec<String>, Vec<String>) = names
            .iter()
            .zip(&keys)
            .filter(|(_, k)| !found.iter().any(|(_, _, f)| f == *k))
            .map(|(n, k)| (n.clone(), k.clone()))
            .unzip();
        let created: Vec<(i64, String)> = sqlx::query_as(
            "INSERT INTO players (club_id, name, name_key) \
             SELECT $1, n, k FROM unnest($2::TEXT[], $3::TEXT[]) WITH ORDINALITY AS u(n, k, i) \
             ORDER BY u.i RETURNING id, name",
        )
        .bind(club_id)
        .bind(&missing)
        .bind(&missing_keys)
        .fetch_all(&mut *self.tx)
        .await?;
        Ok((
            found.into_iter().map(|(id, name, _)| (id, name)).collect(),
            created,
        ))
    }

    /// `n` new ids from a sequence, in increasing order.
    pub async fn ids(&mut self, of: Ids, n: usize) -> sqlx::Result<Vec<i64>> {
        let sequence = match of {
            Ids::Nights => "nights_id_seq",
            Ids::Tables => "night_tables_id_seq",
            Ids::Games => "games_id_seq",
            Ids::StandingsOrder => "game_standings_order",
        };
        let mut ids: Vec<i64> =
            sqlx::query_scalar("SELECT nextval($1::regclass) FROM generate_series(1, $2)")
                .bind(sequence)
                .bind(n as i64)
                .fetch_all(&mut *self.tx)
                .await?;
        ids.sort_unstable();
        Ok(ids)
    }

    /// Writes the nights (closed), their tables, seats and check-ins (everyone who played), the
    /// games with their scores and audit entries (by `actor`; a voided game is recorded, then
    /// voided), and `news` (the league's events). The totals are rebuilt from the games on
    /// the next read.
    /// Stores the import's nights (closed), their tables, seats and check-ins.
    pub async fn store_sessions(
        &mut self,
        nights: &[NewNight],
        tables: &[NewTable],
    ) -> sqlx::Result<()> {
        let tx = &mut self.tx;
        sqlx::query(
            "INSERT INTO nights (id, league_id, number, night_date, status) \
             SELECT u.id, $1, u.number, u.night_date, 'closed' FROM unnest($2::BIGINT[], $3::INT[], $4::DATE[]) AS u(id, number, night_date)",
        )
        .bind(self.league_id)
        .bind(nights.iter().map(|n| n.id).collect::<Vec<_>>())
        .bind(nights.iter().map(|n| n.number).collect::<Vec<_>>())
        .bind(nights.iter().map(|n| n.date).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
        sqlx::query(
            "INSERT INTO night_tables (id, night_id, number) SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[], $3::INT[])",
        )
        .bind(tables.iter().map(|t| t.id).collect::<Vec<_>>())
        .bind(tables.iter().map(|t| t.night_id).collect::<Vec<_>>())
        .bind(tables.iter().map(|t| t.number).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
        let seats: Vec<(i64, i32, i64, i64)> = tables
            .iter()
            .flat_map(|t| {
                t.players
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (t.id, i as i32, *p, t.night_id))
            })
            .collect();
        sqlx::query(
            "INSERT INTO table_seats (table_id, seat, player_id) SELECT * FROM unnest($1::BIGINT[], $2::INT[], $3::BIGINT[])",
        )
        .bind(seats.iter().map(|s| s.0).collect::<Vec<_>>())
        .bind(seats.iter().map(|s| s.1).collect::<Vec<_>>())
        .bind(seats.iter().map(|s| s.2).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
        sqlx::query(
            "INSERT INTO checkins (night_id, player_id) SELECT DISTINCT * FROM unnest($1::BIGINT[], $2::BIGINT[]) \
             ON CONFLICT DO NOTHING",
        )
        .bind(seats.iter().map(|s| s.3).collect::<Vec<_>>())
        .bind(seats.iter().map(|s| s.2).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    /// Stores some of the import's games (its tables stored first) with their scores, audit
    /// entries and events: called a chunk at a time, so a large file's games are never all in
    /// memory at once.
    pub async fn store_games(
        &mut self,
        games: &[ImportedGame],
        actor: &str,
        news: &[(&str, serde_json::Value)],
    ) -> sqlx::Result<()> {
        let tx = &mut self.tx;
        sqlx::query(
            "INSERT INTO games (id, table_id, number, east_player, outcome, status, version, submitted, engine, line_id, line_value, \
                                winner, discarder, won_by, jokerless, standings_order, created_at, updated_at) \
             SELECT u.id, u.table_id, u.number, u.east, u.outcome, u.status, CASE WHEN u.status = 'voided' THEN 2 ELSE 1 END, \
                    u.submitted, '{\"imported\": true}'::JSONB, \
                    u.line_id, u.line_value, u.winner, u.discarder, u.won_by, u.jokerless, u.standings_order, u.at, u.at \
             FROM unnest($1::BIGINT[], $2::BIGINT[], $3::INT[], $4::BIGINT[], $5::TEXT[], $6::TEXT[], $7::JSONB[], \
                         $8::TEXT[], $9::INT[], $10::BIGINT[], $11::BIGINT[], $12::TEXT[], $13::BOOL[], $14::BIGINT[], $15::TIMESTAMPTZ[]) \
               AS u(id, table_id, number, east, outcome, status, submitted, line_id, line_value, winner, discarder, won_by, \
                    jokerless, standings_order, at)",
        )
        .bind(games.iter().map(|g| g.id).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.table_id).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.number).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.east_player).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.outcome).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.status).collect::<Vec<_>>())
        .bind(games.iter().map(|g| &g.submitted).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.line_id.as_deref()).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.line_value).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.winner).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.discarder).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.won_by).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.jokerless).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.standings_order).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.recorded_at).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
        let scores: Vec<(i64, &SeatScore)> = games
            .iter()
            .flat_map(|g| g.scores.iter().map(move |s| (g.id, s)))
            .collect();
        sqlx::query(
            "INSERT INTO game_scores (game_id, player_id, seat, score, breakdown, dead) \
             SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::BIGINT[], $5::TEXT[], $6::BOOL[])",
        )
        .bind(scores.iter().map(|s| s.0).collect::<Vec<_>>())
        .bind(scores.iter().map(|s| s.1.0).collect::<Vec<_>>())
        .bind(scores.iter().map(|s| s.1.1).collect::<Vec<_>>())
        .bind(scores.iter().map(|s| s.1.2).collect::<Vec<_>>())
        .bind(scores.iter().map(|s| &*s.1.3).collect::<Vec<_>>())
        .bind(scores.iter().map(|s| s.1.4).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
        // Recorded (when the file says), then voided for a voided game.
        let mut audit: Vec<(i64, &str, DateTime<Utc>, Option<&serde_json::Value>)> = Vec::new();
        for g in games {
            audit.push((g.id, "recorded", g.recorded_at, Some(&g.submitted)));
            if g.status == "voided" {
                audit.push((g.id, "voided", g.recorded_at, None));
            }
        }
        sqlx::query(
            "INSERT INTO game_audit (game_id, at, actor, action, before, after) \
             SELECT u.game_id, u.at, $1, u.action, CASE WHEN u.action = 'voided' THEN g.submitted END, u.after \
             FROM unnest($2::BIGINT[], $3::TEXT[], $4::TIMESTAMPTZ[], $5::JSONB[]) WITH ORDINALITY AS u(game_id, action, at, after, i) \
             JOIN games g ON g.id = u.game_id ORDER BY u.i",
        )
        .bind(actor)
        .bind(audit.iter().map(|a| a.0).collect::<Vec<_>>())
        .bind(audit.iter().map(|a| a.1).collect::<Vec<_>>())
        .bind(audit.iter().map(|a| a.2).collect::<Vec<_>>())
        .bind(audit.iter().map(|a| a.3).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
        events::emit(tx, self.league_id, news).await
    }

    /// After the games: the standings-changed event (when a game counts) and the league's
    /// standings marked to be worked out again.
    pub async fn games_stored(&mut self, counted: bool) -> sqlx::Result<()> {
        let tx = &mut self.tx;
        if counted {
            events::emit(
                tx,
                self.league_id,
                &[("standings.changed", serde_json::Value::Null)],
            )
            .await?;
        }
        mark_stale(tx, self.league_id).await
    }

    /// Replaces the league's opening balances: (player, points, games, wins).
    pub async fn set_balances(&mut self, rows: &[(i64, i64, i64, i64)]) -> sqlx::Result<()> {
        let tx = &mut self.tx;
        sqlx::query("DELETE FROM opening_balances WHERE league_id = $1")
            .bind(self.league_id)
            .execute(&mut **tx)
            .await?;
        sqlx::query(
            "INSERT INTO opening_balances (league_id, player_id, points, games, wins) \
             SELECT $1, * FROM unnest($2::BIGINT[], $3::BIGINT[], $4::BIGINT[], $5::BIGINT[])",
        )
        .bind(self.league_id)
        .bind(rows.iter().map(|r| r.0).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.1).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.2).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.3).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
        sqlx::query("UPDATE leagues SET carried_in = $2 WHERE id = $1")
            .bind(self.league_id)
            .bind(!rows.is_empty())
            .execute(&mut **tx)
            .await?;
        events::emit(
            tx,
            self.league_id,
            &[("standings.changed", serde_json::Value::Null)],
        )
        .await?;
        mark_stale(tx, self.league_id).await
    }

    /// Commits the import, or rolls it back for a dry run.
    pub async fn finish(self, commit: bool) -> sqlx::Result<()> {
        if commit {
            self.tx.commit().await
        } else {
            self.tx.rollback().await
        }
    }
}

/// The league's totals and ratings are rebuilt from its games (and balances) on the next read.
async fn mark_stale(tx: &mut Transaction<'static, Postgres>, league_id: i64) -> sqlx::Result<()> {
    sqlx::query("UPDATE leagues SET standings_stale = true WHERE id = $1")
        .bind(league_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// A player's opening balance in a league.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Balance {
    pub player_id: i64,
    pub name: String,
    pub points: i64,
    pub games: i64,
    pub wins: i64,
}

/// The league's opening balances, by player name.
pub async fn balances(pool: &PgPool, league_id: i64) -> sqlx::Result<Vec<Balance>> {
    sqlx::query_as(
        "SELECT b.player_id, p.name, b.points, b.games, b.wins FROM opening_balances b \
         JOIN players p ON p.id = b.player_id WHERE b.league_id = $1 ORDER BY p.name",
    )
    .bind(league_id)
    .fetch_all(pool)
    .await
}
