//! A league's season as numbers, for a player's page and the league's: counts, night by night
//! (week by week in open play) with the rank and rating after each, wins by section and line of
//! the card, head-to-head, how games ended, East's share, attendance. Worked out from the
//! games the standings count (`storage::seasons::season`), once per league and standings
//! revision, and kept (`AppState::memo`): a new game, a correction or a void moves the revision
//! and the next read works it out again (one read for all who wait). When the games held are as
//! they were, the games counted since are read alone and the season is taken up again at its
//! last night, so a new game costs a night's work, not a season's.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::{AppState, Caller, Error, Need, Result};
use crate::storage::people::clubs::Club;
use crate::storage::seasons::leagues::League;
use crate::storage::seasons::season::{self as stored, SeasonGame};

mod worked;
pub use worked::{Input, Season, work_out};

/// A player as the season's documents name one.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct SeasonPlayer {
    #[schema(example = 12)]
    pub id: i64,
    #[schema(example = "Edie Fong")]
    pub name: String,
}

/// What a player's counted games add up to.
#[derive(Debug, Clone, Default, Serialize, ToSchema, PartialEq)]
pub struct Counts {
    #[schema(example = 24)]
    pub games: i64,
    #[schema(example = 7)]
    pub wins: i64,
    /// Wins on a tile she drew herself (heavenly and earthly hands among them, as the
    /// standings count them).
    #[schema(example = 2)]
    pub self_picks: i64,
    /// Wins on another player's discard: `wins − self_picks`.
    #[schema(example = 5)]
    pub discard_wins: i64,
    #[schema(example = 1)]
    pub jokerless_wins: i64,
    /// Times her discard was the winning tile.
    #[schema(example = 3)]
    pub deal_ins: i64,
    /// Games in which her hand was called dead.
    #[schema(example = 1)]
    pub dead_hands: i64,
    /// Games she played that ended in a wall game.
    #[schema(example = 2)]
    pub wall_games: i64,
    #[schema(example = 240)]
    pub points: i64,
}

/// One night of a weekly league (one calendar week in open play) of a player's season.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct Period {
    /// The night's id; null for a week of open play.
    #[schema(required = true, example = 31)]
    pub night: Option<i64>,
    /// The night's date; for a week, its Monday (on the club's clock).
    #[schema(example = "2026-12-01")]
    pub date: chrono::NaiveDate,
    /// What the period is called: "Night 3", or the week "Nov 30–Dec 6".
    #[schema(example = "Night 3")]
    pub label: String,
    /// Her counted games in it (0: she did not play).
    #[schema(example = 4)]
    pub games: i64,
    #[schema(example = 2)]
    pub wins: i64,
    /// Her points in it.
    #[schema(example = 75)]
    pub points: i64,
    /// Her points from the season's start to its end (games only; what was carried in is not
    /// among them).
    #[schema(example = 240)]
    pub total: i64,
    /// Her place on the league's board after it (ties shared); null while the board does not
    /// rank her (an average board's minimum of games).
    #[schema(required = true, example = 3)]
    pub rank: Option<u32>,
    /// Her rating (μ − 3σ, as the standings show it) after the games of this period and those
    /// before it.
    #[schema(example = 4.21)]
    pub rating: f64,
}

/// Wins with one line of the card.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct LineWins {
    /// The line's id on the card.
    #[schema(example = "2468#1")]
    pub line: String,
    /// As the printed card says it: "2468 · line 1".
    #[schema(example = "2468 · line 1")]
    pub name: String,
    #[schema(example = 2)]
    pub wins: i64,
}

/// Wins with one section of the card, and its lines.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct SectionWins {
    /// The section as printed ("2468"); lines the card no longer has are under "Other lines".
    #[schema(example = "2468")]
    pub section: String,
    #[schema(example = 3)]
    pub wins: i64,
    pub lines: Vec<LineWins>,
}

/// A player she shared a table with.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct Opponent {
    pub player: SeasonPlayer,
    /// Counted games they played together.
    #[schema(example = 8)]
    pub games: i64,
    /// Of those, games she scored more in.
    #[schema(example = 5)]
    pub ahead: i64,
    /// Games she scored less in (the rest were level).
    #[schema(example = 2)]
    pub behind: i64,
}

