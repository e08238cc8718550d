//! The card editor: cards typed on a page, saved as drafts as they are typed, checked line by
//! line by the card parser itself, tried with a hand, and published as a card (or as the next
//! version of one, leaving the leagues that play the old version where they are).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::cards::library::{self as cards, CardView};
use crate::domain::people::members::Organized;
use crate::domain::{AppState, Caller, Error, FieldError, Result};
use crate::rules::card_text::{self, HeadText, LineText, Problems};
use crate::rules::pattern::sketch;
use crate::rules::{Card, builtin};
use crate::storage::cards::drafts::{self as card_drafts, Draft};
use crate::storage::cards::library as stored_cards;

pub use crate::domain::schemas::MAX_LINES;

/// One group of a line as drawn: its symbols and its colour.
#[derive(Serialize, ToSchema)]
pub struct DrawnGroup {
    #[schema(example = "2222")]
    pub symbols: String,
    /// The colour letter as typed (`g`), if any.
    #[schema(required = true, example = "g")]
    pub letter: Option<String>,
    /// 0, 1 or 2 for the line's first, second and third colours; null for flowers, winds, soaps.
    #[schema(required = true, example = 0)]
    pub colour: Option<usize>,
}

/// A line's pattern alternatives as drawn, each a list of groups.
pub fn drawing(pattern: &str) -> Vec<Vec<DrawnGroup>> {
    card_text::alternatives(pattern)
        .iter()
        .map(|alt| {
            sketch(alt)
                .into_iter()
                .map(|g| DrawnGroup {
                    symbols: g.symbols,
                    letter: g.letter.map(String::from),
                    colour: g.colour,
                })
                .collect()
        })
        .collect()
}

/// One line checked on its own, as at each keystroke.
#[derive(Serialize, ToSchema)]
pub struct LineCheck {
    /// What is wrong, in words; empty when the line is right.
    pub problems: Vec<String>,
    /// How many concrete hands the line stands for, when it is right.
    #[schema(required = true, example = 6)]
    pub targets: Option<usize>,
    /// The pattern as drawn, alternative by alternative.
    pub drawing: Vec<Vec<DrawnGroup>>,
    /// The line in words when it reads right, so a line typed without colours is seen to be
    /// one suit.
    #[schema(
        required = true,
        example = "four flowers, 2026 and two pungs of 2, all in one suit"
    )]
    pub words: Option<String>,
    /// Its options in words, a sentence each.
    pub options: Vec<String>,
}

/// A line to check.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LineCheckRequest {
    #[schema(schema_with = crate::domain::schemas::draft_line)]
    pub line: LineText,
}

/// Checks one line with the card parser (on the card pool: a line may stand for thousands of
/// hands).
pub async fn check_line(state: &AppState, req: LineCheckRequest) -> Result<LineCheck> {
    bounded_line(&req.line, "line")?;
    let line = req.line.clone();
    let (problems, read) =
        match cards::on_card_pool(state, move || card_text::check_line(&line)).await? {
            Ok(read) => (Vec::new(), Some(read)),
            Err(p) => (p, None),
        };
    Ok(LineCheck {
        problems,
        targets: read.as_ref().map(|r| r.targets),
        drawing: drawing(&req.line.pattern),
        words: read.as_ref().map(|r| r.words.clone()),
        options: read.map(|r| r.options).unwrap_or_default(),
    })
}

/// A draft with what the checks found.
#[derive(Serialize, ToSchema)]
pub struct DraftView {
    pub id: i64,
    #[schema(schema_with = crate::domain::schemas::card_head)]
    pub head: HeadText,
    #[schema(schema_with = crate::domain::schemas::draft_lines)]
    pub lines: Vec<LineText>,
    pub public: bool,
    /// The card publishing makes a new version of; null when it makes a new card.
    #[schema(required = true)]
    pub replaces: Option<i64>,
    /// Name it when saving: a save of an older revision is refused (409), never overwrites.
    pub revision: i32,
    pub updated_at: DateTime<Utc>,
    /// Problems of the card as a whole.
    pub card_problems: Vec<String>,
    /// Per line, its problems (empty when it is right).
    pub line_problems: Vec<Vec<String>>,
    /// Whether it can be published as it is.
    pub ready: bool,
}

