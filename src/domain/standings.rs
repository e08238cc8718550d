//! Standings and CSV exports of a league (public leagues: no login needed), and the league's
//! page: standings, points per night of the leaders, nights.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::domain::{AppState, Caller, Error, Need, Result, Role};
pub use crate::standings::Standing;
use crate::standings::{self, Board};
use crate::state::HeldLines;
use crate::storage::clubs::Club;
use crate::storage::leagues::League;
use crate::storage::nights::{self, Night};
use crate::storage::{games, totals};

#[derive(Serialize, ToSchema)]
pub struct StandingsView {
    pub league: i64,
    /// `total` or `average`.
    pub board: String,
    pub min_games: i32,
    /// True while the ratings are being replayed after a correction or a void (the totals are
    /// already up to date; the ratings shown are those from before the change).
    pub ratings_updating: bool,
    pub standings: Vec<Standing>,
}

/// How long a replay waits after the correction that started it.
const REPLAY_DELAY: std::time::Duration = std::time::Duration::from_millis(250);

/// Replays a league's ratings after a correction, off the request path (on the runtime, not in
/// the request), unless this process is doing so already.
pub fn replay_ratings(state: &AppState, league_id: i64) {
    if !state.standings.start_replay(league_id) {
        return;
    }
    let db = state.db.clone();
    let replays = state.standings.replays.clone();
    tokio::spawn(async move {
        // A moment first: the reads that follow a correction come before the replay's load,
        // and a burst of corrections is replayed once.
        tokio::time::sleep(REPLAY_DELAY).await;
        // `false`: another correction came meanwhile; go again.
        loop {
            match totals::recompute_ratings(&db, league_id).await {
                Ok(true) => break,
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(league_id, error = %e, "replaying the ratings failed; the next read tries again");
                    break;
                }
            }
        }
        if let Ok(mut set) = replays.lock() {
            set.remove(&league_id);
        }
    });
}

/// How far back from the last sync of a game log a correction is looked for.
const CORRECTION_MARGIN_SECS: i64 = 120;

/// Above this many tied players, head-to-head is summed from the league's game log kept in
/// memory instead of in the database (which then reads most of the league's games each time).
const TIED_IN_DATABASE: usize = 16;

/// What `compute` answers: the standings ranked, the revision they were read at (or later) and
/// whether the ratings are being replayed.
struct Computed {
    standings: Vec<Standing>,
    revision: i64,
    ratings_updating: bool,
}

/// The league's standings, ranked (totals rebuilt first if they were written by hand).
async fn compute(state: &AppState, league: &League) -> Result<Computed> {
    let flight = state.standings.flight(league.id);
    let mut held = flight.lock().await;
    compute_held(state, league, &mut held, None).await
}

/// The league's rows read after revision `since` (`None`: all of them).
async fn read_lines(
    state: &AppState,
    league_id: i64,
    since: Option<i64>,
) -> Result<totals::StandingsRead> {
    totals::lines(&state.db, league_id, since)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no league {league_id}")))
}

/// The rows changed after a revision (`None`: all rows), with the standings state they were
/// read at.
type Changes = (Option<i64>, totals::LeagueState, Vec<totals::LineRow>);

/// As `compute`, with the rows this process holds for the league (locked by the caller),
/// brought up to date with `read` (the rows changed after its revision, read by the caller) or
/// else with what is read here: only the rows changed since they were last read are read.
async fn compute_held(
    state: &AppState,
    league: &League,
    held: &mut HeldLines,
    read: Option<Changes>,
) -> Result<Computed> {
    let (since, mut league_state, mut changed) = match read {
        // The caller's read covers every change after the rows held here (all rows for `None`).
        Some((since, league_state, changed)) if since <= held.revision => {
            (since, league_state, changed)
        }
        _ => {
            let read = read_lines(state, league.id, held.revision).await?;
            (held.revision, read.state, read.changed)
        }
    };
    if league_state.stale {
        totals::rebuild_if_stale(&state.db, league.id).await?;
        held.revision = None;
        let all = read_lines(state, league.id, None).await?;
        (league_state, changed) = (all.state, all.changed);
    } else if since.is_none() {
        held.revision = None;
    }
    // Rows read at a revision older than those held here are left alone.
    if held.revision.is_none_or(|r| r < league_state.revision) {
        if held.revision.is_none() {
            held.rows.clear();
        }
        for (player, row) in changed {
            match row {
                Some(row) => held.rows.insert(player, row),
                None => held.rows.remove(&player),
            };
        }
        held.revision = Some(league_state.revision);
    }
    let (revision, updating) = (league_state.revision, league_state.updating);
    if updating {
        // Started by the correction; started again here after a restart or a failure.
        replay_ratings(state, league.id);
    }
    let mut rows: Vec<&totals::Rated> = held.rows.values().collect();
    rows.sort_unstable_by_key(|(l, _)| l.player_id);
    let board = if league.board == "average" {
        Board::Average {
            min_games: league.min_games as i64,
        }
    } else {
        Board::Total
    };
    let ratings: HashMap<i64, f64> = rows
        .iter()
        .map(|(l, r)| (l.player_id, standings::shown(*r)))
        .collect();
    let lines: Vec<standings::Line> = rows.into_iter().map(|(l, _)| l.clone()).collect();
    // Head-to-head only for players tied on everything else.
    let tied = standings::tie_groups(&lines, board);
    let h2h = head_to_head(state, league.id, &league_state, &tied).await?;
    let mut ranked = standings::rank(lines, board, &h2h);
    for s in &mut ranked {
        s.rating = ratings.get(&s.player_id).copied();
    }
    Ok(Computed {
        standings: ranked,
        revision,
        ratings_updating: updating,
    })
}

