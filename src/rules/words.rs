//! A card line in words, as a player reads a printed card aloud: "four flowers, 2026 and two
//! pungs of 2, all in one suit"; and its options ("any numbers") in a sentence each. Shown under
//! each line on the card page, the print and the editor, so a line typed without colours reads
//! as one suit before it is published.

use super::pattern::{NumbersRule, Pattern, SuitsRule, WindsRule};

const SETS: [&str; 6] = [
    "a single", "a pair", "a pung", "a kong", "a quint", "a sextet",
];
const SETS_PLURAL: [&str; 6] = ["singles", "pairs", "pungs", "kongs", "quints", "sextets"];
const COUNTS: [&str; 7] = ["no", "one", "two", "three", "four", "five", "six"];
const SUITS: [&str; 3] = ["suit A", "suit B", "suit C"];

/// What one symbol of a set is called.
fn symbol(c: char, winds_any: bool) -> String {
    match c {
        '0' => "Soap".into(),
        'D' => "dragons".into(),
        'N' | 'E' | 'W' | 'S' if winds_any => format!("one wind ({c})"),
        'N' => "North".into(),
        'E' => "East".into(),
        'W' => "West".into(),
        'S' => "South".into(),
        d => d.to_string(),
    }
}

/// One group (or a run of `times` equal ones) in words.
fn group_words(text: &str, times: usize, winds_any: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let set = chars.iter().all(|c| *c == chars[0]);
    if !set || n == 0 || n > 6 {
        return match times {
            1 => text.to_string(),
            t => format!("{text} {} times", COUNTS.get(t).unwrap_or(&"many")),
        };
    }
    if chars[0] == 'F' {
        let all = n * times;
        return match all {
            1 => "a flower".into(),
            a => format!("{} flowers", COUNTS.get(a).copied().unwrap_or("many")),
        };
    }
    let of = symbol(chars[0], winds_any);
    match times {
        1 => format!("{} of {of}", SETS[n - 1]),
        t => format!(
            "{} {} of {of}",
            COUNTS.get(t).copied().unwrap_or("many"),
            SETS_PLURAL[n - 1]
        ),
    }
}

