//! Card files (rules.md §2): parsing, validation with line-numbered errors, and compilation.

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::pattern::{NumbersRule, Options, Pattern, SuitsRule, Target, WindsRule};

/// One problem in a card file: where it is, which hand, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CardError {
    /// 1-based line in the file, when known.
    pub line: Option<usize>,
    /// The hand's id, when the problem is in a hand.
    pub hand: Option<String>,
    pub message: String,
}

impl fmt::Display for CardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(hand) = &self.hand {
            write!(f, "hand {hand}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// A compiled card, built in or loaded: cheap to clone and to share between threads.
#[derive(Debug, Clone)]
pub enum CardRef {
    Builtin(&'static Card),
    Shared(std::sync::Arc<Card>),
}

impl std::ops::Deref for CardRef {
    type Target = Card;
    fn deref(&self) -> &Card {
        match self {
            CardRef::Builtin(c) => c,
            CardRef::Shared(c) => c,
        }
    }
}

/// A hand line of a card.
#[derive(Debug, Clone)]
pub struct Line {
    pub id: String,
    pub section: String,
    pub value: u32,
    pub concealed: bool,
    /// The pattern alternatives as written.
    pub patterns: Vec<String>,
    pub suits: SuitsRule,
    pub numbers: NumbersRule,
    pub winds: WindsRule,
    pub note: Option<String>,
    /// This line's targets in `Card::targets`.
    pub targets: Range<usize>,
    /// Where the hand starts in the file (1-based).
    pub source_line: usize,
}

/// A compiled card: its lines and every target they stand for.
#[derive(Debug, Clone)]
pub struct Card {
    pub name: String,
    pub year: i64,
    pub publisher: Option<String>,
    /// Section names in the order they first appear.
    pub sections: Vec<String>,
    pub lines: Vec<Line>,
    pub targets: Vec<Target>,
    /// Which targets a hand can possibly make, found by bit sets instead of a pass over all.
    pub(crate) index: TargetIndex,
    /// Per tile kind, every target's count of it, for the nearest-lines pass.
    pub(crate) columns: Columns,
}

/// Every target's tile counts as columns, one per tile kind (targets in card order), for the
/// nearest-lines pass: a hand touches only the columns of the kinds it holds, and a column is a
/// run of bytes the compiler compares sixteen targets at a time.
#[derive(Debug, Clone, Default)]
pub(crate) struct Columns {
    /// Length of a column: the number of targets rounded up to a whole block, the padding
    /// targets all zero.
    pub(crate) stride: usize,
    /// `need[k * stride + t]`: natural-only tiles of kind `k` (singles, pairs, runs) in `t`.
    pub(crate) need: Vec<u8>,
    /// `total[k * stride + t]`: every tile of kind `k` in `t`.
    pub(crate) total: Vec<u8>,
    /// Per target, its natural-only tiles in all.
    pub(crate) need_sum: Vec<u8>,
}

impl Columns {
    /// Targets are counted a block at a time.
    pub(crate) const BLOCK: usize = 32;

    pub(crate) fn new(targets: &[Target]) -> Columns {
        let n = targets.len().next_multiple_of(Self::BLOCK);
        let kinds = crate::rules::tile::KINDS;
        let mut c = Columns {
            stride: n,
            need: vec![0; kinds * n],
            total: vec![0; kinds * n],
            need_sum: vec![0; n],
        };
        for (ti, t) in targets.iter().enumerate() {
            for &k in &t.kinds {
                let need = t.need.get(k);
                c.need[k.index() * n + ti] = need;
                c.total[k.index() * n + ti] = need + t.slots.get(k);
                c.need_sum[ti] += need;
            }
        }
        c
    }

    pub(crate) fn bytes(&self) -> usize {
        self.need.capacity() + self.total.capacity() + self.need_sum.capacity()
    }
}

/// Per tile kind, a bit set over the targets: which targets have a place for the kind
/// (`allows`), and which need it as a natural tile (`requires`). A hand can only make the
/// targets that allow every kind it holds and require no kind it lacks.
#[derive(Debug, Clone, Default)]
pub(crate) struct TargetIndex {
    /// 64-bit words per bit set.
    pub(crate) words: usize,
    /// `KINDS - 1` bit sets (jokers go anywhere a set is), one after the other.
    pub(crate) allows: Vec<u64>,
    pub(crate) requires: Vec<u64>,
}

impl TargetIndex {
    pub(crate) fn new(filters: &[(u64, u64)]) -> TargetIndex {
        let words = filters.len().div_ceil(64);
        let kinds = crate::rules::tile::KINDS - 1;
        let mut allows = vec![0u64; kinds * words];
        let mut requires = vec![0u64; kinds * words];
        let bit = |ti: usize| 1u64 << (ti % 64);
        for (ti, (mask, need)) in filters.iter().enumerate() {
            // Only the kinds the target has: a few of the 35.
            let mut m = mask & ((1u64 << kinds) - 1);
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                allows[k * words + ti / 64] |= bit(ti);
            }
            let mut n = need & ((1u64 << kinds) - 1);
            while n != 0 {
                let k = n.trailing_zeros() as usize;
                n &= n - 1;
                requires[k * words + ti / 64] |= bit(ti);
            }
        }
        TargetIndex {
            words,
            allows,
            requires,
        }
    }

    /// The targets a hand holding exactly the natural kinds `hand_mask` can possibly make, as
    /// a bit set (ascending target order is card order).
    pub(crate) fn candidates(&self, hand_mask: u64, count: usize) -> Vec<u64> {
        let mut out = vec![u64::MAX; self.words];
        if let Some(last) = out.last_mut()
            && !count.is_multiple_of(64)
        {
            *last = (1u64 << (count % 64)) - 1;
        }
        let kinds = crate::rules::tile::KINDS - 1;
        for k in 0..kinds {
            let at = k * self.words;
            if hand_mask & (1 << k) != 0 {
                for (o, a) in out.iter_mut().zip(&self.allows[at..at + self.words]) {
                    *o &= a;
                }
            } else {
                for (o, r) in out.iter_mut().zip(&self.requires[at..at + self.words]) {
                    *o &= !r;
                }
            }
        }
        out
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCard {
    name: Option<Spanned<String>>,
    year: Option<Spanned<i64>>,
    #[allow(dead_code)]
    publisher: Option<String>,
    #[serde(default)]
    hand: Vec<Spanned<RawHand>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHand {
    section: Option<Spanned<String>>,
    pattern: Option<Spanned<toml::Value>>,
    value: Option<Spanned<i64>>,
    concealed: Option<bool>,
    suits: Option<Spanned<String>>,
    numbers: Option<Spanned<toml::Value>>,
    winds: Option<Spanned<String>>,
    id: Option<Spanned<String>>,
    note: Option<String>,
}

/// Maps byte offsets to 1-based line numbers.
struct Lines<'a> {
    text: &'a str,
    /// Byte offsets of the newlines, in order.
    breaks: Vec<usize>,
}

impl Lines<'_> {
    fn new(text: &str) -> Lines<'_> {
        Lines {
            text,
            breaks: text
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        }
    }

    /// The 1-based line of a byte offset: one more than the newlines before it.
    fn at(&self, offset: usize) -> usize {
        self.breaks.partition_point(|&b| b < offset) + 1
    }

    /// 1-based line numbers of the `[[hand]]` headers.
    fn hand_headers(&self) -> Vec<usize> {
        self.text
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                let compact: String = l.chars().filter(|c| !c.is_whitespace()).collect();
                compact.starts_with("[[hand]]")
            })
            .map(|(i, _)| i + 1)
            .collect()
    }
}