/// The league's players in standings order (for Swiss seating).
pub(crate) async fn order(state: &AppState, league: &League) -> Result<Vec<i64>> {
    Ok(compute(state, league)
        .await?
        .standings
        .into_iter()
        .map(|s| s.player_id)
        .collect())
}

/// Head-to-head points of the tied groups: summed in the database for a few tied players, from
/// the league's game log in memory for many (brought up to date first: the games counted since
/// it was last read and, after a correction, the corrected and voided games' rows).
async fn head_to_head(
    state: &AppState,
    league_id: i64,
    league_state: &totals::LeagueState,
    groups: &[Vec<i64>],
) -> Result<HashMap<i64, i64>> {
    let corrections = league_state.corrections;
    let tied: usize = groups.iter().map(Vec::len).sum();
    if tied <= TIED_IN_DATABASE {
        return Ok(totals::head_to_head(&state.db, league_id, groups).await?);
    }
    let log = state.game_logs.log(league_id);
    let mut log = log.lock().await;
    // Read before the rows below: the next sync looks back from no later than this.
    let now = league_state.at;
    let corrected = log.corrections.is_some_and(|c| c != corrections);
    if log.corrections.is_none() {
        log.clear();
    }
    let new = totals::rows_after(&state.db, league_id, log.last_order).await?;
    log.extend(new);
    if corrected && let Some(synced) = log.synced_at {
        // Games written since the last sync, with a margin wider than any transaction (a
        // request is cut at 30 s): `updated_at` is its transaction's start, which may come
        // before a commit seen later.
        let since = synced - chrono::Duration::seconds(CORRECTION_MARGIN_SECS);
        let (games, rows) = totals::changed_since(&state.db, league_id, since).await?;
        log.replace(&games, rows);
    }
    log.corrections = Some(corrections);
    log.synced_at = Some(now);
    Ok(standings::head_to_head(&log.rows, &log.players, groups))
}

