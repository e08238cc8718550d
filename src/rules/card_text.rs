//! A card as an organizer types it: each hand line's fields as text, kept as typed (mistakes
//! included), written out as a card file (rules.md §2) and checked by the card parser itself, so
//! the editor says exactly what an upload would. Also the paste layout (a line per hand) and the
//! way back from a compiled card to typed lines.

use serde::{Deserialize, Serialize};

use super::card::{Card, CardError};
use super::pattern::{NumbersRule, SuitsRule, WindsRule};

/// One hand line as typed. Empty option fields mean the card file's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LineText {
    pub section: String,
    /// The pattern; alternatives separated by ` or `.
    pub pattern: String,
    /// The value as typed (a whole number above 0 when right).
    pub value: String,
    /// C on the printed card.
    pub concealed: bool,
    /// `distinct` (or empty) or `any`.
    pub suits: String,
    /// `as-written` (or empty), `any`, or the values the lowest number may take (`1, 3, 5`).
    pub numbers: String,
    /// `as-written` (or empty) or `any`.
    pub winds: String,
    pub note: String,
    /// The line's id when it is not the default `<section>#<n>` (kept from a copied card).
    pub id: String,
    /// For a pasted line that could not be read: what was wrong (cleared when it is edited).
    pub unread: String,
}

/// The card's own fields as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HeadText {
    pub name: String,
    pub year: String,
    pub publisher: String,
}

/// What the checks found: problems of the card as a whole, and of each line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Problems {
    pub card: Vec<String>,
    pub lines: Vec<Vec<String>>,
}

impl Problems {
    pub fn is_empty(&self) -> bool {
        self.card.is_empty() && self.lines.iter().all(Vec::is_empty)
    }
}

/// A TOML string, quoted and escaped.
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The pattern alternatives of a typed pattern.
pub fn alternatives(pattern: &str) -> Vec<String> {
    pattern
        .split(" or ")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect()
}

/// A typed numbers rule as the card file writes it, or the text itself when it is neither
/// a word nor a list (the parser then says what is wrong).
fn numbers_value(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() || t == "as-written" {
        return None;
    }
    if t == "any" {
        return Some(quoted("any"));
    }
    let parts: Vec<&str> = t
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    if parts.iter().all(|p| p.parse::<i64>().is_ok()) {
        return Some(format!("[{}]", parts.join(", ")));
    }
    Some(quoted(t))
}

/// A card file written from typed fields, with where each hand starts in it (1-based lines),
/// and the problems found while writing (a value or year that is not a number).
pub struct Written {
    pub text: String,
    pub hand_lines: Vec<usize>,
    pub problems: Problems,
}

fn whole_number(text: &str) -> Result<Option<i64>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<i64>()
        .map(Some)
        .map_err(|_| format!("`{t}` is not a whole number"))
}