/// The id a hand has (or would have) given its section and position.
fn default_id(section: &str, n: usize) -> String {
    format!("{section}#{n}")
}

/// The most targets a card may expand to. A printed card has about a thousand; far more is a
/// mistake or an attack (a small file can ask for millions), refused before it costs memory.
pub const MAX_TARGETS: usize = 20_000;

impl Card {
    /// About how many bytes the compiled card holds (for caches bounded by memory).
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        let targets: usize = self.targets.len() * size_of::<Target>()
            + (self.index.allows.capacity() + self.index.requires.capacity()) * size_of::<u64>()
            + self.columns.bytes();
        let lines: usize = self
            .lines
            .iter()
            .map(|l| {
                size_of::<Line>()
                    + l.id.len()
                    + l.section.len()
                    + l.patterns
                        .iter()
                        .map(|p| p.len() + size_of::<String>())
                        .sum::<usize>()
                    + l.note.as_ref().map_or(0, |n| n.len())
            })
            .sum();
        size_of::<Card>() + targets + lines
    }

    /// Parses and compiles a card file. Every problem found is returned.
    pub fn parse(text: &str) -> Result<Card, Vec<CardError>> {
        let lines = Lines::new(text);
        let raw: RawCard = match toml::from_str(text) {
            Ok(raw) => raw,
            Err(typed) => {
                // Read again loosely: a syntax error is reported as such, and the messages for
                // type and key errors can name the hand.
                let loose: toml::Table = match toml::from_str(text) {
                    Ok(v) => v,
                    Err(e) => {
                        return Err(vec![CardError {
                            line: e.span().map(|s| lines.at(s.start)),
                            hand: None,
                            message: e.message().trim().to_string(),
                        }]);
                    }
                };
                let line = typed.span().map(|s| lines.at(s.start));
                let hand = line.and_then(|l| hand_id_at(&lines, &loose, l));
                return Err(vec![CardError {
                    line,
                    hand,
                    message: typed.message().trim().to_string(),
                }]);
            }
        };
        compile(raw, &lines)
    }

    /// The targets of one line.
    pub fn line_targets(&self, line: usize) -> &[Target] {
        &self.targets[self.lines[line].targets.clone()]
    }

    /// Finds a line by id.
    pub fn line_by_id(&self, id: &str) -> Option<&Line> {
        self.lines.iter().find(|l| l.id == id)
    }
}