/// A draft in a list.
#[derive(Serialize, ToSchema)]
pub struct DraftListing {
    pub id: i64,
    pub name: String,
    pub year: String,
    pub lines: usize,
    #[schema(required = true)]
    pub replaces: Option<i64>,
    pub updated_at: DateTime<Utc>,
}

/// The draft checked as a whole by the card parser, on the card pool.
async fn checked(state: &AppState, d: &Draft) -> Result<std::result::Result<Card, Problems>> {
    let (head, lines) = (d.head.0.clone(), d.lines.0.clone());
    cards::on_card_pool(state, move || card_text::check(&head, &lines)).await
}

async fn view(state: &AppState, d: Draft) -> Result<DraftView> {
    let problems = match checked(state, &d).await? {
        Ok(_) => Problems {
            card: Vec::new(),
            lines: vec![Vec::new(); d.lines.len()],
        },
        Err(p) => p,
    };
    Ok(DraftView {
        id: d.id,
        ready: problems.is_empty(),
        card_problems: problems.card,
        line_problems: problems.lines,
        head: d.head.0,
        lines: d.lines.0,
        public: d.public,
        replaces: d.replaces,
        revision: d.revision,
        updated_at: d.updated_at,
    })
}

fn too_long(field: String, what: &str, max: usize) -> Error {
    Error::invalid(&field, format!("{what} is longer than {max} characters"))
}

fn bounded(text: &str, field: String, what: &str, max: usize) -> Result<()> {
    if text.chars().count() > max {
        return Err(too_long(field, what, max));
    }
    if text.contains('\0') {
        return Err(Error::invalid(&field, "remove the NUL character"));
    }
    Ok(())
}

fn bounded_line(l: &LineText, at: &str) -> Result<()> {
    for (key, text, max) in [
        ("section", &l.section, 80),
        ("pattern", &l.pattern, 300),
        ("value", &l.value, 20),
        ("suits", &l.suits, 20),
        ("numbers", &l.numbers, 40),
        ("winds", &l.winds, 20),
        ("note", &l.note, 300),
        ("id", &l.id, 80),
        ("unread", &l.unread, 600),
    ] {
        bounded(text, format!("{at}.{key}"), key, max)?;
    }
    Ok(())
}

/// The card drafts one club keeps at once.
pub const MAX_DRAFTS: i64 = 20;

/// The most a draft holds, as stored (its name, year, publisher and every line as typed).
pub const MAX_DRAFT_BYTES: usize = 64 * 1024;

/// A draft's size as stored (its JSON).
fn draft_size(head: &HeadText, lines: &[LineText]) -> usize {
    serde_json::to_vec(head).map_or(0, |v| v.len())
        + serde_json::to_vec(lines).map_or(0, |v| v.len())
}

fn bounded_draft(head: &HeadText, lines: &[LineText]) -> Result<()> {
    let size = draft_size(head, lines);
    if size > MAX_DRAFT_BYTES {
        return Err(Error::invalid(
            "lines",
            format!(
                "this draft would hold {} KB, and a draft holds at most {} KB (a printed card is a few KB): shorten its notes or lines; nothing was saved",
                size.div_ceil(1024),
                MAX_DRAFT_BYTES / 1024
            ),
        ));
    }
    bounded(&head.name, "head.name".into(), "the name", 200)?;
    crate::domain::text::plain("head.name", &head.name)?;
    bounded(&head.year, "head.year".into(), "the year", 10)?;
    bounded(
        &head.publisher,
        "head.publisher".into(),
        "the publisher",
        200,
    )?;
    if lines.len() > MAX_LINES {
        return Err(Error::invalid(
            "lines",
            format!(
                "a card has at most {MAX_LINES} lines; this one has {}",
                lines.len()
            ),
        ));
    }
    for (i, l) in lines.iter().enumerate() {
        bounded_line(l, &format!("lines[{i}]"))?;
    }
    Ok(())
}

/// Where a new draft starts.
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct NewDraft {
    /// Empty for a blank card; a built-in card's name; or one of the club's cards (its id).
    #[serde(default)]
    #[schema(example = "demo-2026")]
    pub from: String,
    /// With a club card: `copy` (default) starts next year's card from it; `version` changes it
    /// (publishing makes its next version; leagues keep the version they play until moved).
    #[serde(default)]
    #[schema(example = "copy")]
    pub r#as: String,
}

