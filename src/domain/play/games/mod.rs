//! Games and corrections: a result is validated against the league's card, scored with its
//! ruleset and stored with every player's score in one transaction. Safe to retry (an
//! idempotency key); two scorers racing for the same game number: one is stored, the other
//! gets a conflict. Amending needs the version the corrector saw; voiding is for organizers.

//!
//! A game's correction, void and audit log are in `corrections`.

mod corrections;
pub use corrections::*;

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::domain::cards::engine::refused_field;
use crate::domain::play::game_view::Game;
use crate::domain::{AppState, Caller, Error, FieldError, Need, Result, seasons::leagues};
pub use crate::domain::{ClosedNight, TakenGame};
use crate::rules::Card;
use crate::rules::Table;
use crate::rules::scoring::{
    DeadEntry, GameResult, Outcome, RulesetSpec, ScoreReport, Tiles, ValidResult, WonBy,
};
use crate::storage::play::games::{self, InsertError, NewGame, TableContext, TableSheet};
pub use crate::storage::play::games::{AuditEntry, SEAT_WINDS};
use crate::storage::seasons::events;
use crate::storage::seasons::leagues::League;
use crate::storage::{people::clubs, people::users, play::game_pages, seasons::totals};

/// A dead-hand call as entered.
#[derive(Deserialize, Serialize, ToSchema, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct DeadInput {
    /// The player whose hand was called dead.
    pub player: i64,
    /// Who called it (an opponent).
    #[serde(default)]
    pub called_by: Option<i64>,
    #[serde(default)]
    #[schema(example = "exposure fits no line", max_length = 500)]
    pub reason: Option<String>,
    #[serde(default)]
    pub contested: bool,
    /// For a contested call: was it upheld?
    #[serde(default)]
    pub upheld: Option<bool>,
    /// The challenged player's exposures, for the engine's adjudication.
    #[serde(default)]
    #[schema(schema_with = crate::domain::schemas::optional_tile_groups)]
    pub exposures: Option<Vec<Tiles>>,
    /// Tiles out of play, for the engine's adjudication.
    #[serde(default)]
    #[schema(schema_with = crate::domain::schemas::optional_out_of_play)]
    pub out_of_play: Option<Tiles>,
    /// Store the engine's verdict on the call with the game.
    #[serde(default)]
    pub adjudicate: bool,
}

/// A game result as entered at the table: players by id.
#[derive(Deserialize, Serialize, ToSchema, Clone)]
#[serde(deny_unknown_fields)]
pub struct GameInput {
    /// The game's number at the table. Without it the game is appended as the next number, so two
    /// scorers who both omit it record two games: send the number you are entering (1 to the
    /// league's games per table).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 32)]
    pub number: Option<i32>,
    #[schema(schema_with = crate::domain::schemas::outcome)]
    pub outcome: Outcome,
    #[serde(default)]
    pub winner: Option<i64>,
    #[serde(default)]
    #[schema(schema_with = crate::domain::schemas::optional_hand)]
    pub hand: Option<Tiles>,
    #[serde(default)]
    #[schema(schema_with = crate::domain::schemas::tile_groups)]
    pub exposures: Vec<Tiles>,
    #[serde(default)]
    #[schema(schema_with = crate::domain::schemas::won_by)]
    pub won_by: Option<WonBy>,
    #[serde(default)]
    pub discarder: Option<i64>,
    #[serde(default)]
    pub misnamed_discard: bool,
    #[serde(default)]
    pub dead: Vec<DeadInput>,
}

/// A stored game in a scorer's words: "Ann went out, self-pick: 2468#2 (25)", "Bea went out on
/// Cy's discard: …", "wall game", "redeal".
pub fn in_words(v: &Game) -> String {
    let name = |id: Option<i64>| id.and_then(|id| v.name_of(id)).map(str::to_string);
    match v.outcome.as_str() {
        "mahjong" => {
            let winner = name(v.winner).unwrap_or_else(|| "the winner".into());
            let how = match v.won_by.as_deref() {
                Some("discard") => match name(v.discarder) {
                    Some(d) => format!(" on {d}'s discard"),
                    None => " on a discard".into(),
                },
                Some("self_pick") => ", self-pick".into(),
                Some("joker_exchange") => ", joker exchange".into(),
                Some("heavenly") => ", heavenly hand".into(),
                Some("earthly") => ", earthly hand".into(),
                _ => String::new(),
            };
            let line = match (&v.line, v.value) {
                (Some(l), Some(value)) => format!(": {l} ({value})"),
                (Some(l), None) => format!(": {l}"),
                _ => String::new(),
            };
            format!("{winner} went out{how}{line}")
        }
        "wall" => "wall game".into(),
        other => other.to_string(),
    }
}

