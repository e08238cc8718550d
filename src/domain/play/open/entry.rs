//! Open play's games as they are entered and confirmed: each other player at the table confirms
//! a game with a tap (or from the mail, signed), a game counts when all have or when its wait
//! runs out with no dispute (the sweeper), and the demo's games.

use super::*;

/// A player's word on a game.
#[derive(Serialize, ToSchema)]
pub struct CheckView {
    pub player: PlayerRef,
    /// `confirmed` or `disputed`.
    #[schema(example = "confirmed")]
    pub answer: String,
    #[schema(required = true)]
    pub reason: Option<String>,
    pub at: DateTime<Utc>,
}

impl From<stored::Check> for CheckView {
    fn from(c: stored::Check) -> CheckView {
        CheckView {
            player: PlayerRef {
                id: c.player_id,
                name: c.name,
            },
            answer: c.answer,
            reason: c.reason,
            at: c.at,
        }
    }
}

/// Where a game of open play stands with its players.
#[derive(Serialize, ToSchema)]
pub struct Checks {
    pub game: i64,
    /// `players`, `organizer`, or null once it counts (or in a league that is not open play).
    #[schema(required = true, schema_with = crate::domain::schemas::awaiting)]
    pub awaiting: Option<String>,
    /// When it counts unconfirmed, if nobody disputes it first.
    #[schema(required = true)]
    pub counts_at: Option<DateTime<Utc>>,
    pub checks: Vec<CheckView>,
    /// Players at the table who have not said yet.
    pub waiting_for: Vec<PlayerRef>,
}