/// Finds the id of the hand whose table contains `line`, from a loosely parsed card.
fn hand_id_at(lines: &Lines<'_>, loose: &toml::Table, line: usize) -> Option<String> {
    let headers = lines.hand_headers();
    let index = headers.iter().rposition(|&h| h <= line)?;
    let hands = loose.get("hand")?.as_array()?;
    let hand = hands.get(index)?.as_table()?;
    if let Some(id) = hand.get("id").and_then(|v| v.as_str()) {
        return Some(id.to_string());
    }
    let section = hand.get("section").and_then(|v| v.as_str())?;
    let n = hands[..=index]
        .iter()
        .filter(|h| h.get("section").and_then(|v| v.as_str()) == Some(section))
        .count();
    Some(default_id(section, n))
}

fn compile(raw: RawCard, lines: &Lines<'_>) -> Result<Card, Vec<CardError>> {
    let mut c = Compiler {
        lines,
        errors: Vec::new(),
        sections: Vec::new(),
        section_counts: Vec::new(),
        ids: HashSet::new(),
        out: Vec::new(),
        targets: Vec::new(),
    };
    let name = c.name(raw.name);
    let year = c.year(raw.year);
    if raw.hand.is_empty() {
        c.errors.push(CardError {
            line: None,
            hand: None,
            message: "the card has no hands; add [[hand]] tables".into(),
        });
    }
    for spanned in raw.hand {
        if c.hand(spanned).is_err() {
            return Err(c.errors);
        }
    }
    if !c.errors.is_empty() {
        return Err(c.errors);
    }
    let filters: Vec<(u64, u64)> = c.targets.iter().map(|t| (t.mask, t.need_mask)).collect();
    let index = TargetIndex::new(&filters);
    drop(filters);
    let columns = Columns::new(&c.targets);
    Ok(Card {
        index,
        columns,
        name,
        year,
        publisher: raw.publisher,
        sections: c.sections,
        lines: c.out,
        targets: c.targets,
    })
}