/// A player's season in a league.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct PlayerSeason {
    #[schema(example = 1)]
    pub league: i64,
    pub player: SeasonPlayer,
    /// `night` (a weekly league, tournament rounds) or `week` (open play).
    #[schema(example = "night")]
    pub period: String,
    /// The league's standings revision these numbers include.
    #[schema(example = 42)]
    pub revision: i64,
    pub counts: Counts,
    /// From her first night (week) on, every night (week) of the league in order, those she
    /// missed with 0 games.
    pub periods: Vec<Period>,
    /// Every section of the card in the card's order, with the lines she won with.
    pub sections: Vec<SectionWins>,
    /// Most games together first.
    pub opponents: Vec<Opponent>,
}

/// How the league's counted games ended.
#[derive(Debug, Clone, Default, Serialize, ToSchema, PartialEq)]
pub struct How {
    #[schema(example = 40)]
    pub self_pick: i64,
    #[schema(example = 150)]
    pub discard: i64,
    #[schema(example = 22)]
    pub wall: i64,
}

/// East's wins against the quarter of the won games a seat would win by chance.
#[derive(Debug, Clone, Default, Serialize, ToSchema, PartialEq)]
pub struct East {
    /// Games with a winner.
    #[schema(example = 190)]
    pub won_games: i64,
    /// Of those, won by East.
    #[schema(example = 52)]
    pub wins: i64,
    /// `wins / won_games`, to three decimals (0 when no game was won).
    #[schema(example = 0.274)]
    pub share: f64,
    /// What chance alone would give: a quarter.
    #[schema(example = 0.25)]
    pub expected: f64,
}

/// Who came to one night (one week in open play).
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct Attendance {
    /// The night's id; null for a week of open play.
    #[schema(required = true, example = 31)]
    pub night: Option<i64>,
    #[schema(example = "2026-12-01")]
    pub date: chrono::NaiveDate,
    #[schema(example = "Night 3")]
    pub label: String,
    /// Players with a counted game in it.
    #[schema(example = 16)]
    pub players: i64,
    /// Tables with a counted game in it.
    #[schema(example = 4)]
    pub tables: i64,
}

/// A league's season.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct LeagueSeason {
    #[schema(example = 1)]
    pub league: i64,
    /// `night` or `week` (open play).
    #[schema(example = "night")]
    pub period: String,
    #[schema(example = 42)]
    pub revision: i64,
    /// Counted games.
    #[schema(example = 212)]
    pub games: i64,
    /// Nights (matches, in open play) with a counted game.
    #[schema(example = 9)]
    pub nights: i64,
    /// Players with a counted game.
    #[schema(example = 18)]
    pub players: i64,
    /// Every section of the card in the card's order, each with every line (those never won
    /// with 0 wins).
    pub sections: Vec<SectionWins>,
    pub how: How,
    pub east: East,
    pub attendance: Vec<Attendance>,
}

/// The stamp a season is kept under: the league's revision, its card and its board.
fn stamp_of(league: &League) -> u64 {
    xxhash_rust::xxh3::xxh3_64(format!("{}|{}", league.revision, base_of(league)).as_bytes())
}

/// What a league's games are worked out with besides the games: its card and board.
fn base_of(league: &League) -> String {
    let card = crate::domain::seasons::leagues::card_name(league);
    format!(
        "{card}|{}|{}|{}|{}|{}|{:?}|{}",
        league.board,
        league.min_games,
        league.best_per_night,
        league.drop_worst_nights,
        league.best_per_week,
        league.same_table_per_week,
        league.carried_in
    )
}

/// A league's season, kept per league, with what the next read needs to know whether the games
/// it was worked out from are still as they were.
struct Kept {
    season: Arc<Season>,
    base: String,
    /// The last game held, in the standings order, and the league's corrections then.
    last: i64,
    corrections: i64,
}