/// Starts a draft for a club its organizer runs.
pub async fn start(
    state: &AppState,
    caller: &Caller,
    club: &Organized,
    new: &NewDraft,
) -> Result<DraftView> {
    let from = new.from.trim();
    let version = match new.r#as.trim() {
        "" | "copy" => false,
        "version" => true,
        other => {
            return Err(Error::invalid(
                "as",
                format!("give `copy` or `version`, not `{other}`"),
            ));
        }
    };
    let (head, lines, replaces, public) = if from.is_empty() || from == "blank" {
        let head = HeadText {
            year: (Utc::now().format("%Y").to_string()),
            ..HeadText::default()
        };
        (head, Vec::new(), None, false)
    } else if let Some(card) = builtin::get(from) {
        let (head, lines) = card_text::from_card(card);
        (head, lines, None, false)
    } else {
        let unknown = || {
            Error::invalid(
                "from",
                format!(
                    "no card `{from}` to start from: give a built-in card ({}) or the number of one of this club's cards",
                    builtin::names().collect::<Vec<_>>().join(", ")
                ),
            )
        };
        let id: i64 = from.parse().map_err(|_| unknown())?;
        let stored = stored_cards::get(&state.db, id)
            .await?
            .filter(|c| c.club_id == club.club().id)
            .ok_or_else(unknown)?;
        let card = cards::compiled(state, &stored).await?;
        let (mut head, lines) = card_text::from_card(&card);
        if version {
            (head, lines, Some(stored.id), stored.public)
        } else {
            head.year = (card.year + 1).to_string();
            (head, lines, None, false)
        }
    };
    let user = caller.user().ok().map(|u| u.id);
    bounded_draft(&head, &lines)?;
    cards::room_for(state, club.club(), draft_size(&head, &lines) as i64, "from").await?;
    let d = card_drafts::create(
        &state.db,
        club.club().id,
        &head,
        &lines,
        replaces,
        public,
        user,
        MAX_DRAFTS,
    )
    .await?
    .ok_or_else(|| {
        Error::invalid(
            "from",
            format!(
                "{} keeps {MAX_DRAFTS} card drafts already, the most a club may: publish one or throw one away first",
                club.club().name
            ),
        )
    })?;
    view(state, d).await
}

async fn draft(state: &AppState, club: &Organized, id: i64) -> Result<Draft> {
    card_drafts::get(&state.db, club.club().id, id)
        .await?
        .ok_or_else(|| {
            Error::NotFound(format!(
                "{} has no card draft {id} (it may have been published or thrown away)",
                club.club().name
            ))
        })
}

/// One draft of a club its organizer runs.
pub async fn get(state: &AppState, club: &Organized, id: i64) -> Result<DraftView> {
    view(state, draft(state, club, id).await?).await
}

/// The club's drafts, last changed first.
pub async fn list(state: &AppState, club: &Organized) -> Result<Vec<DraftListing>> {
    Ok(card_drafts::list(&state.db, club.club().id)
        .await?
        .into_iter()
        .map(|d| DraftListing {
            id: d.id,
            name: d.head.name.clone(),
            year: d.head.year.clone(),
            lines: d.lines.len(),
            replaces: d.replaces,
            updated_at: d.updated_at,
        })
        .collect())
}

/// A save: the whole draft as it now stands, and the revision it was changed from.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftSave {
    pub revision: i32,
    #[schema(schema_with = crate::domain::schemas::card_head)]
    pub head: HeadText,
    #[schema(schema_with = crate::domain::schemas::draft_lines)]
    pub lines: Vec<LineText>,
    #[serde(default)]
    pub public: bool,
}

/// The 409 for a save from an older revision: says when and which revision is stored.
async fn stale(state: &AppState, club: &Organized, id: i64, revision: i32) -> Error {
    match card_drafts::get(&state.db, club.club().id, id).await {
        Ok(Some(now)) => Error::Conflict(format!(
            "this draft was saved from another device at {} (revision {}, you changed revision {revision}); load it again before saving, so neither device's typing is lost",
            crate::domain::clock::Clock::of(&club.club().time_zone).at(now.updated_at),
            now.revision
        )),
        Ok(None) => Error::NotFound(format!(
            "{} has no card draft {id} (it may have been published or thrown away)",
            club.club().name
        )),
        Err(e) => e.into(),
    }
}