/// Names or parts in words: "a", "a and b", "a, b and c".
pub fn listed(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// One pattern in words.
pub fn pattern_words(pattern: &Pattern, suits: &SuitsRule, winds: WindsRule) -> String {
    let groups = pattern.display_groups();
    let colours: Vec<usize> = {
        let mut seen = Vec::new();
        for c in groups.iter().filter_map(|g| g.1) {
            if !seen.contains(&c) {
                seen.push(c);
            }
        }
        seen
    };
    let suited = groups.iter().filter(|g| g.1.is_some()).count();
    let winds_any = winds == WindsRule::Any;
    // Equal groups side by side (same symbols, same colour) are said once, counted.
    let mut runs: Vec<(String, Option<usize>, usize)> = Vec::new();
    for (text, colour) in &groups {
        match runs.last_mut() {
            Some(last) if last.0 == *text && last.1 == *colour => last.2 += 1,
            _ => runs.push((text.clone(), *colour, 1)),
        }
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|(text, colour, times)| {
            let words = group_words(text, *times, winds_any);
            match colour {
                Some(c) if colours.len() > 1 => {
                    let at = colours.iter().position(|x| x == c).unwrap_or(0);
                    format!(
                        "{words} ({})",
                        SUITS.get(at).copied().unwrap_or("another suit")
                    )
                }
                _ => words,
            }
        })
        .collect();
    let mut said = listed(&parts);
    match (colours.len(), suits) {
        (1, _) if suited > 1 => said.push_str(", all in one suit"),
        (n, SuitsRule::Distinct) if n > 1 => {
            said.push_str(&format!(", {} different suits", COUNTS[n.min(6)]))
        }
        (n, SuitsRule::Any) if n > 1 => said.push_str(", in any suits: two letters may share one"),
        _ => {}
    }
    said
}

/// A line in words: its patterns ("… or …").
pub fn line_words(patterns: &[String], suits: &SuitsRule, winds: WindsRule) -> String {
    patterns
        .iter()
        .filter_map(|p| Pattern::parse(p).ok())
        .map(|p| pattern_words(&p, suits, winds))
        .collect::<Vec<_>>()
        .join("; or ")
}

/// A line's options, a sentence each (none for a line read as written).
pub fn options_words(suits: &SuitsRule, numbers: &NumbersRule, winds: WindsRule) -> Vec<String> {
    let mut out = Vec::new();
    match numbers {
        NumbersRule::AsWritten => {}
        NumbersRule::Any => out.push(
            "Any numbers: every number moves up or down by the same step, staying within 1 to 9 (0 stays Soap)."
                .to_string(),
        ),
        NumbersRule::Lowest(list) => {
            let list: Vec<String> = list.iter().map(u8::to_string).collect();
            out.push(format!(
                "The lowest number may be {}; the others move with it.",
                listed(&list).replace(" and ", " or ")
            ));
        }
    }
    if *suits == SuitsRule::Any {
        out.push("Any suits: each colour may be any suit, the same as another or not.".into());
    }
    if winds == WindsRule::Any {
        out.push(
            "Any winds: each wind letter stands for any wind; different letters, different winds."
                .into(),
        );
    }
    out
}

/// A line's options as a printed card says them beside the line: "any numbers", "lowest 1, 3
/// or 5", "any suits", "any winds".
pub fn options_short(suits: &SuitsRule, numbers: &NumbersRule, winds: WindsRule) -> Vec<String> {
    let mut out = Vec::new();
    match numbers {
        NumbersRule::AsWritten => {}
        NumbersRule::Any => out.push("any numbers".to_string()),
        NumbersRule::Lowest(list) => {
            let list: Vec<String> = list.iter().map(u8::to_string).collect();
            out.push(format!("lowest {}", listed(&list).replace(" and ", " or ")));
        }
    }
    if *suits == SuitsRule::Any {
        out.push("any suits".into());
    }
    if winds == WindsRule::Any {
        out.push("any winds".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(p: &str) -> String {
        line_words(&[p.to_string()], &SuitsRule::Distinct, WindsRule::AsWritten)
    }

    #[test]
    fn lines_read_as_a_player_says_them() {
        assert_eq!(
            said("FFFF 2026 222 222"),
            "four flowers, 2026 and two pungs of 2, all in one suit"
        );
        assert_eq!(
            said("FFFF 2026:g 222:r 222:b"),
            "four flowers, 2026 (suit A), a pung of 2 (suit B) and a pung of 2 (suit C), three different suits"
        );
        assert_eq!(
            said("NN EEE WWW SSSS DD"),
            "a pair of North, a pung of East, a pung of West, a kong of South and a pair of dragons"
        );
        assert_eq!(
            said("11 222 3333 444 55"),
            "a pair of 1, a pung of 2, a kong of 3, a pung of 4 and a pair of 5, all in one suit"
        );
        assert_eq!(
            line_words(
                &["NNNN 1111:g 1111:r 11:b".into()],
                &SuitsRule::Any,
                WindsRule::Any
            ),
            "a kong of one wind (N), a kong of 1 (suit A), a kong of 1 (suit B) and a pair of 1 (suit C), in any suits: two letters may share one"
        );
    }

    #[test]
    fn options_are_sentences() {
        assert!(
            options_words(
                &SuitsRule::Distinct,
                &NumbersRule::AsWritten,
                WindsRule::AsWritten
            )
            .is_empty()
        );
        assert_eq!(
            options_words(
                &SuitsRule::Distinct,
                &NumbersRule::Lowest(vec![1, 3, 5]),
                WindsRule::AsWritten
            ),
            ["The lowest number may be 1, 3 or 5; the others move with it."]
        );
        assert_eq!(
            options_words(&SuitsRule::Any, &NumbersRule::Any, WindsRule::Any).len(),
            3
        );
    }
}
