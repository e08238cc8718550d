//! Game entry: a result is validated against the league's card, scored with its ruleset and
//! stored with every player's score in one transaction. Safe to retry (`Idempotency-Key`);
//! two scorers racing for the same game number: one is stored, the other gets 409.

use actix_web::http::header::{ETAG, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, get, post, put, web};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::api::json::ValidJson;
use crate::api::leagues::visible;
use crate::api::nights::PlayerRef;
use crate::auth::{Caller, Need, Principal};
use crate::error::{AppError, FieldError};
use crate::rules::scoring::{DeadEntry, GameResult, Outcome, RulesetSpec, Tiles, WonBy};
use crate::rules::{CardRef, Table, builtin};
use crate::startup::AppState;
use crate::storage::cards;
use crate::storage::games::{self, InsertError, NewGame};
use crate::storage::leagues::League;
use crate::storage::totals;

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
    #[schema(example = "exposure fits no line")]
    pub reason: Option<String>,
    #[serde(default)]
    pub contested: bool,
    /// For a contested call: was it upheld?
    #[serde(default)]
    pub upheld: Option<bool>,
    /// The challenged player's exposures, for the engine's adjudication.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>)]
    pub exposures: Option<Vec<Tiles>>,
    /// Tiles out of play, for the engine's adjudication.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub out_of_play: Option<Tiles>,
    /// Store the engine's verdict on the call with the game.
    #[serde(default)]
    pub adjudicate: bool,
}

/// A game result as entered at the table: players by id.
#[derive(Deserialize, Serialize, ToSchema, Clone)]
#[serde(deny_unknown_fields)]
pub struct GameInput {
    /// The game's number at the table; default: the next one.
    #[serde(default)]
    pub number: Option<i32>,
    #[schema(value_type = String, example = "mahjong")]
    pub outcome: Outcome,
    #[serde(default)]
    pub winner: Option<i64>,
    #[serde(default)]
    #[schema(value_type = Option<Object>, example = json!("F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"))]
    pub hand: Option<Tiles>,
    #[serde(default)]
    #[schema(value_type = Vec<Object>)]
    pub exposures: Vec<Tiles>,
    #[serde(default)]
    #[schema(value_type = Option<String>, example = "self_pick")]
    pub won_by: Option<WonBy>,
    #[serde(default)]
    pub discarder: Option<i64>,
    #[serde(default)]
    pub misnamed_discard: bool,
    #[serde(default)]
    pub dead: Vec<DeadInput>,
}

#[derive(Serialize, ToSchema)]
pub struct ScoreView {
    pub player: PlayerRef,
    /// The player's wind in this game.
    pub seat: String,
    pub score: i64,
    pub breakdown: String,
    pub dead: bool,
}

#[derive(Serialize, ToSchema)]
pub struct GameView {
    pub id: i64,
    pub table: i64,
    pub number: i32,
    /// recorded or voided.
    pub status: String,
    /// For `If-Match` when amending.
    pub version: i32,
    pub outcome: String,
    /// The winning line's id and value.
    pub line: Option<String>,
    pub value: Option<i32>,
    pub east: i64,
    pub scores: Vec<ScoreView>,
    /// The result as entered, with the engine's verdicts on dead-hand calls where asked for.
    #[schema(value_type = Object)]
    pub result: serde_json::Value,
}

/// A game as stored, read on `conn` (inside a transaction it sees the transaction's writes).
pub async fn game_view(conn: &mut sqlx::PgConnection, id: i64) -> Result<GameView, AppError> {
    let g = games::get(&mut *conn, id)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no game {id}")))?;
    let scores = games::scores(&mut *conn, id).await?;
    Ok(GameView {
        id: g.id,
        table: g.table_id,
        number: g.number,
        status: g.status,
        version: g.version,
        outcome: g.outcome,
        line: g.line_id,
        value: g.line_value,
        east: g.east_player,
        scores: scores
            .into_iter()
            .map(|(pid, name, seat, score, breakdown, dead)| ScoreView {
                player: PlayerRef { id: pid, name },
                seat,
                score,
                breakdown,
                dead,
            })
            .collect(),
        result: g.submitted,
    })
}