/// Writes the card file for a head and lines.
pub fn write(head: &HeadText, lines: &[LineText]) -> Written {
    let mut problems = Problems {
        card: Vec::new(),
        lines: vec![Vec::new(); lines.len()],
    };
    let mut out = String::new();
    if !head.name.trim().is_empty() {
        out.push_str(&format!("name = {}\n", quoted(head.name.trim())));
    }
    match whole_number(&head.year) {
        Ok(Some(y)) => out.push_str(&format!("year = {y}\n")),
        Ok(None) => {}
        Err(e) => problems.card.push(format!("year: {e}")),
    }
    if !head.publisher.trim().is_empty() {
        out.push_str(&format!("publisher = {}\n", quoted(head.publisher.trim())));
    }
    let mut hand_lines = Vec::with_capacity(lines.len());
    // Newlines so far, counted once each: the text before `counted` is counted.
    let (mut newlines, mut counted) = (0, 0);
    for (i, l) in lines.iter().enumerate() {
        out.push_str("\n[[hand]]\n");
        newlines += out[counted..].matches('\n').count();
        counted = out.len();
        hand_lines.push(newlines);
        out.push_str(&format!("section = {}\n", quoted(l.section.trim())));
        let alts = alternatives(&l.pattern);
        match alts.len() {
            0 => {}
            1 => out.push_str(&format!("pattern = {}\n", quoted(&alts[0]))),
            _ => out.push_str(&format!(
                "pattern = [{}]\n",
                alts.iter()
                    .map(|a| quoted(a))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
        match whole_number(&l.value) {
            Ok(Some(v)) => out.push_str(&format!("value = {v}\n")),
            Ok(None) => {}
            Err(e) => problems.lines[i].push(format!("value: {e}; write a number such as 25")),
        }
        if l.concealed {
            out.push_str("concealed = true\n");
        }
        for (key, text) in [("suits", &l.suits), ("winds", &l.winds)] {
            let t = text.trim();
            let default = t.is_empty() || t == "as-written" || (key == "suits" && t == "distinct");
            if !default {
                out.push_str(&format!("{key} = {}\n", quoted(t)));
            }
        }
        if let Some(n) = numbers_value(&l.numbers) {
            out.push_str(&format!("numbers = {n}\n"));
        }
        if !l.id.trim().is_empty() {
            out.push_str(&format!("id = {}\n", quoted(l.id.trim())));
        }
        if !l.note.trim().is_empty() {
            out.push_str(&format!("note = {}\n", quoted(l.note.trim())));
        }
    }
    Written {
        text: out,
        hand_lines,
        problems,
    }
}

/// A parser message in an organizer's words: the editor has fields, not keys.
fn in_words(message: &str) -> String {
    for (key, words) in [
        ("the hand needs a `pattern`", "type the pattern"),
        ("the hand needs a `value`", "type the value"),
        ("section is empty", "the line has no section"),
        ("the card needs a `name`", "give the card a name"),
        ("the card needs a `year`", "give the card a year"),
        ("name is empty", "give the card a name"),
        (
            "the card has no hands; add [[hand]] tables",
            "the card has no lines yet",
        ),
    ] {
        if message == key {
            return words.to_string();
        }
    }
    message.to_string()
}

/// Checks typed lines with the card parser: the compiled card when nothing is wrong, else every
/// problem, each on the card or on the line it belongs to.
pub fn check(head: &HeadText, lines: &[LineText]) -> Result<Card, Problems> {
    let written = write(head, lines);
    let mut problems = written.problems;
    for (i, l) in lines.iter().enumerate() {
        if !l.unread.is_empty() {
            problems.lines[i].insert(0, l.unread.clone());
        }
    }
    let errors: Vec<CardError> = match Card::parse(&written.text) {
        Ok(card) if problems.is_empty() => return Ok(card),
        Ok(_) => Vec::new(),
        Err(errors) => errors,
    };
    for e in errors {
        let message = in_words(&e.message);
        let at = e
            .line
            .and_then(|n| written.hand_lines.iter().rposition(|&h| h <= n));
        match at {
            Some(i) => {
                // A value that is not a number was already said in words.
                let said_value = problems.lines[i].iter().any(|p| p.starts_with("value:"));
                if !(said_value && message == "type the value") {
                    problems.lines[i].push(message);
                }
            }
            None => problems.card.push(message),
        }
    }
    Err(problems)
}

/// One line checked alone, as the editor checks it at each keystroke: its problems, or how many
/// concrete hands it stands for.
/// A line that reads right: how many hands it stands for, and what it says in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineRead {
    pub targets: usize,
    /// The line in words ("four flowers, 2026 and two pungs of 2, all in one suit").
    pub words: String,
    /// Its options in words, a sentence each.
    pub options: Vec<String>,
}

pub fn check_line(line: &LineText) -> Result<LineRead, Vec<String>> {
    let head = HeadText {
        name: "line".into(),
        year: "2026".into(),
        publisher: String::new(),
    };
    let mut line = line.clone();
    if line.section.trim().is_empty() {
        line.section = "line".into();
    }
    match check(&head, std::slice::from_ref(&line)) {
        Ok(card) => {
            let l = &card.lines[0];
            Ok(LineRead {
                targets: l.targets.len(),
                words: super::words::line_words(&l.patterns, &l.suits, l.winds),
                options: super::words::options_words(&l.suits, &l.numbers, l.winds),
            })
        }
        Err(mut p) => {
            let mut all = p.card;
            all.append(&mut p.lines[0]);
            Err(all)
        }
    }
}

/// The typed lines of a compiled card: copying a card into the editor keeps every hand.
pub fn from_card(card: &Card) -> (HeadText, Vec<LineText>) {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let lines = card
        .lines
        .iter()
        .map(|l| {
            let n = match counts.iter_mut().find(|(s, _)| *s == l.section) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    counts.push((l.section.clone(), 1));
                    1
                }
            };
            LineText {
                section: l.section.clone(),
                pattern: l.patterns.join(" or "),
                value: l.value.to_string(),
                concealed: l.concealed,
                suits: match l.suits {
                    SuitsRule::Distinct => String::new(),
                    SuitsRule::Any => "any".into(),
                },
                numbers: match &l.numbers {
                    NumbersRule::AsWritten => String::new(),
                    NumbersRule::Any => "any".into(),
                    NumbersRule::Lowest(v) => v
                        .iter()
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                },
                winds: match l.winds {
                    WindsRule::AsWritten => String::new(),
                    WindsRule::Any => "any".into(),
                },
                note: l.note.clone().unwrap_or_default(),
                id: if l.id == format!("{}#{n}", l.section) {
                    String::new()
                } else {
                    l.id.clone()
                },
                unread: String::new(),
            }
        })
        .collect();
    let head = HeadText {
        name: card.name.clone(),
        year: card.year.to_string(),
        publisher: card.publisher.clone().unwrap_or_default(),
    };
    (head, lines)
}