/// Saves a draft; 409 when another save came first.
pub async fn save(
    state: &AppState,
    club: &Organized,
    id: i64,
    save: &DraftSave,
) -> Result<DraftView> {
    bounded_draft(&save.head, &save.lines)?;
    if let Some(was) = card_drafts::get(&state.db, club.club().id, id).await? {
        let more =
            draft_size(&save.head, &save.lines) as i64 - draft_size(&was.head, &was.lines) as i64;
        cards::room_for(state, club.club(), more, "lines").await?;
    }
    match card_drafts::save(
        &state.db,
        club.club().id,
        id,
        save.revision,
        &save.head,
        &save.lines,
        save.public,
    )
    .await?
    {
        Some(d) => view(state, d).await,
        None => Err(stale(state, club, id, save.revision).await),
    }
}

/// A pasted card: plain text with a line per hand (`section | pattern | value | X or C`).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Paste {
    pub revision: i32,
    #[schema(
        example = "2468 | 222:g 4444:g 666:r 8888:r | 25 | X\nWinds | NNNN EEE WWW SSSS | 25 | C\n"
    )]
    pub text: String,
    /// Replace the draft's lines (true) or add the pasted ones after them (false, the default).
    #[serde(default)]
    pub replace: bool,
}

/// The most a paste may hold.
const MAX_PASTE: usize = 100_000;

/// Fills a draft from pasted text: lines it cannot read are kept, each marked with its problem.
pub async fn paste(state: &AppState, club: &Organized, id: i64, p: &Paste) -> Result<DraftView> {
    if p.text.len() > MAX_PASTE {
        return Err(Error::invalid(
            "text",
            format!("a pasted card is at most {MAX_PASTE} bytes"),
        ));
    }
    let d = draft(state, club, id).await?;
    let pasted = card_text::parse_paste(&p.text);
    if pasted.is_empty() {
        return Err(Error::invalid(
            "text",
            "nothing to read: write a line per hand, as section | pattern | value | X or C",
        ));
    }
    let mut lines = if p.replace { Vec::new() } else { d.lines.0 };
    lines.extend(pasted);
    save(
        state,
        club,
        id,
        &DraftSave {
            revision: p.revision,
            head: d.head.0,
            lines,
            public: d.public,
        },
    )
    .await
}

/// Throws a draft away.
pub async fn discard(state: &AppState, club: &Organized, id: i64) -> Result<()> {
    let mut conn = state.db.acquire().await?;
    if !card_drafts::delete(&mut conn, club.club().id, id).await? {
        return Err(Error::NotFound(format!(
            "{} has no card draft {id}",
            club.club().name
        )));
    }
    Ok(())
}