/// The league's season, worked out or kept. When only new games came since the season kept
/// (the games held look as they did: none corrected, voided or confirmed since), only those
/// are read, and the season is taken up again at its last night (its last week); otherwise
/// every game is read and worked out.
async fn season(state: &AppState, league: &League) -> Result<Arc<Season>> {
    let stamp = stamp_of(league);
    if let Some(kept) = state.memo.get::<Kept>(league.id, stamp) {
        return Ok(kept.season.clone());
    }
    // One request works it out; the others wait and take it.
    let flight = state.memo.flight(league.id);
    let _flying = flight.lock().await;
    if let Some(kept) = state.memo.get::<Kept>(league.id, stamp) {
        return Ok(kept.season.clone());
    }
    let base = base_of(league);
    let before = state
        .memo
        .latest::<Kept>(league.id)
        .map(|(_, k)| k)
        .filter(|k| k.base == base);
    let mut read = stored::read(
        &state.db,
        league.id,
        before.as_ref().map(|b| (b.last, b.corrections)),
    )
    .await?;
    let mut season = None;
    if let Some(b) = before.as_ref().filter(|_| read.kept) {
        // The names of the last night's players too: its games are added again.
        let names = names_of(state, b.season.tail().iter().chain(&read.games)).await?;
        let carried =
            crate::domain::seasons::standings::carried_in(state, league.id, league).await?;
        season = b.season.carry_on(league, &read.games, &names, &carried);
        if season.is_none() {
            // A game came for a night before the last, or the balances carried in changed:
            // every game again.
            read = stored::read(&state.db, league.id, None).await?;
        }
    }
    let season = Arc::new(match season {
        Some(s) => s,
        None => work_out_read(state, league, read.games).await?,
    });
    let kept = Kept {
        season: season.clone(),
        base,
        last: read.last,
        corrections: read.corrections,
    };
    state.memo.put(league.id, stamp, Arc::new(kept));
    Ok(season)
}

/// The names of the players of these games.
async fn names_of(
    state: &AppState,
    games: impl IntoIterator<Item = &SeasonGame>,
) -> Result<HashMap<i64, String>> {
    let mut ids: Vec<i64> = games
        .into_iter()
        .flat_map(|g| g.players.iter().copied())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(stored::names(&state.db, &ids).await?.into_iter().collect())
}

/// Works the season out from `games`, with the names, balances and card read for it.
async fn work_out_read(
    state: &AppState,
    league: &League,
    games: Vec<SeasonGame>,
) -> Result<Season> {
    let names = names_of(state, &games).await?;
    let carried = crate::domain::seasons::standings::carried_in(state, league.id, league).await?;
    let card = crate::domain::seasons::leagues::card(state, league).await?;
    // Tens of milliseconds for a league of thousands of games: off the request threads.
    let league = league.clone();
    tokio::task::spawn_blocking(move || {
        work_out(&Input {
            league: &league,
            games: &games,
            names: &names,
            carried: &carried,
            card: &card,
        })
    })
    .await
    .map_err(Error::internal)
}

/// A player's season in a league: the league read as its standings are (public, or members
/// only), the player one of the league's club's.
pub async fn player_season(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    player_id: i64,
) -> Result<PlayerSeason> {
    Ok(player_season_in(state, caller, league_id, player_id)
        .await?
        .2)
}

/// As `player_season`, with the league and its club (for the page).
pub async fn player_season_in(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    player_id: i64,
) -> Result<(League, Club, PlayerSeason)> {
    let (league, club) = caller.league(state, league_id, Need::Read).await?;
    let season = season(state, &league).await?;
    let mut ids = season.opponents_of(player_id);
    ids.push(player_id);
    let names: HashMap<i64, String> = stored::names_in_club(&state.db, league.club_id, &ids)
        .await?
        .into_iter()
        .collect();
    let name = names.get(&player_id).cloned().ok_or_else(|| {
        Error::NotFound(format!(
            "no player {player_id} in the club of league {league_id}"
        ))
    })?;
    let player = SeasonPlayer {
        id: player_id,
        name,
    };
    let doc = season.player(&league, player, &names);
    Ok((league, club, doc))
}

/// The league's season, read as its standings are.
pub async fn league_season(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
) -> Result<LeagueSeason> {
    let (league, _) = caller.league(state, league_id, Need::Read).await?;
    Ok(season(state, &league).await?.league.clone())
}

/// The league's season for its page: with the league, its club, the periods' names, and the
/// points period by period of the `top` players with the most points.
pub struct SeasonPage {
    pub league: League,
    pub club: Club,
    pub season: LeagueSeason,
    pub periods: Vec<String>,
    pub leaders: Vec<(SeasonPlayer, Vec<i64>)>,
}

