//! A club's players: add, rename, deactivate; statistics and a player's profile.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::people::names::clean_name;
use crate::domain::{AppState, Caller, Error, Need, Result};
pub use crate::standings::Line;
use crate::storage::people::clubs::{self, Club};
use crate::storage::people::players::{self, Updated};
pub use crate::storage::people::players::{Player, RosterRow};
use crate::storage::play::games;
pub use crate::storage::play::games::SeasonLine;
pub use crate::storage::play::games::{NightLine, PlayerGame};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    #[schema(example = "Rose Adler", min_length = 1, max_length = 100)]
    pub name: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerChange {
    /// A new name.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 100)]
    pub name: Option<String>,
    /// false to deactivate (kept in history, no longer offered for check-in).
    #[serde(default)]
    pub active: Option<bool>,
    /// The player's id at a ranking body, written into tournament results; `""` clears it.
    #[serde(default)]
    #[schema(example = "AMJ-10442", max_length = 100, pattern = r"^[^\u0000]*$")]
    pub ranking_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_names_are_lines_or_a_csv_name_column() {
        assert_eq!(
            names_from_paste("Ann\n\n  Bea Lee \nann\nAdler, Rose\n").unwrap(),
            ["Ann", "Bea Lee", "Adler, Rose"]
        );
        assert_eq!(
            names_from_paste("id,Name,email\n1,\"Ng, Kit\",k@x\n2,Lou,l@x\n").unwrap(),
            ["Ng, Kit", "Lou"]
        );
        assert!(names_from_paste("  \n").is_err());
        let many: String = (0..=MAX_BULK).map(|i| format!("P{i}\n")).collect();
        assert!(names_from_paste(&many).is_err());
    }
}

/// The 409 for a name the club already has (the same in another case, or a look-alike).
fn name_taken(name: &str, existing: &Player) -> Error {
    if existing.name == name {
        Error::Conflict(format!("the club already has a player named `{name}`"))
    } else {
        Error::Conflict(format!(
            "`{name}` is the club's player `{}` (player {}) written another way (another case, or letters that look the same); use that player, or give a name that differs",
            existing.name, existing.id
        ))
    }
}

/// The club's players, active ones unless `all`.
pub async fn list(state: &AppState, caller: &Caller, slug: &str, all: bool) -> Result<Vec<Player>> {
    let (club, _) = caller.club(state, slug, Need::Read).await?;
    Ok(players::list(&state.db, club.id, all).await?)
}

/// The club's players with who they are on the service (organizers): linked to an account,
/// claimed by a member, invited, or none of these.
pub async fn roster(
    state: &AppState,
    club: &crate::domain::access::Organized,
) -> Result<Vec<RosterRow>> {
    Ok(players::roster(&state.db, club.club().id, None).await?)
}

/// Adds a player to the club.
pub async fn add(state: &AppState, caller: &Caller, slug: &str, p: NewPlayer) -> Result<Player> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    let name = clean_name(&p.name)?;
    players::create(&state.db, club.id, &name)
        .await?
        .map_err(|existing| name_taken(&name, &existing))
}

/// The most names one paste may add.
pub const MAX_BULK: usize = 500;

/// What a paste of names did: who was added, and who was not and why.
pub struct Added {
    pub added: Vec<String>,
    pub skipped: Vec<(String, String)>,
}

/// Names from pasted text: one per line, or a CSV whose header has a `name` column (quoted
/// cells, commas inside quotes); blank lines and repeats within the paste are skipped.
pub fn names_from_paste(text: &str) -> Result<Vec<String>> {
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .peekable();
    let header = lines.peek().map(|l| csv_cells(l)).unwrap_or_default();
    // A CSV file when its first row names a `name` column; otherwise one name per line (a
    // name may then hold a comma: "Adler, Rose").
    let column = (header.len() > 1)
        .then(|| header.iter().position(|h| h.eq_ignore_ascii_case("name")))
        .flatten();
    if column.is_some() {
        lines.next();
    }
    let mut names: Vec<String> = Vec::new();
    for line in lines {
        let name = match column {
            Some(c) => csv_cells(line).get(c).cloned().unwrap_or_default(),
            None => line.to_string(),
        };
        let name = name.trim().to_string();
        if !name.is_empty() && !names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            names.push(name);
        }
        if names.len() > MAX_BULK {
            return Err(Error::invalid(
                "names",
                format!("paste at most {MAX_BULK} names at a time"),
            ));
        }
    }
    if names.is_empty() {
        return Err(Error::invalid("names", "paste at least one name"));
    }
    Ok(names)
}

