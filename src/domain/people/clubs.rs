//! Clubs: create one (the caller owns it), see one, and a club's overview for its page.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::{AppState, Caller, Error, Need, Principal, Result, Role};
use crate::rules::builtin;
pub use crate::storage::people::clubs::Club;
use crate::storage::people::players::Player;
use crate::storage::seasons::leagues::League;
pub use crate::storage::seasons::leagues::PublicLeague;
use crate::storage::{
    cards::library as stored_cards, people::clubs, people::players, seasons::leagues,
};

#[derive(Serialize, ToSchema)]
pub struct ClubView {
    #[schema(example = "tuesday-tiles")]
    pub slug: String,
    pub name: String,
    #[schema(example = "America/New_York")]
    pub time_zone: String,
}

impl From<Club> for ClubView {
    fn from(c: Club) -> Self {
        ClubView {
            slug: c.slug,
            name: c.name,
            time_zone: c.time_zone,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewClub {
    /// Lowercase letters, digits and dashes, 2 to 63 characters; used in URLs.
    #[schema(example = "tuesday-tiles", pattern = "^[a-z0-9][a-z0-9-]{1,62}$")]
    pub slug: String,
    #[schema(example = "Tuesday Tiles", min_length = 1, max_length = 200)]
    pub name: String,
    /// The club's clock: an IANA name such as `America/New_York`; default UTC. Anything else
    /// is 422 naming `time_zone`, with the zone probably meant as its `suggestion`
    /// (`Eastern` → `America/New_York`).
    #[serde(default)]
    #[schema(example = "America/New_York", min_length = 1, max_length = 64)]
    pub time_zone: Option<String>,
}

/// A change to a club (organizers): its name, its clock, or both.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClubChange {
    #[serde(default)]
    #[schema(example = "Tuesday Tiles", min_length = 1, max_length = 200)]
    pub name: Option<String>,
    /// An IANA name, as for a new club.
    #[serde(default)]
    #[schema(example = "America/Chicago", min_length = 1, max_length = 64)]
    pub time_zone: Option<String>,
}

fn valid_slug(s: &str) -> bool {
    let b = s.as_bytes();
    (2..=63).contains(&b.len())
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

/// Creates a club owned by the caller (a logged-in user).
pub async fn create(state: &AppState, caller: &Caller, n: NewClub) -> Result<Club> {
    let user = caller.user()?;
    if !valid_slug(&n.slug) {
        return Err(Error::invalid(
            "slug",
            "use 2 to 63 lowercase letters, digits and dashes, starting with a letter or digit",
        ));
    }
    let name = crate::domain::text::one_line("name", &n.name, 200)?;
    let name = name.as_str();
    let tz = match &n.time_zone {
        Some(typed) => crate::domain::clock::zone_name(typed)?,
        None => "UTC".into(),
    };
    let mut tx = state.db.begin().await?;
    crate::domain::people::budgets::may_make_club(state, &mut tx, user).await?;
    let club = clubs::create_with_owner(&mut tx, &n.slug, name, &tz, user.id)
        .await?
        .ok_or_else(|| Error::Conflict(format!("the slug `{}` is taken", n.slug)))?;
    tx.commit().await?;
    Ok(club)
}

/// Renames a club or sets its clock (organizers). A club whose stored zone was no name, kept on
/// UTC until now, is no longer flagged once a zone is picked.
pub async fn update(state: &AppState, caller: &Caller, slug: &str, c: ClubChange) -> Result<Club> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    let name = c
        .name
        .as_deref()
        .map(|n| crate::domain::text::one_line("name", n, 200))
        .transpose()?;
    let zone = c
        .time_zone
        .as_deref()
        .map(crate::domain::clock::zone_name)
        .transpose()?;
    Ok(clubs::update(&state.db, club.id, name.as_deref(), zone.as_deref()).await?)
}

/// The name a club's time zone had when it was none (it is on UTC until an organizer picks its
/// zone), if so.
pub async fn zone_to_pick(state: &AppState, club: &Club) -> Result<Option<String>> {
    if !crate::domain::clock::is_name(&club.time_zone) {
        return Ok(Some(club.time_zone.clone()));
    }
    Ok(clubs::zone_was(&state.db, club.id).await?)
}

/// A club the caller belongs to (or holds a token of).
pub async fn show(state: &AppState, caller: &Caller, slug: &str) -> Result<Club> {
    Ok(caller.club(state, slug, Need::Read).await?.0)
}

/// What the start page lists for this caller.
pub struct Front {
    /// The clubs the caller belongs to.
    pub mine: Vec<Club>,
    /// Public leagues, newest first: a club shows to strangers only through these.
    pub public: Vec<PublicLeague>,
}

/// The start page: the caller's clubs, and the public leagues.
pub async fn front(state: &AppState, caller: &Caller) -> Result<Front> {
    let mine = match &caller.0 {
        Some(Principal::User(u)) => clubs::of_user(&state.db, u.id).await?,
        _ => Vec::new(),
    };
    Ok(Front {
        mine,
        public: leagues::public(&state.db, 50).await?,
    })
}

/// A club as its page shows it to this caller.
pub struct Overview {
    pub club: Club,
    /// The caller's role, when they belong to the club.
    pub role: Option<Role>,
    /// Every league for members; public ones for everyone else.
    pub leagues: Vec<League>,
    /// Active players, for members.
    pub players: Vec<Player>,
    /// Cards a new league can use: (value for the form, label); the club's own for organizers.
    pub cards: Vec<(String, String)>,
}

/// For someone logged in who is not a member of the club but was: her departure in words,
/// "Rose took you out of Oak Club on Tue Dec 1, 7:00 PM EST." or "You left Oak Club on …".
/// Nothing for anyone else (a stranger learns nothing about a club that is not public).
pub async fn departed(
    state: &AppState,
    caller: &Caller,
    slug: &str,
) -> Result<Option<(Club, String)>> {
    let Ok(me) = caller.user() else {
        return Ok(None);
    };
    let Some(club) = clubs::by_slug(&state.db, slug).await? else {
        return Ok(None);
    };
    if caller.role_in(state, &club).await?.is_some() {
        return Ok(None);
    }
    let Some((at, by)) = clubs::departure(&state.db, club.id, me.id).await? else {
        return Ok(None);
    };
    let when = crate::domain::clock::Clock::of(&club.time_zone).at(at);
    let words = match by {
        Some(by) => format!("{by} took you out of {} on {when}.", club.name),
        None => format!("You left {} on {when}.", club.name),
    };
    Ok(Some((club, words)))
}

/// The club's page: members see everything; anyone else sees its public leagues, and a club
/// without any is not found (as the API answers).
pub async fn overview(state: &AppState, caller: &Caller, slug: &str) -> Result<Overview> {
    let not_found = || Error::NotFound(format!("no club `{slug}`"));
    let club = clubs::by_slug(&state.db, slug)
        .await?
        .ok_or_else(not_found)?;
    let role = caller.role_in(state, &club).await?;
    let leagues: Vec<League> = leagues::list(&state.db, club.id)
        .await?
        .into_iter()
        .filter(|l| role.is_some() || l.visibility == "public")
        .collect();
    if role.is_none() && leagues.is_empty() {
        return Err(not_found());
    }
    let organizer = role.is_some_and(|r| r >= Role::Organizer);
    let players = if role.is_some() {
        players::list(&state.db, club.id, false).await?
    } else {
        Vec::new()
    };
    let cards = cards_for(state, &club, organizer).await?;
    Ok(Overview {
        club,
        role,
        leagues,
        players,
        cards,
    })
}

pub use crate::storage::cards::library::card_title;

/// Cards a league of the club can use, as a form offers them: (value, label); the club's own
/// only for its organizers, newest first and before the built-in ones (a new league's form
/// offers the club's newest card first).
pub async fn cards_for(
    state: &AppState,
    club: &Club,
    organizer: bool,
) -> Result<Vec<(String, String)>> {
    let mut cards: Vec<(String, String)> = Vec::new();
    if organizer {
        let mut own = stored_cards::list_for_club(&state.db, club.id).await?;
        own.reverse();
        for c in own {
            cards.push((
                c.id.to_string(),
                format!(
                    "{} (card {}, version {})",
                    card_title(&c.name, i64::from(c.year)),
                    c.id,
                    c.version
                ),
            ));
        }
    }
    cards.extend(builtin::names().map(|n| (n.to_string(), format!("{n} (built in)"))));
    Ok(cards)
}

/// The websites from which the club's API tokens may be used in a browser (CORS).
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AllowedOrigins {
    /// Origins as a browser sends them: `https://` or `http://`, a host and an optional port,
    /// no path (at most 20).
    #[schema(schema_with = crate::domain::schemas::origins)]
    pub origins: Vec<String>,
}

pub use crate::domain::schemas::MAX_ORIGINS;

/// An origin as browsers send it (`https://club.example`, `http://localhost:3000`), lowercase,
/// or why it is not one.
pub fn normal_origin(text: &str) -> std::result::Result<String, String> {
    let text = text.trim();
    let url = url::Url::parse(text).map_err(|_| {
        format!("`{text}` is not an origin; give one like https://tuesdaytiles.example")
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!(
            "`{text}` is not an origin; give http:// or https:// and a host"
        ));
    }
    if !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
        || url.path() != "/"
    {
        return Err(format!(
            "`{text}` is not an origin: give the scheme, host and port only, with no path"
        ));
    }
    Ok(url.origin().ascii_serialization())
}

/// The club's allowed origins (organizers).
pub async fn allowed_origins(
    state: &AppState,
    caller: &Caller,
    slug: &str,
) -> Result<AllowedOrigins> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    Ok(AllowedOrigins {
        origins: clubs::allowed_origins(&state.db, club.id).await?,
    })
}

/// Replaces the club's allowed origins (organizers).
pub async fn set_allowed_origins(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    input: AllowedOrigins,
) -> Result<AllowedOrigins> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    if input.origins.len() > MAX_ORIGINS {
        return Err(Error::invalid(
            "origins",
            format!("list at most {MAX_ORIGINS} websites"),
        ));
    }
    let mut origins = Vec::new();
    for (i, text) in input.origins.iter().enumerate() {
        let origin =
            normal_origin(text).map_err(|m| Error::invalid(&format!("origins[{i}]"), m))?;
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
    clubs::set_allowed_origins(&state.db, club.id, &origins).await?;
    Ok(AllowedOrigins { origins })
}

/// Whether any club lists `origin` as a website its tokens may be used from.
pub async fn origin_listed(state: &AppState, origin: &str) -> Result<bool> {
    match normal_origin(origin) {
        Ok(origin) => Ok(clubs::origin_listed(&state.db, &origin).await?),
        Err(_) => Ok(false),
    }
}

/// Whether the club lists `origin` as a website its tokens may be used from.
pub async fn lists_origin(state: &AppState, club_id: i64, origin: &str) -> Result<bool> {
    let Ok(origin) = normal_origin(origin) else {
        return Ok(false);
    };
    Ok(clubs::allowed_origins(&state.db, club_id)
        .await?
        .contains(&origin))
}