/// The draft as a compiled card, or a 422 listing every problem by line.
async fn compiled_draft(state: &AppState, d: &Draft) -> Result<Card> {
    checked(state, d).await?.map_err(|p| {
        let mut errors: Vec<FieldError> = p
            .card
            .iter()
            .map(|m| FieldError::new("head", m.clone()))
            .collect();
        for (i, problems) in p.lines.iter().enumerate() {
            for m in problems {
                let mut e = FieldError::new(format!("lines[{i}]"), m.clone());
                e.hand = Some(line_label(d, i));
                errors.push(e);
            }
        }
        Error::Invalid {
            detail: format!(
                "the card has {} problem(s): {}",
                errors.len(),
                errors
                    .iter()
                    .map(|e| match &e.hand {
                        Some(h) => format!("{h}: {}", e.message),
                        None => e.message.clone(),
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            errors,
        }
    })
}

/// How a person names a line: its section and place in it (`2468, line 3`).
pub fn line_label(d: &Draft, i: usize) -> String {
    let section = d.lines[i].section.trim();
    let n = d.lines[..=i]
        .iter()
        .filter(|l| l.section.trim() == section)
        .count();
    if section.is_empty() {
        format!("line {}", i + 1)
    } else {
        format!("{section}, line {n}")
    }
}

/// A hand to try on a draft.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TryHand {
    /// 14 tiles.
    #[schema(schema_with = crate::domain::schemas::hand)]
    pub hand: crate::rules::Tiles,
    /// The ruleset to price it with (a preset name); `nmjl-money` when left out.
    #[serde(default)]
    #[schema(example = "nmjl-money")]
    pub ruleset: Option<String>,
}

/// What a hand makes on a draft: the engine's check, and what East would score winning with it.
#[derive(Serialize, ToSchema)]
pub struct TryAnswer {
    /// The engine's answer (rules.md §3): winning, best, matches, nearest.
    #[schema(value_type = Object)]
    pub check: serde_json::Value,
    pub ruleset: String,
    /// East's score self-picking it, in words, when it wins.
    #[schema(required = true)]
    pub self_picked: Option<String>,
    /// East's score winning it from South's discard, in words, when it wins.
    #[schema(required = true)]
    pub from_a_discard: Option<String>,
}

/// Tries a hand on a draft (the draft must be free of problems).
pub async fn try_hand(
    state: &AppState,
    club: &Organized,
    id: i64,
    t: &TryHand,
) -> Result<TryAnswer> {
    let mut d = draft(state, club, id).await?;
    // A hand can be tried before the card has its name and year: the lines are what is tried.
    if d.head.0.name.trim().is_empty() {
        d.head.0.name = "Untitled draft".into();
    }
    if d.head.0.year.trim().is_empty() {
        d.head.0.year = chrono::Utc::now().format("%Y").to_string();
    }
    let card = compiled_draft(state, &d).await?;
    let hand = t
        .hand
        .parse()
        .map_err(|e| Error::invalid("hand", e.to_string()))?;
    let check = crate::rules::answers::check_value(&card, &hand, &[])
        .map_err(|e| Error::invalid("hand", e.to_string()))?;
    let ruleset = t.ruleset.clone().unwrap_or_else(|| "nmjl-money".into());
    if crate::rules::Ruleset::preset(&ruleset).is_none() {
        return Err(Error::invalid(
            "ruleset",
            format!(
                "give a preset: {}",
                crate::rules::Ruleset::PRESETS.join(", ")
            ),
        ));
    }
    let winning = check["winning"] == serde_json::json!(true);
    let score = |won_by: &str| -> Option<String> {
        if !winning {
            return None;
        }
        let mut result = serde_json::json!({
            "ruleset": ruleset, "seats": ["E", "S", "W", "N"], "outcome": "mahjong",
            "winner": "E", "hand": crate::rules::format_tiles(&hand), "won_by": won_by,
        });
        if won_by == "discard" {
            result["discarder"] = "S".into();
        }
        let result: crate::rules::GameResult = serde_json::from_value(result).ok()?;
        let report = crate::rules::answers::score_value(&card, &result).ok()?;
        let breakdown = report["breakdown"].as_array()?;
        let east = breakdown.iter().find(|b| b["seat"] == "E")?;
        Some(format!(
            "{:+} ({})",
            east["score"].as_i64()?,
            east["text"].as_str()?
        ))
    };
    Ok(TryAnswer {
        self_picked: score("self_pick"),
        from_a_discard: score("discard"),
        check,
        ruleset,
    })
}

/// Publishes a draft at `revision`: a new card, or the next version of the card it replaces.
/// The draft goes; leagues stay on the version they play.
pub async fn publish(
    state: &AppState,
    club: &Organized,
    id: i64,
    revision: i32,
) -> Result<(stored_cards::StoredCard, CardView)> {
    let d = draft(state, club, id).await?;
    if d.revision != revision {
        return Err(stale(state, club, id, revision).await);
    }
    let card = compiled_draft(state, &d).await?;
    let year = i32::try_from(card.year)
        .map_err(|_| Error::invalid("head.year", "year is out of range"))?;
    let source = card_text::write(&d.head, &d.lines).text;
    let mut tx = state.db.begin().await?;
    if !card_drafts::delete(&mut tx, club.club().id, id).await? {
        return Err(Error::Conflict(format!(
            "card draft {id} was published or thrown away from another device meanwhile"
        )));
    }
    let family = match d.replaces {
        Some(r) => stored_cards::get(&state.db, r).await?.map(|c| c.family),
        None => None,
    };
    let stored = match family {
        Some(f) => stored_cards::create_version(&mut tx, f, &card.name, year, &source, d.public)
            .await
            .map_err(|e| match &e {
                sqlx::Error::Database(db) if db.code().as_deref() == Some("23505") => {
                    Error::Conflict(
                        "another version of this card was published at the same moment; publish again".into(),
                    )
                }
                _ => e.into(),
            })?,
        None => {
            stored_cards::create(&mut *tx, club.club().id, &card.name, year, &source, d.public)
                .await?
        }
    };
    tx.commit().await?;
    let view = cards::stored_card_view(&stored, &card);
    state.cards.insert(stored.id, std::sync::Arc::new(card));
    Ok((stored, view))
}
