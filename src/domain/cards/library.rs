//! Cards: built-in and uploaded, listed with their lines; uploads refused with the engine's
//! line-numbered errors.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::people::members::Organized;
use crate::domain::{AppState, Caller, Error, FieldError, Need, Result};
use crate::rules::pattern::{NumbersRule, SuitsRule, WindsRule};
use crate::rules::{Card, CardRef, builtin};
use crate::storage::cards::library as cards;
pub use crate::storage::cards::library::StoredCard;
use crate::storage::people::clubs;

/// Card-file errors as an invalid `field` whose errors carry line and hand.
pub fn card_errors(errors: Vec<crate::rules::CardError>, field: &str) -> Error {
    let detail = format!(
        "the card file has {} error(s): {}",
        errors.len(),
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    );
    Error::Invalid {
        detail,
        errors: errors
            .into_iter()
            .map(|e| FieldError {
                field: field.into(),
                message: e.message,
                line: e.line,
                hand: e.hand,
                suggestion: None,
            })
            .collect(),
    }
}

/// How long compiling a card may take, waiting for a turn included. A card at the target limit
/// compiles in about 0.1 s (release build; 2 s unoptimised); the budget bounds a request under load.
const COMPILE_BUDGET: Duration = Duration::from_secs(20);

/// Runs card work (parsing, expanding patterns) on the blocking pool, a few at a time, within
/// `COMPILE_BUDGET`: it grows with what a client typed, so it never runs on a request's thread.
pub async fn on_card_pool<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T> {
    let run = async {
        // The turn goes with the work: a compilation that outlives its request still counts.
        let turn = state
            .cards
            .compiling
            .clone()
            .acquire_owned()
            .await
            .map_err(Error::internal)?;
        tokio::task::spawn_blocking(move || {
            let done = work();
            drop(turn);
            done
        })
        .await
        .map_err(Error::internal)
    };
    match tokio::time::timeout(COMPILE_BUDGET, run).await {
        Ok(done) => done,
        Err(_) => Err(Error::Unavailable(format!(
            "compiling the card took longer than {} s; try again, or use a smaller card",
            COMPILE_BUDGET.as_secs()
        ))),
    }
}

/// Compiles a card file on the card pool; its errors are an invalid `field`.
pub async fn compile(state: &AppState, source: String, field: &str) -> Result<Card> {
    on_card_pool(state, move || Card::parse(&source))
        .await?
        .map_err(|e| card_errors(e, field))
}

/// A stored card, compiled (from the process's cache when it was compiled before).
pub async fn compiled(state: &AppState, stored: &StoredCard) -> Result<Arc<Card>> {
    if let Some(card) = state.cards.get(stored.id) {
        return Ok(card);
    }
    let card = compile(state, stored.source.clone(), "source")
        .await
        .map_err(|e| match e {
            Error::Invalid { detail, .. } => Error::internal(format!(
                "stored card {} does not compile: {detail}",
                stored.id
            )),
            other => other,
        })?;
    let card = Arc::new(card);
    state.cards.insert(stored.id, card.clone());
    Ok(card)
}

/// Resolves a card named in a request: a built-in name, the id of an uploaded card the caller
/// may see (public, or of a club the caller reads), or — when `inline` — a whole card file.
pub async fn resolve(
    state: &AppState,
    caller: &Caller,
    spec: &str,
    inline: bool,
) -> Result<CardRef> {
    if inline && spec.contains('\n') {
        let card = compile(state, spec.to_string(), "card").await?;
        return Ok(CardRef::Shared(Arc::new(card)));
    }
    if let Some(card) = builtin::get(spec) {
        return Ok(CardRef::Builtin(card));
    }
    let not_found = || {
        Error::invalid(
            "card",
            format!(
                "no card `{spec}`: give a built-in card ({}), the id of an uploaded card{}",
                builtin::names().collect::<Vec<_>>().join(", "),
                if inline { ", or a whole card file" } else { "" }
            ),
        )
    };
    let stored = readable(state, caller, spec).await?.ok_or_else(not_found)?;
    Ok(CardRef::Shared(compiled(state, &stored).await?))
}