/// A card being compiled: its hands so far with their targets, and every problem found.
struct Compiler<'l, 'a> {
    lines: &'l Lines<'a>,
    errors: Vec<CardError>,
    sections: Vec<String>,
    /// Hands so far in each section, in the order of `sections`.
    section_counts: Vec<usize>,
    ids: HashSet<String>,
    out: Vec<Line>,
    targets: Vec<Target>,
}

/// Compiling stopped: the card grew past `MAX_TARGETS` (the reason is in the errors).
struct Stopped;

impl Compiler<'_, '_> {
    fn at(&self, span: Range<usize>) -> usize {
        self.lines.at(span.start)
    }

    /// A problem of the hand `hand`, at `line`.
    fn err(&mut self, hand: &str, line: usize, message: String) {
        self.errors.push(CardError {
            line: Some(line),
            hand: Some(hand.to_string()),
            message,
        });
    }

    /// A problem of the card's own fields.
    fn card_err(&mut self, line: usize, message: &str) {
        self.errors.push(CardError {
            line: Some(line),
            hand: None,
            message: message.into(),
        });
    }

    fn name(&mut self, raw: Option<Spanned<String>>) -> String {
        match raw {
            Some(n) if !n.get_ref().trim().is_empty() => n.into_inner(),
            Some(n) => {
                let line = self.at(n.span());
                self.card_err(line, "name is empty");
                String::new()
            }
            None => {
                self.card_err(1, "the card needs a `name`");
                String::new()
            }
        }
    }

    fn year(&mut self, raw: Option<Spanned<i64>>) -> i64 {
        match raw {
            Some(y) => *y.get_ref(),
            None => {
                self.card_err(1, "the card needs a `year`");
                0
            }
        }
    }

    /// One `[[hand]]`: checked, expanded into its targets and added; `Stopped` when the card
    /// has grown too large to go on.
    fn hand(&mut self, spanned: Spanned<RawHand>) -> Result<(), Stopped> {
        let hand_line = self.at(spanned.span());
        let hand = spanned.into_inner();
        let section = hand
            .section
            .as_ref()
            .map(|s| s.get_ref().trim().to_string());
        // The id first, so every later message can name the hand.
        let id = self.hand_id(&hand, &section);
        match &section {
            None => self.err(&id, hand_line, "the hand needs a `section`".into()),
            Some(s) if s.is_empty() => self.err(&id, hand_line, "section is empty".into()),
            _ => {}
        }
        if let Some(raw_id) = &hand.id
            && raw_id.get_ref().trim().is_empty()
        {
            let line = self.at(raw_id.span());
            self.err(&id, line, "id is empty".into());
        }
        if !self.ids.insert(id.clone()) {
            self.err(
                &id,
                hand_line,
                format!("another hand already has the id `{id}`"),
            );
        }
        let value = self.value(&id, hand_line, &hand.value);
        let options = self.options(&id, &hand);
        let (pattern_line, texts) = self.patterns(&id, hand_line, &hand.pattern);
        let start = self.targets.len();
        self.expand(&id, pattern_line, &texts, &options)?;
        self.out.push(Line {
            id,
            section: section.unwrap_or_default(),
            value,
            concealed: hand.concealed.unwrap_or(false),
            patterns: texts,
            suits: options.suits,
            numbers: options.numbers,
            winds: options.winds,
            note: hand.note,
            targets: start..self.targets.len(),
            source_line: hand_line,
        });
        Ok(())
    }

    /// The hand's id: as given, or `<section>#<n>` by its place in its section.
    fn hand_id(&mut self, hand: &RawHand, section: &Option<String>) -> String {
        let position = section
            .as_ref()
            .map(|s| match self.sections.iter().position(|x| x == s) {
                Some(i) => {
                    self.section_counts[i] += 1;
                    self.section_counts[i]
                }
                None => {
                    self.sections.push(s.clone());
                    self.section_counts.push(1);
                    1
                }
            });
        match (&hand.id, section, position) {
            (Some(id), _, _) => id.get_ref().trim().to_string(),
            (None, Some(s), Some(n)) => default_id(s, n),
            _ => format!("#{}", self.out.len() + 1),
        }
    }