/// The standings body (JSON) and its entity tag, computed from `read` (the league's rows changed
/// after a revision, with the state they were read at) or later.
async fn body_at(
    state: &AppState,
    league: &League,
    read: Changes,
) -> Result<(Arc<Vec<u8>>, String)> {
    let revision = read.1.revision;
    if let Some(hit) = state.standings.get(league.id, revision) {
        return Ok(hit);
    }
    let flight = state.standings.flight(league.id);
    let mut held = flight.lock().await;
    // Whoever held the lock may have computed a body fresh enough for this request.
    if let Some(hit) = state.standings.get(league.id, revision) {
        return Ok(hit);
    }
    let computed = compute_held(state, league, &mut held, Some(read)).await?;
    let now = computed.revision;
    let view = StandingsView {
        league: league.id,
        board: league.board.clone(),
        min_games: league.min_games,
        ratings_updating: computed.ratings_updating,
        standings: computed.standings,
    };
    let body = Arc::new(serde_json::to_vec(&view).map_err(Error::internal)?);
    let digest = Sha256::digest(body.as_slice());
    let tag = format!(
        "\"{}\"",
        digest
            .iter()
            .take(16)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    state
        .standings
        .put(league.id, now, body.clone(), tag.clone());
    Ok((body, tag))
}

/// The league's standings as JSON, with an entity tag that changes when they do.
pub struct Body {
    pub json: Arc<Vec<u8>>,
    /// Quoted, as an HTTP entity tag.
    pub tag: String,
}

/// The league's standings (cached per league and revision).
pub async fn show(state: &AppState, caller: &Caller, id: i64) -> Result<Body> {
    // One read: the league and its club (to check access), its revision and the rows changed
    // since the standings this process last computed (none when those are current).
    let since = state.standings.revision(id);
    let read = read_lines(state, id, since).await?;
    let (league, _) = caller
        .admit(state, read.league, read.club, Need::Read)
        .await?;
    let (json, tag) = body_at(state, &league, (since, read.state, read.changed)).await?;
    Ok(Body { json, tag })
}

/// A CSV file: its name and its bytes.
pub struct Csv {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Text a spreadsheet would run as a formula is kept as text (OWASP's advice: a leading `'`).
fn cell(text: String) -> String {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{text}"),
        _ => text,
    }
}

fn csv_error(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("writing CSV: {e}"))
}

/// The standings as CSV: one row per player, the columns of the JSON.
pub async fn standings_csv(state: &AppState, caller: &Caller, id: i64) -> Result<Csv> {
    let (league, _) = caller.league(state, id, Need::Read).await?;
    let rows = compute(state, &league).await?.standings;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "rank",
        "shared",
        "player_id",
        "player",
        "games",
        "wins",
        "points",
        "average",
        "self_picks",
        "jokerless_wins",
        "deal_ins",
        "dead_hands",
        "wall_games",
        "rating",
    ])
    .map_err(csv_error)?;
    for s in rows {
        w.write_record([
            s.rank.map(|r| r.to_string()).unwrap_or_default(),
            s.shared.to_string(),
            s.player_id.to_string(),
            cell(s.player),
            s.games.to_string(),
            s.wins.to_string(),
            s.points.to_string(),
            format!("{:.2}", s.average),
            s.self_picks.to_string(),
            s.jokerless_wins.to_string(),
            s.deal_ins.to_string(),
            s.dead_hands.to_string(),
            s.wall_games.to_string(),
            s.rating.map(|r| format!("{r:.2}")).unwrap_or_default(),
        ])
        .map_err(csv_error)?;
    }
    Ok(Csv {
        name: format!("league-{}-standings.csv", league.id),
        bytes: w.into_inner().map_err(csv_error)?,
    })
}

/// Every game of the league as CSV: one row per player per game, voided games and redeals
/// included (see `status`, `outcome`).
pub async fn games_csv(state: &AppState, caller: &Caller, id: i64) -> Result<Csv> {
    let (league, _) = caller.league(state, id, Need::Read).await?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "game_id",
        "night",
        "date",
        "table",
        "game",
        "status",
        "outcome",
        "line",
        "value",
        "player_id",
        "player",
        "seat",
        "score",
        "breakdown",
    ])
    .map_err(csv_error)?;
    for g in games::league_game_lines(&state.db, league.id).await? {
        w.write_record([
            g.game_id.to_string(),
            g.night.to_string(),
            g.night_date.to_string(),
            g.table_number.to_string(),
            g.number.to_string(),
            g.status,
            g.outcome,
            cell(g.line_id.unwrap_or_default()),
            g.line_value.map(|v| v.to_string()).unwrap_or_default(),
            g.player_id.to_string(),
            cell(g.player),
            g.seat,
            g.score.to_string(),
            cell(g.breakdown),
        ])
        .map_err(csv_error)?;
    }
    Ok(Csv {
        name: format!("league-{}-games.csv", league.id),
        bytes: w.into_inner().map_err(csv_error)?,
    })
}

/// A league as its page shows it to this caller.
pub struct Overview {
    pub league: League,
    pub club: Club,
    pub organizer: bool,
    /// In rank order.
    pub rows: Vec<Standing>,
    /// The ratings are being replayed after a correction.
    pub ratings_updating: bool,
    /// The nights that have counted games, in order.
    pub night_numbers: Vec<i32>,
    /// The first `charted` players of the standings: id, name and points on each of those nights.
    pub series: Vec<(i64, String, Vec<i64>)>,
    pub nights: Vec<Night>,
}

/// The league's page: standings, the points per night of the top `charted` players, nights.
pub async fn overview(
    state: &AppState,
    caller: &Caller,
    id: i64,
    charted: usize,
) -> Result<Overview> {
    let (league, club) = caller.league(state, id, Need::Read).await?;
    let organizer = caller
        .role_in(state, &club)
        .await?
        .is_some_and(|r| r >= Role::Organizer);
    let Computed {
        standings: rows,
        ratings_updating,
        ..
    } = compute(state, &league).await?;
    let leaders: Vec<(i64, String)> = rows
        .iter()
        .take(charted)
        .map(|s| (s.player_id, s.player.clone()))
        .collect();
    let ids: Vec<i64> = leaders.iter().map(|(id, _)| *id).collect();
    let per_night = totals::points_by_night(&state.db, league.id, &ids).await?;
    let mut night_numbers: Vec<i32> = per_night.iter().map(|r| r.0).collect();
    night_numbers.sort_unstable();
    night_numbers.dedup();
    let series = leaders
        .iter()
        .map(|(id, name)| {
            let points = night_numbers
                .iter()
                .map(|n| {
                    per_night
                        .iter()
                        .find(|r| r.0 == *n && r.1 == *id)
                        .map(|r| r.2)
                        .unwrap_or(0)
                })
                .collect();
            (*id, name.clone(), points)
        })
        .collect();
    let nights = nights::list(&state.db, league.id).await?;
    Ok(Overview {
        league,
        club,
        organizer,
        rows,
        ratings_updating,
        night_numbers,
        series,
        nights,
    })
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn formulas_stay_text() {
        assert_eq!(cell("=HYPERLINK(\"x\")".into()), "'=HYPERLINK(\"x\")");
        assert_eq!(cell("@SUM(A1)".into()), "'@SUM(A1)");
        assert_eq!(cell("Rose".into()), "Rose");
        assert_eq!(cell(String::new()), "");
    }
}