/// Now, to the microsecond PostgreSQL keeps: a time said before it is written reads back the
/// same.
fn stored_now() -> chrono::DateTime<chrono::Utc> {
    use chrono::SubsecRound;
    chrono::Utc::now().trunc_subsecs(6)
}

/// A game as stored, read on `conn` (inside a transaction it sees the transaction's writes).
pub async fn view(conn: &mut sqlx::PgConnection, id: i64) -> Result<Game> {
    let (g, scores) = game_pages::one(conn, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no game {id}")))?;
    Ok(Game::stored(g, scores))
}

/// Validates and scores an entered result; returns the game to store.
async fn prepare(
    state: &AppState,
    league: &League,
    table_id: i64,
    players: &[(i64, String)],
    next_number: i32,
    input: &GameInput,
) -> Result<NewGame> {
    let number = input.number.unwrap_or(next_number);
    if number < 1 || number > league.games_per_table {
        return Err(Error::invalid(
            "number",
            format!(
                "this league plays {} per table; game {number} is out of range",
                crate::domain::count(league.games_per_table, "game")
            ),
        ));
    }
    let seating = Seating::for_game(players, number);
    let winner = input
        .winner
        .map(|w| seating.at_table("winner", w))
        .transpose()?;
    let discarder = input
        .discarder
        .map(|d| seating.at_table("discarder", d))
        .transpose()?;
    let ruleset: RulesetSpec =
        serde_json::from_value(league.ruleset.clone()).map_err(Error::internal)?;
    let result = GameResult {
        ruleset: Some(ruleset.clone()),
        seats: games::SEAT_WINDS[..players.len()]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        outcome: input.outcome,
        winner: winner.map(str::to_string),
        hand: input.hand.clone(),
        exposures: input.exposures.clone(),
        won_by: input.won_by,
        discarder: discarder.map(str::to_string),
        misnamed_discard: input.misnamed_discard,
        dead: dead_entries(input, &seating)?,
    };
    let card = leagues::card(state, league).await?;
    let (valid, report) = scored(&result, &card, ruleset)?;
    let mut submitted = serde_json::to_value(input).map_err(Error::internal)?;
    submitted["number"] = number.into();
    adjudicate_calls(input, &card, &mut submitted)?;
    Ok(NewGame {
        table_id,
        number,
        east_player: players[seating.east].0,
        outcome: input.outcome.as_str().to_string(),
        submitted,
        engine: serde_json::to_value(&report).map_err(Error::internal)?,
        line_id: report.line.as_ref().map(|l| l.id.clone()),
        line_value: report.line.as_ref().map(|l| l.value as i32),
        winner: seating.player_of(winner),
        discarder: seating.player_of(discarder),
        won_by: input.won_by.map(|w| w.as_str().to_string()),
        jokerless: report.line.as_ref().is_some_and(|l| l.jokerless),
        scores: seating.scores(&report, &valid),
        at: stored_now(),
        // An open-play game waits for the other players (a redeal never counts anyway).
        awaiting: league.is_open_play() && input.outcome.as_str() != "redeal",
        entered_by: None,
    })
}

/// Who sits where in one game: the table's players in seat order, and the seat of this game's
/// East (East passes to the next seat after every game).
struct Seating<'p> {
    players: &'p [(i64, String)],
    east: usize,
}