/// An uploaded card by id, when the caller may read it: public, of a club the caller reads, or
/// the card of the league a table code scores. `None` for anything else (no card, not theirs).
async fn readable(state: &AppState, caller: &Caller, id: &str) -> Result<Option<StoredCard>> {
    let Ok(id) = id.trim().parse::<i64>() else {
        return Ok(None);
    };
    let Some(stored) = cards::get(&state.db, id).await? else {
        return Ok(None);
    };
    if stored.public {
        return Ok(Some(stored));
    }
    // A table code reads its own league's card.
    if let Some((_, league)) = caller.code_table()
        && crate::storage::seasons::leagues::get(&state.db, league)
            .await?
            .is_some_and(|l| l.card_id == Some(stored.id))
    {
        return Ok(Some(stored));
    }
    let Some(club) = clubs::by_id(&state.db, stored.club_id).await? else {
        return Ok(None);
    };
    Ok(caller
        .club_access(state, club, Need::Read)
        .await
        .is_ok()
        .then_some(stored))
}

/// A card the caller may see, and for an uploaded one its stored row; 404 otherwise.
pub async fn with_stored(
    state: &AppState,
    caller: &Caller,
    id: &str,
) -> Result<(CardRef, Option<StoredCard>)> {
    if let Some(card) = builtin::get(id) {
        return Ok((CardRef::Builtin(card), None));
    }
    let stored = readable(state, caller, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no card `{id}`")))?;
    let card = CardRef::Shared(compiled(state, &stored).await?);
    Ok((card, Some(stored)))
}

/// A card the caller may see, by built-in name or uploaded card id; 404 otherwise.
pub async fn find(state: &AppState, caller: &Caller, id: &str) -> Result<CardRef> {
    resolve(state, caller, id, false)
        .await
        .map_err(|_| Error::NotFound(format!("no card `{id}`")))
}

/// One line of a card.
#[derive(Serialize, ToSchema)]
pub struct LineView {
    #[schema(example = "2468#1")]
    pub id: String,
    /// The pattern, or its alternatives.
    pub patterns: Vec<String>,
    pub value: u32,
    pub concealed: bool,
    #[schema(example = "distinct")]
    pub suits: &'static str,
    /// `as-written`, `any`, or the values the lowest number may take.
    #[schema(schema_with = crate::domain::schemas::line_numbers)]
    pub numbers: serde_json::Value,
    #[schema(example = "as-written")]
    pub winds: &'static str,
    #[schema(required = true)]
    pub note: Option<String>,
    /// How many concrete targets the line stands for.
    pub targets: usize,
    /// The line in words, as a player reads the printed card aloud.
    #[schema(example = "four flowers, 2026 and two pungs of 2, all in one suit")]
    pub words: String,
    /// Its options in words, a sentence each (empty for a line read as written).
    pub options: Vec<String>,
}

#[derive(Serialize, ToSchema)]
pub struct SectionView {
    pub name: String,
    pub lines: Vec<LineView>,
}

/// A card and its lines by section.
#[derive(Serialize, ToSchema)]
pub struct CardView {
    /// A built-in card's name, or an uploaded card's number.
    #[schema(example = "demo-2026")]
    pub id: String,
    pub name: String,
    pub year: i64,
    #[schema(required = true)]
    pub publisher: Option<String>,
    pub builtin: bool,
    pub public: bool,
    pub hands: usize,
    pub targets: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sections: Option<Vec<SectionView>>,
    /// An uploaded or typed card's version (1 for its first); null for a built-in card.
    #[schema(required = true, example = 1)]
    pub version: Option<i32>,
    /// With one card: every version of it, first to last (empty for a built-in card).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub versions: Option<Vec<CardVersion>>,
}

/// One version of a card.
#[derive(Serialize, ToSchema, Clone)]
pub struct CardVersion {
    #[schema(example = "12")]
    pub id: String,
    pub version: i32,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// One concrete way to make a line: its 14 tiles in the card's order, and the sizes of its groups.
#[derive(Serialize, ToSchema)]
pub struct TargetView {
    #[schema(example = json!(["F", "F", "2B", "2B", "2B", "2B", "4C", "4C", "4C", "4C", "6D", "6D", "6D", "6D"]))]
    pub tiles: Vec<String>,
    /// How the tiles fall into groups, in order (they add up to 14).
    #[schema(example = json!([2, 4, 4, 4]))]
    pub groups: Vec<usize>,
}

/// A line of a card with every target it stands for, for entering a hand from the card.
#[derive(Serialize, ToSchema)]
pub struct LineTargets {
    #[schema(example = "2468#1")]
    pub id: String,
    pub section: String,
    pub value: u32,
    pub concealed: bool,
    pub patterns: Vec<String>,
    pub targets: Vec<TargetView>,
}

/// The targets of one line of a card the caller may see; 404 naming the line otherwise.
pub async fn line_targets(
    state: &AppState,
    caller: &Caller,
    card: &str,
    line: &str,
) -> Result<LineTargets> {
    let c = find(state, caller, card).await?;
    let l = c
        .line_by_id(line)
        .ok_or_else(|| Error::NotFound(format!("card `{card}` has no line `{line}`")))?;
    Ok(LineTargets {
        id: l.id.clone(),
        section: l.section.clone(),
        value: l.value,
        concealed: l.concealed,
        patterns: l.patterns.clone(),
        targets: c.targets[l.targets.clone()]
            .iter()
            .map(|t| TargetView {
                tiles: t.tiles.iter().map(|x| x.to_string()).collect(),
                groups: crate::rules::pattern::group_sizes(&l.patterns[t.alternative]),
            })
            .collect(),
    })
}

fn line_view(l: &crate::rules::card::Line) -> LineView {
    LineView {
        words: crate::rules::words::line_words(&l.patterns, &l.suits, l.winds),
        options: crate::rules::words::options_words(&l.suits, &l.numbers, l.winds),
        id: l.id.clone(),
        patterns: l.patterns.clone(),
        value: l.value,
        concealed: l.concealed,
        suits: match l.suits {
            SuitsRule::Distinct => "distinct",
            SuitsRule::Any => "any",
        },
        numbers: match &l.numbers {
            NumbersRule::AsWritten => "as-written".into(),
            NumbersRule::Any => "any".into(),
            NumbersRule::Lowest(v) => serde_json::json!(v),
        },
        winds: match l.winds {
            WindsRule::AsWritten => "as-written",
            WindsRule::Any => "any",
        },
        note: l.note.clone(),
        targets: l.targets.len(),
    }
}

fn view(id: String, card: &Card, builtin: bool, public: bool, with_lines: bool) -> CardView {
    CardView {
        version: None,
        versions: None,
        id,
        name: card.name.clone(),
        year: card.year,
        publisher: card.publisher.clone(),
        builtin,
        public,
        hands: card.lines.len(),
        targets: card.targets.len(),
        sections: with_lines.then(|| {
            card.sections
                .iter()
                .map(|s| SectionView {
                    name: s.clone(),
                    lines: card
                        .lines
                        .iter()
                        .filter(|l| &l.section == s)
                        .map(line_view)
                        .collect(),
                })
                .collect()
        }),
    }
}

fn builtin_views(with_lines: bool) -> Vec<CardView> {
    builtin::names()
        .filter_map(|n| builtin::get(n).map(|c| view(n.to_string(), c, true, true, with_lines)))
        .collect()
}

async fn stored_view(state: &AppState, s: &StoredCard, with_lines: bool) -> Result<CardView> {
    let card = compiled(state, s).await?;
    Ok(CardView {
        version: Some(s.version),
        ..view(s.id.to_string(), &card, false, s.public, with_lines)
    })
}

/// Every version of a stored card, first to last.
pub async fn versions(state: &AppState, s: &StoredCard) -> Result<Vec<CardVersion>> {
    Ok(cards::versions(&state.db, s.family)
        .await?
        .into_iter()
        .map(|v| CardVersion {
            id: v.id.to_string(),
            version: v.version,
            created_at: v.created_at,
        })
        .collect())
}

/// A stored card the caller may read, by id; 404 otherwise.
pub async fn stored(state: &AppState, caller: &Caller, id: &str) -> Result<Option<StoredCard>> {
    if builtin::get(id).is_some() {
        return Ok(None);
    }
    match readable(state, caller, id).await? {
        Some(s) => Ok(Some(s)),
        None => Err(Error::NotFound(format!("no card `{id}`"))),
    }
}

/// A card's file (rules.md §2), for any card the caller may read: uploading it again gives the
/// same hands. The file name to save it under, and its text.
pub async fn source(state: &AppState, caller: &Caller, id: &str) -> Result<(String, String)> {
    if let Some(text) = builtin::source(id) {
        return Ok((format!("{id}.toml"), text.to_string()));
    }
    let s = stored(state, caller, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no card `{id}`")))?;
    let slug: String = s
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let slug = slug
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    Ok((format!("{slug}-{}-v{}.toml", s.year, s.version), s.source))
}

/// Built-in cards and cards clubs made public.
pub async fn list_public(state: &AppState) -> Result<Vec<CardView>> {
    let mut all = builtin_views(false);
    for s in cards::list_public(&state.db).await? {
        all.push(stored_view(state, &s, false).await?);
    }
    Ok(all)
}

/// One card with its lines (built-in, public, or of a club the caller reads).
pub async fn show(state: &AppState, caller: &Caller, id: String) -> Result<CardView> {
    if let Some(card) = builtin::get(&id) {
        return Ok(view(id, card, true, true, true));
    }
    let (card, s) = with_stored(state, caller, &id).await?;
    let s = s.ok_or_else(|| Error::NotFound(format!("no card `{id}`")))?;
    Ok(CardView {
        version: Some(s.version),
        versions: Some(versions(state, &s).await?),
        ..view(id, &card, false, s.public, true)
    })
}

/// The club's uploaded cards, then the built-in ones.
pub async fn list_for_club(state: &AppState, caller: &Caller, slug: &str) -> Result<Vec<CardView>> {
    let (club, _) = caller.club(state, slug, Need::Read).await?;
    let mut all = Vec::new();
    for s in cards::list_for_club(&state.db, club.id).await? {
        all.push(stored_view(state, &s, false).await?);
    }
    all.extend(builtin_views(false));
    Ok(all)
}

/// A newer version of the card a league plays, for its organizers: (the version it plays, the
/// newest one).
pub async fn newer_version(
    state: &AppState,
    league: &crate::storage::seasons::leagues::League,
) -> Result<Option<(StoredCard, StoredCard)>> {
    let Some(id) = league.card_id else {
        return Ok(None);
    };
    let Some(current) = cards::get(&state.db, id).await? else {
        return Ok(None);
    };
    let newest = cards::versions(&state.db, current.family).await?.pop();
    Ok(newest
        .filter(|n| n.version > current.version)
        .map(|n| (current, n)))
}

/// The card a league plays, as its page names it: (link, title), e.g. ("/cards/12", "Maple
/// Street 2026, version 2").
pub async fn played_by(
    state: &AppState,
    league: &crate::storage::seasons::leagues::League,
) -> Result<Option<(String, String)>> {
    if let Some(id) = league.card_id {
        return Ok(cards::get(&state.db, id).await?.map(|c| {
            (
                format!("/cards/{}", c.id),
                format!(
                    "{}, version {}",
                    crate::domain::people::clubs::card_title(&c.name, i64::from(c.year)),
                    c.version
                ),
            )
        }));
    }
    Ok(league
        .builtin_card
        .as_ref()
        .map(|n| (format!("/cards/{n}"), format!("{n} (built in)"))))
}

/// The club's cards, the latest version of each.
pub async fn latest(state: &AppState, club: &Organized) -> Result<Vec<StoredCard>> {
    Ok(cards::latest_for_club(&state.db, club.club().id).await?)
}

/// An upload as JSON (a card file can also be sent as the raw body, `Content-Type: application/toml`).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CardUpload {
    /// The card file (TOML, rules.md §2).
    #[schema(
        example = "name = \"Club card\"\nyear = 2026\n\n[[hand]]\nsection = \"Winds\"\npattern = \"NNNN EEE WWW SSSS\"\nvalue = 25\n"
    )]
    pub source: String,
    /// Whether every club and the public API may see it.
    #[serde(default)]
    pub public: bool,
}