/// The league's card, compiled.
pub async fn league_card(state: &AppState, league: &League) -> Result<CardRef, AppError> {
    if let Some(name) = &league.builtin_card {
        return builtin::get(name).map(CardRef::Builtin).ok_or_else(|| {
            AppError::Internal(anyhow::anyhow!(
                "league {} names unknown built-in card {name}",
                league.id
            ))
        });
    }
    let id = league
        .card_id
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("league {} has no card", league.id)))?;
    let stored = cards::get(&state.db, id)
        .await?
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("card {id} missing")))?;
    Ok(CardRef::Shared(state.cards.compiled(&stored)?))
}

fn actor(caller: &Caller) -> String {
    match &caller.0 {
        Some(Principal::User(u)) => format!("user {} ({})", u.id, u.email),
        Some(Principal::Token { id, .. }) => format!("token {id}"),
        None => "anonymous".into(),
    }
}

/// Validates and scores an entered result; returns the game to store.
async fn prepare(
    state: &AppState,
    league: &League,
    table_id: i64,
    players: &[(i64, String)],
    input: &GameInput,
) -> Result<NewGame, AppError> {
    let n = players.len();
    let number = match input.number {
        Some(k) => k,
        None => games::next_number(&state.db, table_id).await?,
    };
    if number < 1 || number > league.games_per_table {
        return Err(AppError::invalid(
            "number",
            format!(
                "this league plays {} games per table; game {number} is out of range",
                league.games_per_table
            ),
        ));
    }
    // East passes to the next seat after every game.
    let east_index = (number as usize - 1) % n;
    let wind_of = |player: i64| {
        players
            .iter()
            .position(|(id, _)| *id == player)
            .map(|i| games::SEAT_WINDS[(i + n - east_index) % n])
    };
    let at_table = |field: &str, player: i64| {
        wind_of(player).ok_or_else(|| {
            let names: Vec<String> = players
                .iter()
                .map(|(id, name)| format!("{id} {name}"))
                .collect();
            AppError::invalid(
                field,
                format!(
                    "player {player} is not at this table ({})",
                    names.join(", ")
                ),
            )
        })
    };
    let winner = input.winner.map(|w| at_table("winner", w)).transpose()?;
    let discarder = input
        .discarder
        .map(|d| at_table("discarder", d))
        .transpose()?;
    let mut dead = Vec::new();
    for (i, d) in input.dead.iter().enumerate() {
        dead.push(DeadEntry {
            seat: at_table(&format!("dead[{i}].player"), d.player)?.to_string(),
            called_by: d
                .called_by
                .map(|c| at_table(&format!("dead[{i}].called_by"), c))
                .transpose()?
                .map(str::to_string),
            reason: d.reason.clone(),
            contested: d.contested,
            upheld: d.upheld,
        });
    }
    let ruleset: RulesetSpec =
        serde_json::from_value(league.ruleset.clone()).map_err(|e| AppError::Internal(e.into()))?;
    let result = GameResult {
        ruleset: Some(ruleset.clone()),
        seats: games::SEAT_WINDS[..n]
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
        dead,
    };
    let card = league_card(state, league).await?;
    let valid = result.validate(&card).map_err(|e| {
        let message = e.to_string();
        let field = crate::api::engine::refused_field(&message);
        AppError::Unprocessable {
            detail: message.clone(),
            errors: vec![FieldError::new(field, message)],
        }
    })?;
    let ruleset = ruleset
        .resolve()
        .map_err(|e| AppError::Internal(anyhow::anyhow!("{e}")))?;
    let report = valid.score(&ruleset);

    // The engine's adjudication of dead-hand calls, where asked for.
    let mut submitted = serde_json::to_value(input).map_err(|e| AppError::Internal(e.into()))?;
    submitted["number"] = number.into();
    for (i, d) in input.dead.iter().enumerate().filter(|(_, d)| d.adjudicate) {
        let exposures = d
            .exposures
            .iter()
            .flatten()
            .map(|t| {
                t.parse()
                    .map_err(|e| AppError::invalid(&format!("dead[{i}].exposures"), e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let out = match &d.out_of_play {
            Some(t) => t
                .parse()
                .map_err(|e| AppError::invalid(&format!("dead[{i}].out_of_play"), e.to_string()))?,
            None => Vec::new(),
        };
        let table = Table::new(&exposures, &out)
            .map_err(|e| AppError::invalid(&format!("dead[{i}]"), e.to_string()))?;
        let verdict = card.verdict_report(&card.adjudicate(&table));
        submitted["dead"][i]["engine_verdict"] =
            serde_json::to_value(verdict).map_err(|e| AppError::Internal(e.into()))?;
    }

    let score_of = |wind: &str| {
        report
            .scores
            .0
            .iter()
            .find(|(s, _)| s == wind)
            .map(|(_, v)| *v)
            .unwrap_or(0)
    };
    let text_of = |wind: &str| {
        report
            .breakdown
            .iter()
            .find(|b| b.seat == wind)
            .map(|b| b.text.clone())
            .unwrap_or_default()
    };
    let scores = players
        .iter()
        .enumerate()
        .map(|(i, (id, _))| {
            let wind = games::SEAT_WINDS[(i + n - east_index) % n];
            let seat_index = (i + n - east_index) % n;
            (
                *id,
                wind.to_string(),
                score_of(wind),
                text_of(wind),
                valid.dead[seat_index],
            )
        })
        .collect();
    let player_of = |wind: Option<&str>| {
        wind.and_then(|w| {
            players
                .iter()
                .enumerate()
                .find(|(i, _)| games::SEAT_WINDS[(i + n - east_index) % n] == w)
                .map(|(_, (id, _))| *id)
        })
    };
    Ok(NewGame {
        table_id,
        number,
        east_player: players[east_index].0,
        outcome: input.outcome.as_str().to_string(),
        submitted,
        engine: serde_json::to_value(&report).map_err(|e| AppError::Internal(e.into()))?,
        line_id: report.line.as_ref().map(|l| l.id.clone()),
        line_value: report.line.as_ref().map(|l| l.value as i32),
        winner: player_of(winner),
        discarder: player_of(discarder),
        won_by: input.won_by.map(|w| w.as_str().to_string()),
        jokerless: report.line.as_ref().is_some_and(|l| l.jokerless),
        scores,
    })
}

/// Record a game at a table. The engine validates the result against the league's card and
/// scores it with the league's ruleset. Send `Idempotency-Key` to make retries safe.
#[utoipa::path(tag = "games", params(("table" = i64, Path), ("Idempotency-Key" = Option<String>, Header, description = "the same key returns the stored answer")),
    request_body = GameInput,
    responses((status = 201, body = GameView),
              (status = 409, description = "The game number is already recorded, or the night is closed", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, description = "The result does not stand (the hand matches no line, a seat not at the table, …)", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/tables/{table}/games")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    table: web::Path<i64>,
    body: ValidJson<GameInput>,
) -> Result<HttpResponse, AppError> {
    let key = req
        .headers()
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let (version, body) = record_game(&state, &caller, *table, key, body.0).await?;
    Ok(created(version, body))
}

/// Validates, scores and stores a game at a table (for the API and the scoring page): the
/// stored game's version and its JSON view. With a `key`, a retry of the same request gets the
/// first answer again.
pub async fn record_game(
    state: &AppState,
    caller: &Caller,
    table_id: i64,
    key: Option<String>,
    input: GameInput,
) -> Result<(i32, serde_json::Value), AppError> {
    let not_found = || AppError::NotFound(format!("no table {table_id}"));
    let ctx = games::table_context(&state.db, table_id)
        .await?
        .ok_or_else(not_found)?;
    let (league, club) = visible(state, caller, ctx.league_id, Need::Score)
        .await
        .map_err(|e| match e {
            AppError::NotFound(_) => not_found(),
            other => other,
        })?;
    if ctx.night_status == "closed" {
        return Err(AppError::Conflict(format!(
            "night {} is closed; an organizer can reopen it",
            ctx.night_id
        )));
    }
    if let Some(k) = &key
        && (k.is_empty() || k.len() > 200)
    {
        return Err(AppError::invalid(
            "Idempotency-Key",
            "use 1 to 200 characters",
        ));
    }
    let request_hash = {
        let text =
            serde_json::to_string(&(table_id, &input)).map_err(|e| AppError::Internal(e.into()))?;
        Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    if let Some(k) = &key
        && let Some(answer) = replay(state, club.id, k, &request_hash).await?
    {
        return Ok(answer);
    }

    let players = games::table_players(&state.db, table_id).await?;
    let game = prepare(state, &league, table_id, &players, &input).await?;

    let mut tx = state.db.begin().await?;
    if let Some(k) = &key
        && !games::claim_key(&mut tx, club.id, k, &request_hash).await?
    {
        // Another request with this key committed first: answer as it did.
        tx.rollback().await?;
        return replay(state, club.id, k, &request_hash)
            .await?
            .ok_or_else(|| {
                AppError::Conflict(
                    "a request with this Idempotency-Key is still in progress".into(),
                )
            });
    }
    let id = match games::insert(&mut tx, &game, &actor(caller)).await {
        Ok(id) => id,
        Err(InsertError::Taken) => {
            tx.rollback().await?;
            let holder = games::holder(&state.db, table_id, game.number).await?;
            return Err(AppError::Conflict(format!(
                "game {} at table {} is already recorded{}",
                game.number,
                ctx.table_number,
                holder
                    .map(|h| format!(" as game {h} (GET /api/v1/games/{h})"))
                    .unwrap_or_default()
            )));
        }
        Err(InsertError::Db(e)) => return Err(e.into()),
    };
    // The stored answer commits with the game: a retry sees both or neither.
    let view = game_view(&mut tx, id).await?;
    let body = serde_json::to_value(&view).map_err(|e| AppError::Internal(e.into()))?;
    if let Some(k) = &key {
        games::save_response(&mut tx, club.id, k, 201, &body).await?;
    }
    // Last, so the league's lock is held only for the totals and the commit.
    totals::count_game(&mut tx, ctx.league_id, id, game.outcome != "redeal").await?;
    tx.commit().await?;
    Ok((view.version, body))
}

fn created(version: i32, body: serde_json::Value) -> HttpResponse {
    let mut res = HttpResponse::Created().json(body);
    if let Ok(v) = HeaderValue::from_str(&format!("\"{version}\"")) {
        res.headers_mut().insert(ETAG, v);
    }
    res
}

/// The stored answer for an idempotency key, if there is one.
async fn replay(
    state: &AppState,
    club_id: i64,
    key: &str,
    hash: &str,
) -> Result<Option<(i32, serde_json::Value)>, AppError> {
    match games::saved_response(&state.db, club_id, key).await? {
        None => Ok(None),
        Some((stored_hash, _, _)) if stored_hash != hash => Err(AppError::invalid(
            "Idempotency-Key",
            "this key was used for a different request; use a new key for a new game",
        )),
        Some((_, Some(_), Some(body))) => {
            let version = body["version"].as_i64().unwrap_or(1) as i32;
            Ok(Some((version, body)))
        }
        Some(_) => Err(AppError::Conflict(
            "a request with this Idempotency-Key is still in progress".into(),
        )),
    }
}

/// One game with its scores (`ETag` is its version).
#[utoipa::path(tag = "games", params(("game" = i64, Path)), responses((status = 200, body = GameView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/games/{game}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let not_found = || AppError::NotFound(format!("no game {id}"));
    let g = games::get(&state.db, *id).await?.ok_or_else(not_found)?;
    let ctx = games::table_context(&state.db, g.table_id)
        .await?
        .ok_or_else(not_found)?;
    visible(&state, &caller, ctx.league_id, Need::Read)
        .await
        .map_err(|e| match e {
            AppError::NotFound(_) => not_found(),
            other => other,
        })?;
    let view = game_view(&mut *state.db.acquire().await?, g.id).await?;
    let mut res = HttpResponse::Ok().json(&view);
    if let Ok(v) = HeaderValue::from_str(&format!("\"{}\"", view.version)) {
        res.headers_mut().insert(ETAG, v);
    }
    Ok(res)
}

/// Reads `If-Match` as a game version (`"3"` or `3`).
fn if_match(req: &HttpRequest) -> Result<Option<i32>, AppError> {
    let Some(v) = req.headers().get(actix_web::http::header::IF_MATCH) else {
        return Ok(None);
    };
    let text = v
        .to_str()
        .unwrap_or_default()
        .trim()
        .trim_start_matches("W/")
        .trim_matches('"');
    text.parse().map(Some).map_err(|_| {
        AppError::invalid(
            "If-Match",
            format!(
                "`{text}` is not a game version; send the version you saw, e.g. If-Match: \"3\""
            ),
        )
    })
}

/// Loads a game's table context and checks the caller's access to its league.
async fn game_access(
    state: &AppState,
    caller: &Caller,
    id: i64,
    need: Need,
) -> Result<(games::GameRow, games::TableContext, League), AppError> {
    let not_found = || AppError::NotFound(format!("no game {id}"));
    let g = games::get(&state.db, id).await?.ok_or_else(not_found)?;
    let ctx = games::table_context(&state.db, g.table_id)
        .await?
        .ok_or_else(not_found)?;
    let (league, _) = visible(state, caller, ctx.league_id, need)
        .await
        .map_err(|e| match e {
            AppError::NotFound(_) => not_found(),
            other => other,
        })?;
    Ok((g, ctx, league))
}

fn stale(current: i32) -> AppError {
    AppError::PreconditionFailed(format!(
        "the game has changed since you saw it: its version is now {current}; reload it and try again"
    ))
}

/// Amend a game: send the whole corrected result with `If-Match: <version>`. The result is
/// validated and scored again; the change goes in the audit log.
#[utoipa::path(tag = "games", params(("game" = i64, Path), ("If-Match" = String, Header, description = "the version you saw")),
    request_body = GameInput,
    responses((status = 200, body = GameView),
              (status = 412, description = "Stale version; the detail gives the current one", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 428, description = "If-Match is missing", body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/games/{game}")]
pub async fn amend(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
    body: ValidJson<GameInput>,
) -> Result<HttpResponse, AppError> {
    let (g, ctx, league) = game_access(&state, &caller, *id, Need::Score).await?;
    let version = if_match(&req)?.ok_or_else(|| {
        AppError::PreconditionRequired(
            "send If-Match with the version of the game you are correcting".into(),
        )
    })?;
    if ctx.night_status == "closed" {
        return Err(AppError::Conflict(format!(
            "night {} is closed; an organizer can reopen it",
            ctx.night_id
        )));
    }
    let mut input = body.0;
    input.number = Some(input.number.unwrap_or(g.number));
    let players = games::table_players(&state.db, g.table_id).await?;
    let game = prepare(&state, &league, g.table_id, &players, &input).await?;
    match games::amend(
        &state.db,
        ctx.league_id,
        g.id,
        version,
        &game,
        &actor(&caller),
    )
    .await?
    {
        games::Change::Done => {}
        games::Change::Stale(current) => return Err(stale(current)),
        games::Change::Gone => {
            return Err(AppError::Conflict(format!(
                "game {} is voided; record a new game instead",
                g.id
            )));
        }
        games::Change::Taken => {
            return Err(AppError::Conflict(format!(
                "game {} at this table is already recorded",
                game.number
            )));
        }
    }
    let view = game_view(&mut *state.db.acquire().await?, g.id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((ETAG, format!("\"{}\"", view.version)))
        .json(view))
}

/// Void a game (organizers): it stops counting; `If-Match` is checked when sent.
#[utoipa::path(tag = "games", params(("game" = i64, Path)),
    responses((status = 200, body = GameView), (status = 412, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/games/{game}/void")]
pub async fn void(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (g, ctx, _) = game_access(&state, &caller, *id, Need::Admin).await?;
    match games::void(
        &state.db,
        ctx.league_id,
        g.id,
        if_match(&req)?,
        &actor(&caller),
    )
    .await?
    {
        games::Change::Done => {}
        games::Change::Stale(current) => return Err(stale(current)),
        games::Change::Gone | games::Change::Taken => {
            return Err(AppError::Conflict(format!(
                "game {} is already voided",
                g.id
            )));
        }
    }
    let view = game_view(&mut *state.db.acquire().await?, g.id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((ETAG, format!("\"{}\"", view.version)))
        .json(view))
}

/// Every change to a game: who, when, before and after.
#[utoipa::path(tag = "games", params(("game" = i64, Path)), responses((status = 200, body = [games::AuditEntry])))]
#[get("/api/v1/games/{game}/audit")]
pub async fn audit(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (g, _, _) = game_access(&state, &caller, *id, Need::Read).await?;
    Ok(HttpResponse::Ok().json(games::audit(&state.db, g.id).await?))
}