    fn value(&mut self, id: &str, hand_line: usize, value: &Option<Spanned<i64>>) -> u32 {
        match value {
            None => {
                self.err(id, hand_line, "the hand needs a `value`".into());
                0
            }
            Some(v) if *v.get_ref() <= 0 || *v.get_ref() > u32::MAX as i64 => {
                let line = self.at(v.span());
                self.err(
                    id,
                    line,
                    format!("value must be a whole number above 0, not {}", v.get_ref()),
                );
                0
            }
            Some(v) => *v.get_ref() as u32,
        }
    }

    /// The hand's suits, numbers and winds rules (the defaults where one is wrong).
    fn options(&mut self, id: &str, hand: &RawHand) -> Options {
        let suits = match hand
            .suits
            .as_ref()
            .map(|s| (s.get_ref().as_str(), s.span()))
        {
            None | Some(("distinct", _)) => SuitsRule::Distinct,
            Some(("any", _)) => SuitsRule::Any,
            Some((other, span)) => {
                let line = self.at(span);
                self.err(
                    id,
                    line,
                    format!("suits must be \"distinct\" or \"any\", not \"{other}\""),
                );
                SuitsRule::Distinct
            }
        };
        let winds = match hand
            .winds
            .as_ref()
            .map(|s| (s.get_ref().as_str(), s.span()))
        {
            None | Some(("as-written", _)) => WindsRule::AsWritten,
            Some(("any", _)) => WindsRule::Any,
            Some((other, span)) => {
                let line = self.at(span);
                self.err(
                    id,
                    line,
                    format!("winds must be \"as-written\" or \"any\", not \"{other}\""),
                );
                WindsRule::AsWritten
            }
        };
        let numbers = match &hand.numbers {
            None => NumbersRule::AsWritten,
            Some(n) => match parse_numbers(n.get_ref()) {
                Ok(rule) => rule,
                Err(message) => {
                    let line = self.at(n.span());
                    self.err(id, line, message);
                    NumbersRule::AsWritten
                }
            },
        };
        Options {
            suits,
            numbers,
            winds,
        }
    }

    /// The hand's pattern texts and the line they are on.
    fn patterns(
        &mut self,
        id: &str,
        hand_line: usize,
        pattern: &Option<Spanned<toml::Value>>,
    ) -> (usize, Vec<String>) {
        match pattern {
            None => {
                self.err(id, hand_line, "the hand needs a `pattern`".into());
                (hand_line, Vec::new())
            }
            Some(p) => {
                let line = self.at(p.span());
                match pattern_texts(p.get_ref()) {
                    Ok(texts) => (line, texts),
                    Err(message) => {
                        self.err(id, line, message);
                        (line, Vec::new())
                    }
                }
            }
        }
    }

    /// Each pattern's targets, appended to the card's; `Stopped` past `MAX_TARGETS`.
    fn expand(
        &mut self,
        id: &str,
        pattern_line: usize,
        texts: &[String],
        options: &Options,
    ) -> Result<(), Stopped> {
        let mut seen = crate::rules::pattern::Seen::default();
        let several = texts.len() > 1;
        for (alt, text) in texts.iter().enumerate() {
            let prefix = if several {
                format!("pattern {} (`{text}`): ", alt + 1)
            } else {
                String::new()
            };
            let line_index = self.out.len();
            match Pattern::parse(text) {
                Ok(p) => {
                    if let Err(message) =
                        p.expand(options, line_index, alt, &mut seen, &mut self.targets)
                    {
                        self.err(id, pattern_line, format!("{prefix}{message}"));
                    }
                }
                Err(message) => self.err(id, pattern_line, format!("{prefix}{message}")),
            }
            if self.targets.len() > MAX_TARGETS {
                // Stop here: every further line would only cost more.
                self.err(
                    id,
                    pattern_line,
                    format!(
                        "the card expands to more than {MAX_TARGETS} targets by this line (a printed card has about 1,000); use fewer lines or fewer variants"
                    ),
                );
                return Err(Stopped);
            }
        }
        Ok(())
    }
}