/// The paste layout, one hand per line:
///
/// `section | pattern | value | X or C | options | note`
///
/// Parts are separated by `|` or tabs (a spreadsheet's copy). Options and note may be left off;
/// options are `any suits`, `any numbers`, `numbers 1 3 5`, `any winds`, separated by commas.
/// A line of one to four words is a section heading, and a line of three parts (`pattern | value | X`)
/// belongs to the last heading. Blank lines and lines starting with `#` are skipped. A line
/// that cannot be read is kept, its whole text as the pattern, with what was wrong.
pub fn parse_paste(text: &str) -> Vec<LineText> {
    let mut out = Vec::new();
    let mut heading = String::new();
    for (n, raw) in text.lines().enumerate() {
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = if trimmed.contains('|') {
            trimmed.split('|').map(str::trim).collect()
        } else {
            trimmed.split('\t').map(str::trim).collect()
        };
        let unread = |why: String| LineText {
            section: heading.clone(),
            pattern: trimmed.to_string(),
            unread: format!("pasted line {}: {why}", n + 1),
            ..LineText::default()
        };
        let (section, rest) = match parts.len() {
            // A few words alone are a heading; more is a hand typed without its parts.
            1 if parts[0].split_whitespace().count() <= 4 => {
                heading = parts[0].trim_end_matches(':').trim().to_string();
                continue;
            }
            3 => (heading.clone(), &parts[..]),
            n if n >= 4 => (parts[0].to_string(), &parts[1..]),
            n => {
                out.push(unread(format!(
                    "it has {n} parts; write section | pattern | value | X or C"
                )));
                continue;
            }
        };
        if section.is_empty() {
            out.push(unread(
                "no section: start with the section, or put a heading line above".into(),
            ));
            continue;
        }
        let concealed = match rest[2].to_ascii_uppercase().as_str() {
            "X" | "" => false,
            "C" => true,
            other => {
                out.push(unread(format!(
                    "the part after the value must be X (may be exposed) or C (concealed), not `{other}`"
                )));
                continue;
            }
        };
        let mut line = LineText {
            section: section.clone(),
            pattern: rest[0].to_string(),
            value: rest[1].to_string(),
            concealed,
            ..LineText::default()
        };
        heading = section;
        if let Some(options) = rest.get(3) {
            for option in options.split(',').map(str::trim).filter(|o| !o.is_empty()) {
                let lower = option.to_ascii_lowercase();
                let listing = !line.numbers.is_empty() && line.numbers != "any";
                match lower.as_str() {
                    // `numbers 1, 3, 5`: the list goes on after a comma.
                    o if listing && o.chars().all(|c| c.is_ascii_digit()) => {
                        line.numbers = format!("{} {o}", line.numbers)
                    }
                    "any suits" | "any suit" => line.suits = "any".into(),
                    "any numbers" | "any number" => line.numbers = "any".into(),
                    "any winds" | "any wind" => line.winds = "any".into(),
                    o if o.starts_with("numbers ") => {
                        line.numbers = o["numbers ".len()..].trim().to_string()
                    }
                    _ => {
                        line.unread = format!(
                            "pasted line {}: `{option}` is not an option (any suits, any numbers, numbers 1 3 5, any winds)",
                            n + 1
                        )
                    }
                }
            }
        }
        if rest.len() > 4 {
            line.note = rest[4..].join(" | ");
        }
        out.push(line);
    }
    out
}