/// The game `id` as a word on it needs: its view, league and club (read access checked).
pub(super) async fn game_for(
    state: &AppState,
    caller: &Caller,
    id: i64,
) -> Result<(crate::domain::play::game_view::Game, League, Club)> {
    let game = crate::domain::play::games::show(state, caller, id).await?;
    let ctx = stored_games::table_context(&state.db, game.table.id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no game {id}")))?;
    let (league, club) = caller.league(state, ctx.league_id, Need::Read).await?;
    Ok((game, league, club))
}

/// The players' words on a game.
pub async fn checks(state: &AppState, caller: &Caller, id: i64) -> Result<Checks> {
    let (game, league, _) = game_for(state, caller, id).await?;
    let said = stored::checks(&state.db, id).await?;
    let waiting_for = game
        .players
        .iter()
        .filter(|p| !said.iter().any(|c| c.player_id == p.player.id))
        .map(|p| p.player.clone())
        .collect();
    let counts_at = (game.awaiting.as_deref() == Some("players"))
        .then(|| game.updated_at + Duration::hours(league.confirm_hours as i64));
    Ok(Checks {
        game: id,
        awaiting: game.awaiting.clone(),
        counts_at,
        checks: said.into_iter().map(CheckView::from).collect(),
        waiting_for,
    })
}

/// The caller's player at the game's table, or why not.
pub(super) async fn player_at(
    state: &AppState,
    caller: &Caller,
    game: &crate::domain::play::game_view::Game,
    league: &League,
    club: &Club,
) -> Result<i64> {
    if !league.is_open_play() {
        return Err(Error::Conflict(format!(
            "{} is not open play: its games count as entered",
            league.name
        )));
    }
    crate::domain::play::games::seat_of(state, caller, league, club, game.table.id)
        .await?
        .ok_or_else(|| {
            Error::Forbidden("only the players at this game's table confirm or dispute it".into())
        })
}

/// A game as its event tells it, read after the change.
pub(super) async fn event_of(state: &AppState, id: i64) -> Result<serde_json::Value> {
    let mut conn = state.db.acquire().await?;
    let g = crate::domain::play::games::view(&mut conn, id).await?;
    serde_json::to_value(&g).map_err(Error::internal)
}

pub(super) fn word_refused(word: Word, game: &crate::domain::play::game_view::Game) -> Result<()> {
    match word {
        Word::Gone => Err(Error::NotFound(format!("no game {}", game.id))),
        Word::Changed => Err(Error::Conflict(format!(
            "game {} was corrected since you looked at it: look at it again, then say whether it is right",
            game.number
        ))),
        Word::NotWaiting => Err(Error::Conflict(match game.awaiting.as_deref() {
            Some("organizer") => {
                "this game is disputed: it waits for an organizer to settle it".into()
            }
            _ => "this game waits for nobody: it counts already, or was voided".into(),
        })),
        _ => Ok(()),
    }
}

/// The game as the one giving a word on it saw it: at `seen` (a page's version), or as read now.
pub(super) fn at(
    league: &League,
    game: &crate::domain::play::game_view::Game,
    seen: Option<i32>,
) -> GameAt {
    GameAt {
        league_id: league.id,
        game_id: game.id,
        version: seen.unwrap_or(game.version),
    }
}

/// The caller confirms a game at their table, as they saw it (`seen`: its version, when a page
/// showed it). Answers the game's checks after.
pub async fn confirm(
    state: &AppState,
    caller: &Caller,
    id: i64,
    seen: Option<i32>,
) -> Result<Checks> {
    let (game, league, club) = game_for(state, caller, id).await?;
    let me = player_at(state, caller, &game, &league, &club).await?;
    confirm_as(
        state,
        &league,
        &game,
        seen,
        me,
        caller.user().ok().map(|u| u.id),
    )
    .await?;
    checks(state, caller, id).await
}

/// Player `me` (through account `user`) confirms `game` as seen.
pub(super) async fn confirm_as(
    state: &AppState,
    league: &League,
    game: &crate::domain::play::game_view::Game,
    seen: Option<i32>,
    me: i64,
    user: Option<i64>,
) -> Result<Word> {
    let event = serde_json::to_value(game).map_err(Error::internal)?;
    let word = stored::confirm(&state.db, at(league, game, seen), me, user, event).await?;
    word_refused(word, game)?;
    after_word(state, league.id);
    Ok(word)
}

/// Counts the games whose wait ran out with no dispute (a few at a time); how many.
pub async fn count_overdue(state: &AppState) -> Result<usize> {
    let mut counted = 0;
    for (league, game) in stored::overdue(&state.db, 20).await? {
        let mut event = event_of(state, game).await?;
        event["awaiting"] = serde_json::Value::Null;
        if stored::count_overdue(&state.db, league, game, event).await? {
            counted += 1;
            after_word(state, league);
        }
    }
    Ok(counted)
}

/// Counts overdue games and asks players for their word on games entered, for as long as the
/// process runs (every two and a half worker passes: 5 s).
pub async fn run_sweeper(state: std::sync::Arc<AppState>) {
    loop {
        tokio::time::sleep(state.worker_pass * 5 / 2).await;
        if let Err(e) = count_overdue(&state).await {
            tracing::debug!(error = %e, "counting overdue open-play games waits");
        }
        if let Err(e) = ask_for_words(&state).await {
            tracing::debug!(error = %e, "asking open-play players for their word waits");
        }
    }
}

/// How long a match's games stay as they are (nothing entered or corrected) before the players
/// whose word they wait for are mailed: a table enters its games in a row and gets one mail.
pub const ASK_QUIET_SECS: i64 = 600;

/// What a player's signed link to give their word on a match's games signs.
pub(super) fn word_what(match_id: i64, user: i64) -> String {
    format!("match words {match_id} {user}")
}

/// The link a player follows from the mail to confirm or dispute a match's games, no login.
pub fn word_link(state: &AppState, match_id: i64, user: i64) -> String {
    format!(
        "{}/matches/{match_id}/word/{user}-{}",
        state.public_url,
        state.keys.sign(&word_what(match_id, user))
    )
}

/// Mails the players whose word a match's games wait for, once the games are in and quiet (a
/// few matches at a time); how many letters.
pub async fn ask_for_words(state: &AppState) -> Result<usize> {
    let mut letters = 0;
    for (league_id, match_id) in stored::to_ask(&state.db, ASK_QUIET_SECS, 20).await? {
        let Some((league, club)) =
            crate::storage::seasons::leagues::with_club(&state.db, league_id).await?
        else {
            continue;
        };
        let mut tx = state.db.begin().await?;
        let Some(asks) = stored::claim_ask(&mut tx, match_id, ASK_QUIET_SECS).await? else {
            continue;
        };
        let Some(m) = stored::get(&mut *tx, match_id).await? else {
            continue;
        };
        let players: Vec<i64> = asks.iter().map(|a| a.0).collect();
        for (player, user, email, name) in stored::readers_of(&mut tx, league.id, &players).await? {
            let games = asks.iter().find(|a| a.0 == player).map(|a| a.1.as_slice());
            ask(
                state,
                &mut tx,
                (&league, &club, &m),
                (user, email, name),
                games.unwrap_or_default(),
                None,
            )
            .await?;
            letters += 1;
        }
        tx.commit().await?;
    }
    if letters > 0 {
        mail::wake(state);
    }
    Ok(letters)
}

/// The letter asking a reader (user id, email, name) for their word on `games` of match `m`.
pub(super) async fn ask(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    (league, club, m): (&League, &Club, &Match),
    (user, email, name): (i64, String, String),
    games: &[i64],
    lead: Option<String>,
) -> Result<()> {
    let view = MatchView::of(m, None);
    let mut paragraphs: Vec<String> = lead.into_iter().collect();
    paragraphs.push(format!(
        "The games of your match at {} on {} are entered. Please look them over:",
        m.place, view.when
    ));
    for &id in games {
        let game = crate::domain::play::games::view(tx, id).await?;
        let scores: Vec<String> = game
            .players
            .iter()
            .map(|p| format!("{} {:+}", p.player.name, p.score))
            .collect();
        paragraphs.push(format!(
            "Game {}: {}. {}.{}",
            game.number,
            crate::domain::play::games::in_words(&game),
            scores.join(", "),
            counts_at_words(league, club, &game)
                .map(|t| format!(" Counts by itself {t}."))
                .unwrap_or_default()
        ));
    }
    paragraphs.push(
        "One tap confirms them; if something is wrong, say what and the organizers settle it. Games nobody disputes count by themselves at the times above."
            .into(),
    );
    let subject = match games.len() {
        1 => format!(
            "{}: a game of your match {} waits for your word",
            league.name, view.when
        ),
        n => format!(
            "{}: {n} games of your match {} wait for your word",
            league.name, view.when
        ),
    };
    let link = word_link(state, m.id, user);
    let page = format!("{}/matches/{}", state.public_url, m.id);
    let why = format!(
        "as a player of this match in {}, {}",
        league.name, club.name
    );
    let letter = MatchLetter {
        kind: "match_words",
        subject: &subject,
        paragraphs: &paragraphs,
        actions: &[
            ("Confirm or dispute the games", link.as_str()),
            ("See the match", page.as_str()),
        ],
        why: &why,
        caused_by: None,
    };
    send(state, tx, league, club, (user, email, name), &letter).await
}

/// A player's signed link to a match's games: the match, its league and club, the account and
/// its player in the match.
pub(super) struct SignedWord {
    pub(super) m: Match,
    pub(super) league: League,
    pub(super) club: Club,
    pub(super) user: i64,
    pub(super) player: i64,
}

pub(super) async fn signed_word(state: &AppState, id: i64, token: &str) -> Result<SignedWord> {
    signed_player(state, id, token, word_what).await
}

/// The match, the member and their player a signed link from a match's mail names (`what`: the
/// words its signature covers), while the member is in the league and the player in the match.
pub(super) async fn signed_player(
    state: &AppState,
    id: i64,
    token: &str,
    what: fn(i64, i64) -> String,
) -> Result<SignedWord> {
    let bad = || {
        Error::NotFound(
            "this link is not one the club sent (it may be cut short): open the match from the league's page instead"
                .into(),
        )
    };
    let (user, sig) = token.split_once('-').ok_or_else(bad)?;
    let user: i64 = user.parse().map_err(|_| bad())?;
    if token.len() > 200 || !state.keys.signed(&what(id, user), sig) {
        return Err(bad());
    }
    let m = stored::get(&state.db, id).await?.ok_or_else(bad)?;
    let (league, club) = crate::storage::seasons::leagues::with_club(&state.db, m.league_id)
        .await?
        .ok_or_else(bad)?;
    if !crate::storage::play::ahead::is_member(&state.db, league.id, user).await? {
        return Err(Error::NotFound(format!(
            "this link's member is no longer in {}",
            club.name
        )));
    }
    let player = stored::player_of_user(&state.db, club.id, user)
        .await?
        .map(|p| p.0)
        .filter(|p| m.players.iter().any(|x| x.0 == *p))
        .ok_or_else(|| {
            Error::NotFound("this link's player is not in this match any more".into())
        })?;
    Ok(SignedWord {
        m,
        league,
        club,
        user,
        player,
    })
}

/// The match a signed link is for, as its player sees it (nothing is saved by looking), and
/// the player's name.
pub async fn word_page(state: &AppState, id: i64, token: &str) -> Result<(MatchPage, String)> {
    let s = signed_word(state, id, token).await?;
    let name =
        s.m.players
            .iter()
            .find(|p| p.0 == s.player)
            .map(|p| p.1.clone())
            .unwrap_or_default();
    let page = page_for(state, &s.m, s.league, s.club, Some(s.player), None).await?;
    Ok((page, name))
}

/// A word given through a signed link.
pub enum WordGiven {
    /// Confirm these games (id, the version shown).
    Confirm(Vec<(i64, i32)>),
    /// Dispute a game (id, the version shown) with a reason.
    Dispute(i64, i32, String),
}

/// The most games one signed confirmation takes (a match's page lists at most 100).
pub const MAX_CONFIRM: usize = 100;

/// A player's word through their signed link; what it did, in words.
pub async fn word_signed(
    state: &AppState,
    id: i64,
    token: &str,
    word: WordGiven,
) -> Result<String> {
    let s = signed_word(state, id, token).await?;
    let game_of = |gid: i64| async move {
        let game = crate::domain::play::games::view(&mut *state.db.acquire().await?, gid)
            .await
            .map_err(|e| e.or_not_found(|| format!("no game {gid}")))?;
        if Some(game.table.id) != s.m.table_id {
            return Err(Error::NotFound(format!("game {gid} is not of this match")));
        }
        Ok::<_, Error>(game)
    };
    match word {
        WordGiven::Dispute(gid, version, reason) => {
            let game = game_of(gid).await?;
            dispute_as(
                state,
                &s.league,
                &s.club,
                &game,
                Some(version),
                (s.player, Some(s.user)),
                &reason,
            )
            .await?;
            Ok(format!(
                "Disputed: game {} does not count until an organizer settles it; they have your reason.",
                game.number
            ))
        }
        WordGiven::Confirm(list) => {
            if list.is_empty() {
                return Err(Error::invalid("games", "choose the games to confirm"));
            }
            if list.len() > MAX_CONFIRM {
                return Err(Error::invalid(
                    "games",
                    format!("confirm at most {MAX_CONFIRM} games at once"),
                ));
            }
            let (mut confirmed, mut counted, mut refused) = (Vec::new(), Vec::new(), Vec::new());
            for (gid, version) in list {
                let game = game_of(gid).await?;
                match confirm_as(
                    state,
                    &s.league,
                    &game,
                    Some(version),
                    s.player,
                    Some(s.user),
                )
                .await
                {
                    Ok(Word::Counted) => {
                        confirmed.push(game.number);
                        counted.push(game.number);
                    }
                    Ok(_) => confirmed.push(game.number),
                    Err(Error::Conflict(why)) => {
                        refused.push(format!("Game {}: {why}.", game.number))
                    }
                    Err(e) => return Err(e),
                }
            }
            let mut said = Vec::new();
            if !confirmed.is_empty() {
                said.push(format!("You confirmed {}.", numbered(&confirmed)));
            }
            if !counted.is_empty() {
                said.push(format!(
                    "{} {} now: everyone has confirmed.",
                    capitalized(&numbered(&counted)),
                    if counted.len() == 1 {
                        "counts"
                    } else {
                        "count"
                    }
                ));
            }
            said.extend(refused);
            Ok(said.join(" "))
        }
    }
}

/// A game's league and the game as its event tells it, for the demo's words on it.
pub(super) async fn demo_game(
    state: &AppState,
    caller: &Caller,
    game: i64,
) -> Result<(GameAt, serde_json::Value)> {
    let g = crate::domain::play::games::show(state, caller, game).await?;
    let ctx = stored_games::table_context(&state.db, g.table.id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no game {game}")))?;
    Ok((
        GameAt {
            league_id: ctx.league_id,
            game_id: g.id,
            version: g.version,
        },
        serde_json::to_value(&g).map_err(Error::internal)?,
    ))
}