/// The cells of one CSV row (RFC 4180 quoting).
fn csv_cells(line: &str) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    reader
        .records()
        .next()
        .and_then(|r| r.ok())
        .map(|r| r.iter().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Adds many players at once (organizers): each name is checked as a single add would be; a
/// name the club already has is reported, not an error for the rest.
pub async fn add_many(state: &AppState, caller: &Caller, slug: &str, text: &str) -> Result<Added> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    let mut out = Added {
        added: Vec::new(),
        skipped: Vec::new(),
    };
    for raw in names_from_paste(text)? {
        let name = match clean_name(&raw) {
            Ok(n) => n,
            Err(e) => {
                out.skipped.push((raw, e.message()));
                continue;
            }
        };
        match players::create(&state.db, club.id, &name).await? {
            Ok(p) => out.added.push(p.name),
            Err(existing) if existing.name == name => out
                .skipped
                .push((name, "already a player of the club".into())),
            Err(existing) => out.skipped.push((
                name,
                format!(
                    "the club's player `{}` written another way (another case, or letters that look the same)",
                    existing.name
                ),
            )),
        }
    }
    Ok(out)
}

/// Renames, deactivates or reactivates a player.
pub async fn update(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    id: i64,
    change: PlayerChange,
) -> Result<Player> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    let name = change.name.as_deref().map(clean_name).transpose()?;
    let ranking_id = match change.ranking_id.as_deref().map(str::trim) {
        None => None,
        Some("") => Some(None),
        Some(r) if r.chars().count() > 100 || r.contains('\0') => {
            return Err(Error::invalid(
                "ranking_id",
                "give a ranking id of at most 100 characters",
            ));
        }
        Some(r) => Some(Some(r)),
    };
    // A new name shows in every league's standings: they are read again.
    let _unheard = state.freshness.unheard();
    match players::update(
        &state.db,
        club.id,
        id,
        name.as_deref(),
        change.active,
        ranking_id,
    )
    .await?
    {
        Updated::Done(p) => Ok(p),
        Updated::NotFound => Err(Error::NotFound(format!("this club has no player {id}"))),
        Updated::NameTaken => {
            let name = name.unwrap_or_default();
            match players::same_name(&state.db, club.id, &name).await? {
                Some(existing) => Err(name_taken(&name, &existing)),
                None => Err(Error::Conflict(format!(
                    "the club already has a player named `{name}`"
                ))),
            }
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct BestHand {
    #[schema(example = "2468#2")]
    pub line: String,
    pub value: i32,
    pub times: i64,
}

#[derive(Serialize, ToSchema)]
pub struct PlayerStats {
    pub player_id: i64,
    pub player: String,
    pub games: i64,
    pub wins: i64,
    pub points: i64,
    pub self_picks: i64,
    pub jokerless_wins: i64,
    pub deal_ins: i64,
    pub dead_hands: i64,
    pub wall_games: i64,
    /// The lines this player won with, most valuable first.
    pub best_hands: Vec<BestHand>,
}

/// The player's club, or 404 naming the player.
async fn club_of(state: &AppState, id: i64) -> Result<Club> {
    let not_found = || Error::NotFound(format!("no player {id}"));
    let club_id = players::club_of(&state.db, id)
        .await?
        .ok_or_else(not_found)?;
    clubs::by_id(&state.db, club_id)
        .await?
        .ok_or_else(not_found)
}

/// A player's statistics over all the club's leagues (members of the club). Anyone else gets
/// the same 404 as for a player that does not exist.
pub async fn stats(state: &AppState, caller: &Caller, id: i64) -> Result<PlayerStats> {
    let not_found = || format!("no player {id}");
    let club = club_of(state, id).await?;
    caller
        .club_access(state, club, Need::Read)
        .await
        .map_err(|e| match e {
            Error::Unauthorized(_) => Error::NotFound(not_found()),
            other => other.or_not_found(not_found),
        })?;
    let t = games::player_totals(&state.db, id, false)
        .await?
        .ok_or_else(|| Error::NotFound(not_found()))?;
    let best = games::best_hands(&state.db, id).await?;
    Ok(PlayerStats {
        player_id: t.player_id,
        player: t.name,
        games: t.games,
        wins: t.wins,
        points: t.points,
        self_picks: t.self_picks,
        jokerless_wins: t.jokerless_wins,
        deal_ins: t.deal_ins,
        dead_hands: t.dead_hands,
        wall_games: t.wall_games,
        best_hands: best
            .into_iter()
            .map(|(line, value, times)| BestHand { line, value, times })
            .collect(),
    })
}

/// A winning hand as entered: the line, its value and the tiles (in tile notation).
pub struct WinningHand {
    pub line: String,
    pub value: i32,
    pub tiles: String,
    /// What each joker of the hand stood for, in order.
    pub jokers: Vec<String>,
}

/// A player's profile for their page.
pub struct Profile {
    pub club: Club,
    /// How the caller (a member with an account) stands to this player.
    pub link: Link,
    pub totals: Line,
    pub nights: Vec<NightLine>,
    pub best: Vec<WinningHand>,
    /// The latest games, latest first (at most `HISTORY`).
    pub games: Vec<PlayerGame>,
    /// Every league (season) the player played in, newest first: (id, name, first and last
    /// night, games, points).
    pub seasons: Vec<SeasonLine>,
    /// For the club's organizers: the player's ranking-body id as it stands (`Some("")` when
    /// none); `None` for everyone else.
    pub ranking_id: Option<String>,
}

/// How a logged-in member stands to a player of the club.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// Not a member with an account: nothing to offer.
    None,
    /// The player is this member.
    Mine,
    /// The member said "this is me"; an organizer has not confirmed yet.
    Claimed,
    /// Someone else is linked to the player, or claims to be.
    Taken,
    /// The member may say "this is me".
    Open,
}

/// How many of a player's latest games the profile lists.
pub const HISTORY: i64 = 200;

/// A player's profile: for club members, and for anyone once the player has a game in a
/// public league (the public standings link to it), who then sees the public leagues' games
/// only.
pub async fn profile(state: &AppState, caller: &Caller, id: i64) -> Result<Profile> {
    let not_found = || Error::NotFound(format!("no player {id}"));
    let club = club_of(state, id).await?;
    let member = caller
        .club_access(state, club.clone(), Need::Read)
        .await
        .is_ok();
    if !member && !games::plays_in_public(&state.db, id).await? {
        return Err(not_found());
    }
    let public_only = !member;
    let link = match (member, caller.user()) {
        (true, Ok(user)) => match players::link_of(&state.db, id).await? {
            Some((Some(u), _)) if u == user.id => Link::Mine,
            Some((_, Some(u))) if u == user.id => Link::Claimed,
            Some((None, None)) => Link::Open,
            _ => Link::Taken,
        },
        _ => Link::None,
    };
    let totals = games::player_totals(&state.db, id, public_only)
        .await?
        .ok_or_else(not_found)?;
    let best = games::winning_hands(&state.db, id, public_only)
        .await?
        .into_iter()
        .map(|(line, value, hand, jokers)| WinningHand {
            line,
            value,
            jokers: jokers
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            tiles: match hand {
                serde_json::Value::String(s) => s,
                serde_json::Value::Array(a) => a
                    .iter()
                    .filter_map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => String::new(),
            },
        })
        .collect();
    let organizer = member
        && caller
            .club_access(state, club.clone(), Need::Admin)
            .await
            .is_ok();
    let ranking_id = if organizer {
        Some(
            players::get(&state.db, club.id, id)
                .await?
                .and_then(|p| p.ranking_id)
                .unwrap_or_default(),
        )
    } else {
        None
    };
    Ok(Profile {
        seasons: games::player_seasons(&state.db, id, public_only).await?,
        ranking_id,
        club,
        link,
        totals,
        nights: games::player_nights(&state.db, id, public_only).await?,
        best,
        games: games::player_games(&state.db, id, public_only, HISTORY).await?,
    })
}

/// A member says "this player is me": the club's organizers are mailed a link that confirms it
/// in one tap.
pub async fn claim(state: &AppState, caller: &Caller, id: i64) -> Result<String> {
    let user = caller.user()?;
    let club = club_of(state, id).await?;
    caller
        .club_access(state, club.clone(), Need::Read)
        .await
        .map_err(|e| e.or_not_found(|| format!("no player {id}")))?;
    let mut tx = state.db.begin().await?;
    players::lock_member(&mut tx, club.id, user.id).await?;
    // A player made for the member on joining that has never played gives way once an
    // organizer confirms; one that has played stays theirs.
    let placeholder = players::unplayed_of(&mut tx, club.id, user.id).await?;
    // One waiting claim a member: a member cannot hold players that others are.
    if let Some((_, said)) = players::claim_of(&mut tx, club.id, user.id).await? {
        return Err(Error::Conflict(format!(
            "you said you are {said} already, and an organizer has not answered yet: one claim at a time (an organizer answers it on the club's members page)"
        )));
    }
    if let Some((_, mine, linked)) = players::of_member(&mut tx, club.id, user.id).await?
        && !(linked && placeholder.is_some())
    {
        return Err(Error::Conflict(if linked {
            format!(
                "you are {mine} on {}'s player list already, with games; if that is wrong, an organizer renames or deactivates one of the two",
                club.name
            )
        } else {
            format!("you said you are {mine} already; an organizer has not answered yet")
        }));
    }
    let name = players::name_in(&mut tx, club.id, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no player {id}")))?;
    if players::invited_elsewhere(&mut tx, id, user.id).await? {
        return Err(Error::Conflict(format!(
            "an organizer of {} has invited {name} by mail to another address: whoever gets that invitation joins as {name}. If it is yours, join from its link; if not, ask an organizer",
            club.name
        )));
    }
    if !players::claim_in(&mut tx, club.id, id, user.id).await? {
        return Err(Error::Conflict(format!(
            "{name} is linked to an account already, or someone else says they are {name}"
        )));
    }
    let mailed = crate::domain::people::roster::mail_claims(state, &mut tx, &club).await?;
    tx.commit().await?;
    crate::domain::outbox::mail::wake(state);
    Ok(if mailed {
        format!(
            "Asked: the organizers of {} have a mail to confirm that you are {name}.",
            club.name
        )
    } else {
        format!(
            "Asked: an organizer of {} confirms that you are {name} (the organizers get claims in one mail a day, and see them on the club's members page).",
            club.name
        )
    })
}

/// Open claims of the club: (player id, player name, member's name, member's email).
pub async fn claims(
    state: &AppState,
    club: &crate::domain::people::members::Organized,
) -> Result<Vec<(i64, String, String, String)>> {
    Ok(players::claims(&state.db, club.club().id).await?)
}

/// An organizer confirms or refuses a member's claim to be a player.
pub async fn settle_claim(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    id: i64,
    confirm: bool,
) -> Result<String> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    let named = players::claims(&state.db, club.id)
        .await?
        .into_iter()
        .find(|c| c.0 == id)
        .map(|(_, player, member, _)| (player, member));
    if !players::settle_claim(&state.db, club.id, id, confirm).await? {
        return Err(Error::Conflict(
            "no claim waits on this player: the member who made it left the club or was removed, another organizer answered it, or that member is linked to another player; nothing was linked".into(),
        ));
    }
    let (player, member) = named.unwrap_or_else(|| ("the player".into(), "The member".into()));
    Ok(if confirm {
        format!("Confirmed: {member} is {player}, and sees {player}'s games as theirs.")
    } else {
        format!("Refused: {member} is not linked to {player}.")
    })
}

/// The players linked to the caller's account: (player id, name, club slug, club name).
pub async fn mine(state: &AppState, caller: &Caller) -> Result<Vec<(i64, String, String, String)>> {
    let user = caller.user()?;
    Ok(players::of_user(&state.db, user.id).await?)
}