/// The league's season and its leaders, for its page.
pub async fn league_season_page(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    top: usize,
) -> Result<SeasonPage> {
    let (league, club) = caller.league(state, league_id, Need::Read).await?;
    let season = season(state, &league).await?;
    let mut best: Vec<(i64, i64)> = season
        .players
        .iter()
        .map(|(id, k)| (*id, k.counts.points))
        .collect();
    best.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    best.truncate(top);
    let ids: Vec<i64> = best.iter().map(|b| b.0).collect();
    let names: HashMap<i64, String> = stored::names(&state.db, &ids).await?.into_iter().collect();
    let leaders = best
        .iter()
        .map(|(id, _)| {
            let points = season.players[id].periods.iter().map(|p| p.2).collect();
            let name = names
                .get(id)
                .cloned()
                .unwrap_or_else(|| format!("Player {id}"));
            (SeasonPlayer { id: *id, name }, points)
        })
        .collect();
    Ok(SeasonPage {
        periods: season.periods.iter().map(|p| p.label.clone()).collect(),
        season: season.league.clone(),
        leaders,
        league,
        club,
    })
}

/// How each player's night went, in one line for the results mail: "2 wins of 4, +75, up to
/// 3rd" (player → line), from the season as it stands (the night's place in the league's
/// nights; a later night already counted does not change this night's line).
pub async fn night_lines(
    state: &AppState,
    league: &League,
    night_id: i64,
) -> Result<HashMap<i64, String>> {
    let season = season(state, league).await?;
    let Some(at) = season
        .periods
        .iter()
        .position(|p| p.night == Some(night_id))
    else {
        return Ok(HashMap::new());
    };
    Ok(season
        .players
        .iter()
        .filter_map(|(id, k)| {
            let &(games, wins, points, rank, _) = k.periods.get(at)?;
            if games == 0 {
                return None;
            }
            let before = at
                .checked_sub(1)
                .and_then(|b| k.periods.get(b))
                .and_then(|p| p.3);
            Some((*id, night_line(games, wins, points, before, rank)))
        })
        .collect())
}

/// "2 wins of 4, +75, up to 3rd"; "1 win of 4, −40, down to 6th"; "0 wins of 4, 0, still
/// 2nd"; on her first night "… , 5th".
pub fn night_line(
    games: i64,
    wins: i64,
    points: i64,
    before: Option<u32>,
    after: Option<u32>,
) -> String {
    let signed = match points.cmp(&0) {
        std::cmp::Ordering::Greater => format!("+{points}"),
        std::cmp::Ordering::Less => format!("−{}", points.unsigned_abs()),
        std::cmp::Ordering::Equal => "0".into(),
    };
    let place = match (before, after) {
        (_, None) => "not ranked yet".to_string(),
        (Some(b), Some(a)) if a < b => format!("up to {}", crate::domain::ordinal(a as usize)),
        (Some(b), Some(a)) if a > b => format!("down to {}", crate::domain::ordinal(a as usize)),
        (Some(_), Some(a)) => format!("still {}", crate::domain::ordinal(a as usize)),
        (None, Some(a)) => crate::domain::ordinal(a as usize),
    };
    format!(
        "{} of {games}, {signed}, {place}",
        crate::domain::count(wins, "win")
    )
}

#[cfg(test)]
mod tests {
    use super::night_line;

    #[test]
    fn a_night_in_one_line() {
        assert_eq!(
            night_line(4, 2, 75, Some(5), Some(3)),
            "2 wins of 4, +75, up to 3rd"
        );
        assert_eq!(
            night_line(4, 1, -40, Some(2), Some(6)),
            "1 win of 4, −40, down to 6th"
        );
        assert_eq!(
            night_line(3, 0, 0, Some(2), Some(2)),
            "0 wins of 3, 0, still 2nd"
        );
        assert_eq!(
            night_line(4, 1, 10, None, Some(11)),
            "1 win of 4, +10, 11th"
        );
        assert_eq!(
            night_line(2, 0, -5, Some(4), None),
            "0 wins of 2, −5, not ranked yet"
        );
    }
}