/// The text one club may keep in card files and card drafts together.
pub const CLUB_TEXT_BYTES: i64 = 4 * 1024 * 1024;

/// How much of its text budget a club uses, in words: "0.3 MB of 4 MB".
pub struct TextUse {
    pub used: i64,
    pub budget: i64,
}

impl TextUse {
    pub fn words(&self) -> String {
        let mb = |b: i64| {
            let m = (b as f64 / (1024.0 * 1024.0) * 10.0).round() / 10.0;
            if m == m.trunc() {
                format!("{m:.0} MB")
            } else {
                format!("{m:.1} MB")
            }
        };
        format!("{} of {}", mb(self.used), mb(self.budget))
    }
}

/// What the club keeps as card files and drafts, against its budget.
pub async fn text_use(state: &AppState, club_id: i64) -> Result<TextUse> {
    Ok(TextUse {
        used: cards::club_text_bytes(&state.db, club_id).await?,
        budget: CLUB_TEXT_BYTES,
    })
}

/// Refuses (422 naming `field`, in words, before anything is stored) `more` bytes of text that
/// would take the club past its budget for card files and drafts.
pub async fn room_for(
    state: &AppState,
    club: &crate::storage::people::clubs::Club,
    more: i64,
    field: &str,
) -> Result<()> {
    if more <= 0 {
        return Ok(());
    }
    let now = text_use(state, club.id).await?;
    if now.used + more > now.budget {
        return Err(Error::invalid(
            field,
            format!(
                "{} keeps {} in card files and drafts, and this needs {} KB more: throw away drafts or cards it no longer needs; nothing was saved",
                club.name,
                now.words(),
                (more + 1023) / 1024
            ),
        ));
    }
    Ok(())
}

/// Compiles and stores a card for a club its organizer runs (checked by `members::organized`
/// before the upload was read); a file with errors is refused with each error's line and hand.
pub async fn store(
    state: &AppState,
    club: &Organized,
    file: &CardUpload,
) -> Result<(StoredCard, Card)> {
    if file.source.contains('\0') {
        return Err(Error::invalid(
            "source",
            "remove the NUL character: a card file is text",
        ));
    }
    room_for(state, club.club(), file.source.len() as i64, "source").await?;
    let card = compile(state, file.source.clone(), "source").await?;
    // The card's name is shown and mailed like any name: one line, nothing hidden in it.
    crate::domain::text::plain("source", &card.name)?;
    let year =
        i32::try_from(card.year).map_err(|_| Error::invalid("source", "year is out of range"))?;
    let stored = cards::create(
        &state.db,
        club.club().id,
        &card.name,
        year,
        &file.source,
        file.public,
    )
    .await?;
    Ok((stored, card))
}

/// The answer to an upload: the stored card with its lines.
pub fn stored_card_view(stored: &StoredCard, card: &Card) -> CardView {
    CardView {
        version: Some(stored.version),
        ..view(stored.id.to_string(), card, false, stored.public, true)
    }
}