impl Seating<'_> {
    fn for_game(players: &[(i64, String)], number: i32) -> Seating<'_> {
        Seating {
            players,
            east: (number as usize - 1) % players.len(),
        }
    }

    /// The wind of the player in seat `i` this game.
    fn wind_at(&self, i: usize) -> &'static str {
        let n = self.players.len();
        games::SEAT_WINDS[(i + n - self.east) % n]
    }

    /// The wind of `player` this game (422 naming `field` when they are not at the table).
    fn at_table(&self, field: &str, player: i64) -> Result<&'static str> {
        self.players
            .iter()
            .position(|(id, _)| *id == player)
            .map(|i| self.wind_at(i))
            .ok_or_else(|| {
                let names: Vec<String> = self
                    .players
                    .iter()
                    .map(|(id, name)| format!("{id} {name}"))
                    .collect();
                Error::invalid(
                    field,
                    format!(
                        "player {player} is not at this table ({})",
                        names.join(", ")
                    ),
                )
            })
    }

    /// The player at a wind this game.
    fn player_of(&self, wind: Option<&str>) -> Option<i64> {
        wind.and_then(|w| {
            (0..self.players.len())
                .find(|i| self.wind_at(*i) == w)
                .map(|i| self.players[i].0)
        })
    }

    /// Each player's score, breakdown and dead hand, in seat order.
    fn scores(
        &self,
        report: &ScoreReport,
        valid: &ValidResult,
    ) -> Vec<(i64, String, i64, String, bool)> {
        let n = self.players.len();
        self.players
            .iter()
            .enumerate()
            .map(|(i, (id, _))| {
                let wind = self.wind_at(i);
                let score = report
                    .scores
                    .0
                    .iter()
                    .find(|(s, _)| s == wind)
                    .map(|(_, v)| *v)
                    .unwrap_or(0);
                let text = report
                    .breakdown
                    .iter()
                    .find(|b| b.seat == wind)
                    .map(|b| b.text.clone())
                    .unwrap_or_default();
                let dead = valid.dead[(i + n - self.east) % n];
                (*id, wind.to_string(), score, text, dead)
            })
            .collect()
    }
}

/// The dead-hand calls of a game, by wind (each reason at most 500 characters on one line).
fn dead_entries(input: &GameInput, seating: &Seating<'_>) -> Result<Vec<DeadEntry>> {
    let mut dead = Vec::new();
    for (i, d) in input.dead.iter().enumerate() {
        if d.reason.as_ref().is_some_and(|r| r.chars().count() > 500) {
            return Err(Error::invalid(
                &format!("dead[{i}].reason"),
                "say it in at most 500 characters",
            ));
        }
        if let Some(r) = &d.reason {
            crate::domain::text::plain(&format!("dead[{i}].reason"), r)?;
        }
        dead.push(DeadEntry {
            seat: seating
                .at_table(&format!("dead[{i}].player"), d.player)?
                .to_string(),
            called_by: d
                .called_by
                .map(|c| seating.at_table(&format!("dead[{i}].called_by"), c))
                .transpose()?
                .map(str::to_string),
            reason: d.reason.clone(),
            contested: d.contested,
            upheld: d.upheld,
        });
    }
    Ok(dead)
}

/// The result checked against the card and scored with the league's ruleset; no player's score
/// may pass `MAX_GAME_SCORE`.
fn scored(
    result: &GameResult,
    card: &Card,
    ruleset: RulesetSpec,
) -> Result<(ValidResult, ScoreReport)> {
    let valid = result.validate(card).map_err(|e| {
        let message = e.to_string();
        let field = refused_field(&message);
        Error::Invalid {
            detail: message.clone(),
            errors: vec![FieldError::new(field, message)],
        }
    })?;
    let ruleset = ruleset.resolve().map_err(Error::internal)?;
    let report = valid.score(&ruleset);
    if report
        .scores
        .0
        .iter()
        .any(|(_, v)| v.unsigned_abs() > MAX_GAME_SCORE)
    {
        return Err(Error::invalid(
            "result",
            format!(
                "this game would score more than {MAX_GAME_SCORE} points for a player; check the card's values and the league's ruleset"
            ),
        ));
    }
    Ok((valid, report))
}