/// How a line of one card differs in another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Same,
    Changed,
    Added,
    Removed,
}

/// A row of a comparison: the line before (in the first card) and after (in the second).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    pub change: Change,
    pub before: Option<usize>,
    pub after: Option<usize>,
}

/// Compares two cards line by line. A line with the same section, patterns and options is the
/// same line (changed if its value, X/C or note moved); a line left over with the same id was
/// changed; the rest were added or removed. Rows follow the second card, each removed line after
/// the last row of its section.
pub fn compare(a: &Card, b: &Card) -> Vec<Compared> {
    let shape = |l: &crate::rules::Line| {
        (
            l.section.clone(),
            l.patterns.clone(),
            l.suits,
            l.numbers.clone(),
            l.winds,
        )
    };
    let mut used = vec![false; a.lines.len()];
    let mut rows: Vec<Compared> = Vec::new();
    let mut unpaired = Vec::new();
    for (j, lb) in b.lines.iter().enumerate() {
        match (0..a.lines.len()).find(|&i| !used[i] && shape(&a.lines[i]) == shape(lb)) {
            Some(i) => {
                used[i] = true;
                let la = &a.lines[i];
                let same =
                    la.value == lb.value && la.concealed == lb.concealed && la.note == lb.note;
                rows.push(Compared {
                    change: if same { Change::Same } else { Change::Changed },
                    before: Some(i),
                    after: Some(j),
                });
            }
            None => {
                unpaired.push(rows.len());
                rows.push(Compared {
                    change: Change::Added,
                    before: None,
                    after: Some(j),
                });
            }
        }
    }
    for at in unpaired {
        let id = &b.lines[rows[at].after.unwrap_or_default()].id;
        if let Some(i) = (0..a.lines.len()).find(|&i| !used[i] && &a.lines[i].id == id) {
            used[i] = true;
            rows[at].change = Change::Changed;
            rows[at].before = Some(i);
        }
    }
    for i in (0..a.lines.len()).filter(|&i| !used[i]) {
        let section = &a.lines[i].section;
        let at = rows
            .iter()
            .rposition(|r| {
                r.after.map(|j| &b.lines[j].section) == Some(section)
                    || r.before.map(|k| &a.lines[k].section) == Some(section)
            })
            .map_or(rows.len(), |p| p + 1);
        rows.insert(
            at,
            Compared {
                change: Change::Removed,
                before: Some(i),
                after: None,
            },
        );
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::builtin;

    fn line(section: &str, pattern: &str, value: &str) -> LineText {
        LineText {
            section: section.into(),
            pattern: pattern.into(),
            value: value.into(),
            ..LineText::default()
        }
    }

    /// The paste layout of typed lines (the inverse of `parse_paste` for lines that read).
    fn to_paste(lines: &[LineText]) -> String {
        let mut out = String::new();
        for l in lines {
            let mut options = Vec::new();
            if l.suits.trim() == "any" {
                options.push("any suits".to_string());
            }
            match l.numbers.trim() {
                "" | "as-written" => {}
                "any" => options.push("any numbers".into()),
                list => options.push(format!("numbers {}", list.replace(',', " "))),
            }
            if l.winds.trim() == "any" {
                options.push("any winds".into());
            }
            let mut parts = vec![
                l.section.trim().to_string(),
                l.pattern.trim().to_string(),
                l.value.trim().to_string(),
                if l.concealed { "C" } else { "X" }.to_string(),
            ];
            if !options.is_empty() || !l.note.trim().is_empty() {
                parts.push(options.join(", "));
            }
            if !l.note.trim().is_empty() {
                parts.push(l.note.trim().to_string());
            }
            out.push_str(&parts.join(" | "));
            out.push('\n');
        }
        out
    }

    fn head() -> HeadText {
        HeadText {
            name: "Typed".into(),
            year: "2027".into(),
            publisher: String::new(),
        }
    }

    #[test]
    fn every_builtin_card_survives_the_editor() {
        for name in builtin::names() {
            let card = builtin::get(name).unwrap();
            let (head, lines) = from_card(card);
            let again = check(&head, &lines).unwrap_or_else(|p| panic!("{name}: {p:?}"));
            assert_eq!(again.lines.len(), card.lines.len(), "{name}");
            assert_eq!(again.targets.len(), card.targets.len(), "{name}");
            for (a, b) in again.lines.iter().zip(&card.lines) {
                assert_eq!(
                    (&a.id, &a.patterns, a.value, a.concealed, &a.note),
                    (&b.id, &b.patterns, b.value, b.concealed, &b.note)
                );
                assert_eq!(a.targets.len(), b.targets.len(), "{}", a.id);
            }
            // And through the paste layout.
            let pasted = parse_paste(&to_paste(&lines));
            let lines_no_ids: Vec<LineText> = lines
                .iter()
                .map(|l| LineText {
                    id: String::new(),
                    ..l.clone()
                })
                .collect();
            assert_eq!(pasted, lines_no_ids, "{name}");
        }
    }

    #[test]
    fn problems_land_on_their_lines() {
        let lines = [
            line("2468", "222 4444 666 8888", "25"),
            line("2468", "FF 222:g 4444:g 666:r 8:r", "25"),
            line("Winds", "NNNN EEE WWW SSSS", "2S"),
            line("", "FF 1111 2222 3333", "25"),
        ];
        let p = check(&head(), &lines).unwrap_err();
        assert!(p.card.is_empty(), "{p:?}");
        assert!(p.lines[0].is_empty(), "{p:?}");
        assert_eq!(p.lines[1], ["pattern has 13 tiles, a hand needs 14"]);
        assert_eq!(
            p.lines[2],
            ["value: `2S` is not a whole number; write a number such as 25"]
        );
        assert!(
            p.lines[3].contains(&"the line has no section".to_string()),
            "{p:?}"
        );
        let blank = check(&HeadText::default(), &[]).unwrap_err();
        assert_eq!(
            blank.card,
            [
                "give the card a name",
                "give the card a year",
                "the card has no lines yet"
            ]
        );
    }

    #[test]
    fn a_comparison_says_added_removed_and_changed() {
        let a = check(
            &head(),
            &[
                line("2468", "222 4444 666 8888", "25"),
                line("2468", "FF 2222 44 66 8888", "25"),
                line("Winds", "NNNN EEE WWW SSSS", "25"),
            ],
        )
        .unwrap();
        let mut changed = line("2468", "FF 2222 44 66 8888", "30");
        changed.concealed = true;
        let b = check(
            &head(),
            &[
                line("2468", "222 4444 666 8888", "25"),
                changed,
                line("Winds", "NNN EEEE WWWW SSS", "25"),
                line("Winds", "FF NNN EEE WWW SSS", "30"),
            ],
        )
        .unwrap();
        let rows: Vec<(Change, Option<usize>, Option<usize>)> = compare(&a, &b)
            .into_iter()
            .map(|r| (r.change, r.before, r.after))
            .collect();
        assert_eq!(
            rows,
            [
                (Change::Same, Some(0), Some(0)),
                (Change::Changed, Some(1), Some(1)),
                // Same id, Winds#1, new pattern: a change.
                (Change::Changed, Some(2), Some(2)),
                (Change::Added, None, Some(3)),
            ]
        );
        let back: Vec<Change> = compare(&b, &a).into_iter().map(|r| r.change).collect();
        assert_eq!(
            back,
            [
                Change::Same,
                Change::Changed,
                Change::Changed,
                Change::Removed
            ]
        );
    }

    #[test]
    fn one_line_alone_says_its_targets_or_its_problems() {
        let mut l = line("Any", "11 22:g 333:r 4444:b 11:g", "25");
        assert_eq!(
            check_line(&l).unwrap_err(),
            ["pattern has 13 tiles, a hand needs 14"]
        );
        l.pattern = "FF 1111:g 2222:r 3333:b".into();
        l.numbers = "any".into();
        let read = check_line(&l).unwrap();
        assert_eq!(read.targets, 6 * 7, "six suit orders, seven shifts");
        assert_eq!(
            read.words,
            "two flowers, a kong of 1 (suit A), a kong of 2 (suit B) and a kong of 3 (suit C), three different suits"
        );
        assert!(read.options[0].starts_with("Any numbers"), "{read:?}");
        l.numbers = "odd".into();
        let p = check_line(&l).unwrap_err();
        assert!(p[0].contains("numbers must be"), "{p:?}");
    }

    #[test]
    fn a_paste_reads_what_it_can_and_keeps_the_rest_marked() {
        let text = "# Our club's card\n2468 | 222 4444 666 8888 | 25 | X\nWinds\nNNNN EEE WWW SSSS | 25 | C\nthis line has no separators at all\nWinds | NN EE WW SS 11 22 33 | 50 | Q\nLike | FF 1111:g 1111:r 1111:b | 30 | x | any numbers | Kongs of one number\n2468\t2222 44 66 8888 FF\t30\tX\n";
        let lines = parse_paste(text);
        assert_eq!(lines.len(), 6, "{lines:#?}");
        assert_eq!(
            (lines[0].section.as_str(), lines[0].value.as_str()),
            ("2468", "25")
        );
        assert_eq!(lines[1].section, "Winds");
        assert!(lines[1].concealed);
        assert_eq!(lines[2].section, "Winds", "a heading is a section");
        assert_eq!(lines[2].pattern, "this line has no separators at all");
        assert!(
            lines[2].unread.starts_with("pasted line 5: it has 1 parts"),
            "{:?}",
            lines[2]
        );
        assert!(
            lines[3].unread.contains("X (may be exposed) or C"),
            "{:?}",
            lines[3]
        );
        assert!(
            lines[3].unread.starts_with("pasted line 6"),
            "{:?}",
            lines[3]
        );
        assert_eq!(lines[4].numbers, "any");
        assert_eq!(lines[4].note, "Kongs of one number");
        assert_eq!(lines[5].section, "2468");
        assert_eq!(lines[5].value, "30");
        let p = check(&head(), &lines).unwrap_err();
        let marked: Vec<usize> = (0..lines.len())
            .filter(|&i| !p.lines[i].is_empty())
            .collect();
        assert_eq!(marked, [2, 3], "{p:?}");
        assert!(p.lines[3][0].starts_with("pasted line 6"));
    }
}