fn pattern_texts(value: &toml::Value) -> Result<Vec<String>, String> {
    const WANT: &str = "pattern must be a string or a list of strings";
    match value {
        toml::Value::String(s) => Ok(vec![s.clone()]),
        toml::Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| WANT.to_string())
            })
            .collect(),
        toml::Value::Array(_) => Err("pattern list is empty".into()),
        _ => Err(WANT.into()),
    }
}

fn parse_numbers(value: &toml::Value) -> Result<NumbersRule, String> {
    const WANT: &str = "numbers must be \"as-written\", \"any\" or a list of numbers 1-9";
    match value {
        toml::Value::String(s) if s == "as-written" => Ok(NumbersRule::AsWritten),
        toml::Value::String(s) if s == "any" => Ok(NumbersRule::Any),
        toml::Value::Array(items) if !items.is_empty() => {
            let mut values = Vec::new();
            for item in items {
                match item.as_integer() {
                    Some(n @ 1..=9) => values.push(n as u8),
                    Some(n) => return Err(format!("numbers lists {n}; numbers run from 1 to 9")),
                    None => return Err(WANT.into()),
                }
            }
            Ok(NumbersRule::Lowest(values))
        }
        _ => Err(WANT.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const EXAMPLE: &str = include_str!("../../tests/fixtures/example.toml");

    #[test]
    fn example_card_has_35_targets() {
        let card = Card::parse(EXAMPLE).unwrap();
        assert_eq!(card.lines.len(), 4);
        assert_eq!(card.targets.len(), 35);
        assert_eq!(card.sections, ["2468", "Like Numbers", "Winds", "Year"]);
        assert_eq!(card.lines[1].id, "Like Numbers#1");
    }

    #[test]
    fn short_pattern_names_line_and_hand() {
        let text = "name = \"T\"\nyear = 2026\n\n[[hand]]\nsection = \"2468\"\nvalue = 25\n\n[[hand]]\nsection = \"2468\"\npattern = \"FF 222:g 4444:g 666:r 8:r\"\nvalue = 25\n";
        let errs = Card::parse(text).unwrap_err();
        let shown: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            shown,
            [
                "line 4: hand 2468#1: the hand needs a `pattern`",
                "line 10: hand 2468#2: pattern has 13 tiles, a hand needs 14"
            ]
        );
    }

    #[test]
    fn unknown_keys_are_refused_with_the_hand() {
        let text = "name = \"T\"\nyear = 2026\n[[hand]]\nsection = \"Winds\"\npattern = \"NNN EEEE WWWW SSS\"\nvalue = 25\ncolour = \"red\"\n";
        let errs = Card::parse(text).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].line, Some(7));
        assert_eq!(errs[0].hand.as_deref(), Some("Winds#1"));
        assert!(errs[0].message.contains("colour"), "{}", errs[0].message);
        let top = "name = \"T\"\nyear = 2026\nedition = 2\n";
        assert_eq!(Card::parse(top).unwrap_err()[0].line, Some(3));
    }

    #[test]
    fn too_many_colours_and_bad_values_are_errors() {
        let text = "name = \"T\"\nyear = 2026\n[[hand]]\nsection = \"X\"\npattern = \"11:a 22:b 33:c 44:d 555:a 111:b\"\nvalue = 0\n";
        let errs = Card::parse(text).unwrap_err();
        let shown: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        assert!(
            shown.iter().any(|e| e.contains("value must be")),
            "{shown:?}"
        );
        assert!(shown.iter().any(|e| e.contains("4 colours")), "{shown:?}");
    }
}