/// The engine's adjudication of dead-hand calls, where asked for, written into the game as
/// submitted (`dead[i].engine_verdict`).
fn adjudicate_calls(
    input: &GameInput,
    card: &Card,
    submitted: &mut serde_json::Value,
) -> Result<()> {
    for (i, d) in input.dead.iter().enumerate().filter(|(_, d)| d.adjudicate) {
        let exposures = d
            .exposures
            .iter()
            .flatten()
            .map(|t| {
                t.parse()
                    .map_err(|e| Error::invalid(&format!("dead[{i}].exposures"), e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let out = match &d.out_of_play {
            Some(t) => t
                .parse()
                .map_err(|e| Error::invalid(&format!("dead[{i}].out_of_play"), e.to_string()))?,
            None => Vec::new(),
        };
        let table = Table::new(&exposures, &out)
            .map_err(|e| Error::invalid(&format!("dead[{i}]"), e.to_string()))?;
        let verdict = card.verdict_report(&card.adjudicate(&table));
        submitted["dead"][i]["engine_verdict"] =
            serde_json::to_value(verdict).map_err(Error::internal)?;
    }
    Ok(())
}

/// The most points a player may win or lose in one game: a real game scores a few hundred, and
/// standings keep sums of billions of games within their numbers.
pub const MAX_GAME_SCORE: u64 = 1_000_000_000;

/// A game just stored (or the stored answer to a retry): its version and its view as JSON.
pub struct Recorded {
    pub version: i32,
    pub body: serde_json::Value,
    /// Where the game is shown: the table's night and number.
    pub night_id: i64,
    pub table_number: i32,
}

/// The table as game entry reads it, for a caller with `need` (404 naming the table otherwise).
/// When `entering` a new game, an id is taken for it and the read goes on game entry's
/// connections (see `record_in_lane`).
async fn table_for(
    state: &AppState,
    caller: &Caller,
    table_id: i64,
    need: Need,
    entering: bool,
) -> Result<TableSheet> {
    let not_found = || format!("no table {table_id}");
    let db = if entering {
        state.entry_db()
    } else {
        &state.db
    };
    let sheet = games::table_sheet(db, table_id, entering)
        .await?
        .ok_or_else(|| Error::NotFound(not_found()))?;
    // A table code opens its own table for scoring, and nothing more.
    if caller.code_table() == Some((table_id, sheet.ctx.league_id)) && need <= Need::Score {
        return Ok(sheet);
    }
    // In open play the players at the table enter its games.
    if need <= Need::Score
        && let Some(player) = seat_of(state, caller, &sheet.league, &sheet.club, table_id).await?
    {
        return Ok(TableSheet {
            seated: Some(player),
            ..sheet
        });
    }
    let (league, club) = caller
        .admit(state, sheet.league, sheet.club, need)
        .await
        .map_err(|e| e.or_not_found(not_found))?;
    Ok(TableSheet {
        league,
        club,
        ..sheet
    })
}

/// The table's league when the caller holds that table's code and needs no more than to score;
/// `None` lets the usual rules decide (a code for another table gets their 404).
async fn by_code(
    state: &AppState,
    caller: &Caller,
    table_id: i64,
    need: Need,
) -> Result<Option<League>> {
    match caller.code_table() {
        Some((t, league_id)) if t == table_id && need <= Need::Score => {
            Ok(crate::storage::seasons::leagues::get(&state.db, league_id).await?)
        }
        _ => Ok(None),
    }
}

fn closed(ctx: &TableContext, league: &League) -> Error {
    Error::NightClosed {
        detail: format!(
            "{} {} is closed: an organizer can reopen it to enter more games",
            league.session(),
            ctx.night_number
        ),
        night: ClosedNight {
            id: ctx.night_id,
            number: ctx.night_number,
        },
    }
}

/// `record` on the server's entry lane (`state::EntryLane`), where there is one: what the
/// request handlers call.
pub async fn record_in_lane(
    state: Arc<AppState>,
    caller: Caller,
    table_id: i64,
    key: Option<String>,
    input: GameInput,
) -> Result<Recorded> {
    match &state.entry {
        Some(lane) => {
            let shared = state.clone();
            lane.run(async move { record(&shared, &caller, table_id, key, input).await })
                .await
                .unwrap_or_else(|| Err(Error::internal("entering the game failed on its lane")))
        }
        None => record(&state, &caller, table_id, key, input).await,
    }
}

/// Validates, scores and stores a game at a table. With a `key`, a retry of the same request
/// gets the first answer again; the same key with a different request is refused.
pub async fn record(
    state: &AppState,
    caller: &Caller,
    table_id: i64,
    key: Option<String>,
    input: GameInput,
) -> Result<Recorded> {
    let sheet = table_for(state, caller, table_id, Need::Score, true).await?;
    let (ctx, league, club_id) = (&sheet.ctx, &sheet.league, sheet.club.id);
    if ctx.night_status == "closed" {
        return Err(closed(ctx, league));
    }
    let request_hash = request_hash(key.as_deref(), table_id, &input)?;
    if let Some(k) = &key
        && let Some(answer) = replay(state, ctx, club_id, k, &request_hash).await?
    {
        return Ok(answer);
    }

    // In turn with the league's other new games (its lock takes them one at a time anyway).
    let slots = state.standings.entry_slots(ctx.league_id);
    let _slot = slots.acquire().await.map_err(Error::internal)?;
    let players = &sheet.players;
    let mut game = prepare(state, league, table_id, players, sheet.next_number, &input).await?;
    game.entered_by = sheet.seated;
    let id = sheet
        .game_id
        .ok_or_else(|| Error::internal("no id was taken for the new game"))?;
    // The answer and the events are made before the transaction, from what is written: the
    // transaction only writes.
    let view = Game::entered(id, ctx, &game, players, 1, game.at);
    let body = serde_json::to_value(&view).map_err(Error::internal)?;
    let mut news = vec![(events::GAME_RECORDED, body.clone())];
    if game.outcome != "redeal" {
        news.push((events::STANDINGS_CHANGED, serde_json::Value::Null));
    }
    let priors: HashMap<i64, totals::Prior> = players
        .iter()
        .zip(&sheet.priors)
        .map(|((p, _), prior)| (*p, *prior))
        .collect();

    // One statement: the key with the answer (a retry sees both or neither), the game, its
    // events, totals and ratings.
    let claim = key.as_deref().map(|k| totals::Claim {
        club_id,
        key: k,
        request_hash: &request_hash,
        body: &body,
    });
    let actor = caller.actor_at(ctx.table_id, ctx.table_number);
    let entry = totals::Entry {
        league_id: ctx.league_id,
        game_id: id,
        game: &game,
        actor: &actor,
        events: &news,
        priors: &priors,
        claim,
    };
    let unheard = state.freshness.unheard();
    let stored = totals::record_game(state.entry_db(), entry).await;
    unheard.heard();
    match stored {
        Ok(totals::Stored::Counted(counted)) => {
            crate::domain::seasons::standings::counted(state, ctx.league_id, counted)
        }
        Ok(totals::Stored::Replay) => {
            state.freshness.changed();
            crate::domain::seasons::standings::replay_ratings(state, ctx.league_id);
        }
        Ok(totals::Stored::KeyTaken) => {
            // Another request with this key committed first: answer as it did.
            let k = key.as_deref().unwrap_or_default();
            return replay(state, ctx, club_id, k, &request_hash)
                .await?
                .ok_or_else(|| {
                    Error::Conflict(
                        "a request with this Idempotency-Key is still in progress".into(),
                    )
                });
        }
        Err(refused) => return Err(not_stored(state, ctx, &game, refused).await),
    }
    state.metrics.games_recorded.inc();
    state.events.poke_league(ctx.league_id);
    state.events.outbox.notify_one();
    Ok(Recorded {
        version: view.version,
        body,
        night_id: ctx.night_id,
        table_number: ctx.table_number,
    })
}

/// The hash that ties an idempotency key to its request (the key checked first: 422 unless it
/// is 1 to 200 visible ASCII characters).
fn request_hash(key: Option<&str>, table_id: i64, input: &GameInput) -> Result<String> {
    if let Some(k) = key
        && (k.is_empty() || k.len() > 200 || !k.chars().all(|c| c.is_ascii_graphic() || c == ' '))
    {
        return Err(Error::invalid(
            "Idempotency-Key",
            "use 1 to 200 visible ASCII characters (letters, digits, punctuation)",
        ));
    }
    let text = serde_json::to_string(&(table_id, input)).map_err(Error::internal)?;
    Ok(Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>())
}

/// Why a new game was not stored, for its caller: the game that holds its number (409 with
/// that game in words), its table gone, or the database.
async fn not_stored(
    state: &AppState,
    ctx: &TableContext,
    game: &NewGame,
    why: InsertError,
) -> Error {
    match why {
        InsertError::Taken => {
            let already = format!(
                "game {} at table {} is already recorded",
                game.number, ctx.table_number
            );
            let holder = match games::holder(state.entry_db(), ctx.table_id, game.number).await {
                Ok(Some(holder)) => holder,
                Ok(None) => return Error::Conflict(already),
                Err(e) => return e.into(),
            };
            let stored = match state.entry_db().acquire().await {
                Ok(mut conn) => self::view(&mut conn, holder).await,
                Err(e) => Err(e.into()),
            };
            let summary = match stored {
                Ok(stored) => in_words(&stored),
                Err(e) => return e,
            };
            Error::Taken {
                detail: format!(
                    "{already} as game {holder} (GET /api/v1/games/{holder}): {summary}"
                ),
                taken: TakenGame {
                    number: game.number,
                    game: holder,
                    summary,
                },
            }
        }
        InsertError::TableGone => Error::Conflict(format!(
            "table {} was taken away while game {} was on its way (its match was called off, or a player left it before any game was stored): nothing was stored",
            ctx.table_number, game.number
        )),
        InsertError::Db(e) => e.into(),
    }
}

/// The stored answer for an idempotency key, if there is one.
async fn replay(
    state: &AppState,
    ctx: &TableContext,
    club_id: i64,
    key: &str,
    hash: &str,
) -> Result<Option<Recorded>> {
    match games::saved_response(state.entry_db(), club_id, key).await? {
        None => Ok(None),
        Some((stored_hash, _, _)) if stored_hash != hash => Err(Error::invalid(
            "Idempotency-Key",
            "this key was used for a different request; use a new key for a new game",
        )),
        Some((_, Some(_), Some(body))) => {
            let version = body["version"].as_i64().unwrap_or(1) as i32;
            Ok(Some(Recorded {
                version,
                body,
                night_id: ctx.night_id,
                table_number: ctx.table_number,
            }))
        }
        Some(_) => Err(Error::Conflict(
            "a request with this Idempotency-Key is still in progress".into(),
        )),
    }
}

/// Loads a game's table context and checks the caller's access to its league.
async fn game_access(
    state: &AppState,
    caller: &Caller,
    id: i64,
    need: Need,
) -> Result<(games::GameRow, TableContext, League)> {
    let not_found = || format!("no game {id}");
    let g = games::get(&state.db, id)
        .await?
        .ok_or_else(|| Error::NotFound(not_found()))?;
    let ctx = games::table_context(&state.db, g.table_id)
        .await?
        .ok_or_else(|| Error::NotFound(not_found()))?;
    if let Some(league) = by_code(state, caller, g.table_id, need).await? {
        return Ok((g, ctx, league));
    }
    let league = match caller.league(state, ctx.league_id, need).await {
        Ok((league, _)) => league,
        // In open play the players at the table correct its games while they wait for the
        // players' word; once a game counts, or is disputed, it is the organizers'.
        Err(Error::Forbidden(why)) if need == Need::Score => {
            let (league, club) = caller.league(state, ctx.league_id, Need::Read).await?;
            let seated = seat_of(state, caller, &league, &club, g.table_id).await?;
            if seated.is_none() {
                return Err(Error::Forbidden(why));
            }
            if g.disputed {
                return Err(Error::Forbidden(format!(
                    "game {} is disputed: an organizer settles it",
                    g.number
                )));
            }
            if !g.awaiting {
                return Err(Error::Forbidden(format!(
                    "game {} counts already: ask an organizer to correct it",
                    g.number
                )));
            }
            league
        }
        Err(e) => return Err(e.or_not_found(not_found)),
    };
    Ok((g, ctx, league))
}

/// One game with its scores.
pub async fn show(state: &AppState, caller: &Caller, id: i64) -> Result<Game> {
    let (g, _, _) = game_access(state, caller, id, Need::Read).await?;
    view(&mut *state.db.acquire().await?, g.id).await
}

/// Checks that the caller may enter games at the table (404 naming the table otherwise), before
/// a form that describes a game is read.
pub async fn may_score(state: &AppState, caller: &Caller, table_id: i64) -> Result<()> {
    table_for(state, caller, table_id, Need::Score, false)
        .await
        .map(|_| ())
}

/// The league and night of a table the caller may score (404 naming the table otherwise): what
/// a stream of the table's events follows.
pub async fn followed(state: &AppState, caller: &Caller, table_id: i64) -> Result<(i64, i64)> {
    let sheet = table_for(state, caller, table_id, Need::Score, false).await?;
    Ok((sheet.ctx.league_id, sheet.ctx.night_id))
}

/// The caller's player if they sit at `table_id` of an open-play league (who may enter and
/// correct games there, and confirm or dispute them).
pub async fn seat_of(
    state: &AppState,
    caller: &Caller,
    league: &League,
    club: &clubs::Club,
    table_id: i64,
) -> Result<Option<i64>> {
    if !league.is_open_play() {
        return Ok(None);
    }
    let Ok(user) = caller.user() else {
        return Ok(None);
    };
    if caller
        .club_access(state, club.clone(), Need::Read)
        .await
        .is_err()
    {
        return Ok(None);
    }
    let Some((player, _)) =
        crate::storage::play::open::player_of_user(&state.db, club.id, user.id).await?
    else {
        return Ok(None);
    };
    Ok(
        crate::storage::play::open::seated(&state.db, table_id, player)
            .await?
            .then_some(player),
    )
}

/// A game already entered at a table, as the scoring screen lists it.
pub struct Played {
    pub number: i32,
    /// `mahjong`, `wall` or `redeal`.
    pub outcome: String,
    pub line: Option<String>,
    pub voided: bool,
    /// Points per player, in the table's seat order.
    pub scores: Vec<i64>,
}

/// A table as its scoring screen shows it.
pub struct Scoring {
    pub league: League,
    pub table_number: i32,
    pub night_id: i64,
    /// The night's number in its league.
    pub night_number: i32,
    /// The night is closed: nothing more can be entered.
    pub closed: bool,
    /// The next game's number (may be past `league.games_per_table` when all are played).
    pub number: i32,
    /// (player id, name, wind in the next game), in seat order.
    pub players: Vec<(i64, String, &'static str)>,
    /// The games entered so far at this table, in game order.
    pub played: Vec<Played>,
    /// Each player's points for the night at this table (voided games left out), in seat order.
    pub totals: Vec<i64>,
}

/// The scoring screen of a table (scorers and up).
pub async fn scoring(state: &AppState, caller: &Caller, table_id: i64) -> Result<Scoring> {
    let TableSheet {
        ctx,
        league,
        players,
        next_number: number,
        ..
    } = table_for(state, caller, table_id, Need::Score, false).await?;
    let rows = games::table_scores(&state.db, table_id).await?;
    let n = players.len().max(1);
    let seat_of = |pid: i64| players.iter().position(|(id, _)| *id == pid);
    let mut played: Vec<(i64, Played)> = Vec::new();
    let mut totals = vec![0i64; players.len()];
    for r in rows {
        if played.last().is_none_or(|(id, _)| *id != r.game_id) {
            played.push((
                r.game_id,
                Played {
                    number: r.number,
                    outcome: r.outcome.clone(),
                    line: r.line_id.clone(),
                    voided: r.status == "voided",
                    scores: vec![0; players.len()],
                },
            ));
        }
        if let (Some(i), Some((_, g))) = (seat_of(r.player_id), played.last_mut()) {
            g.scores[i] = r.score;
            if !g.voided {
                totals[i] = totals[i].saturating_add(r.score);
            }
        }
    }
    let east = (number.max(1) as usize - 1) % n;
    Ok(Scoring {
        league,
        table_number: ctx.table_number,
        night_id: ctx.night_id,
        night_number: ctx.night_number,
        closed: ctx.night_status == "closed",
        number,
        players: players
            .into_iter()
            .enumerate()
            .map(|(i, (pid, name))| (pid, name, games::SEAT_WINDS[(i + n - east) % n]))
            .collect(),
        played: played.into_iter().map(|(_, g)| g).collect(),
        totals,
    })
}
