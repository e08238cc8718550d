//! Text people type on one line (display names; club, league, card and token names; places,
//! notes and reasons): it stays one line and shows what it says. A control character (a line
//! break, a tab) or a character that shows nothing or turns the text's direction (bidi controls,
//! zero-width marks) is refused with 422 naming the field, so no name can carry a line of its
//! own into a mail, or read backwards on a page.

use crate::domain::{Error, Result};
use crate::storage::people::names::{code_point, shows_nothing};

/// The first character that may not be in one line of typed text, if any.
pub fn forbidden(text: &str) -> Option<char> {
    // U+2028 and U+2029 are line and paragraph separators: line breaks, though not controls.
    text.chars()
        .find(|&c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') || shows_nothing(c))
}

/// The refusal of `c` in `field`.
fn refused(field: &str, c: char) -> Error {
    let what = match c {
        '\n' | '\r' | '\u{2028}' | '\u{2029}' => "a line break",
        '\t' => "a tab",
        c if c.is_control() => "a control character",
        _ => {
            "a character that shows nothing or turns the text's direction (a bidi or zero-width mark)"
        }
    };
    Error::invalid(
        field,
        format!(
            "holds {} ({what}); type it on one line without it",
            code_point(c)
        ),
    )
}

/// One line of typed text: trimmed, 1 to `max` characters, nothing hidden in it.
pub fn one_line(field: &str, value: &str, max: usize) -> Result<String> {
    let v = value.trim();
    if v.is_empty() || value.chars().count() > max {
        return Err(Error::invalid(field, format!("give 1 to {max} characters")));
    }
    if let Some(c) = forbidden(v) {
        return Err(refused(field, c));
    }
    Ok(v.to_string())
}

/// One line of typed text that may be left out: trimmed, empty is `None`, at most `max`.
pub fn optional_line(field: &str, value: Option<&str>, max: usize) -> Result<Option<String>> {
    let Some(raw) = value else { return Ok(None) };
    if raw.chars().count() > max {
        return Err(Error::invalid(
            field,
            format!("give at most {max} characters"),
        ));
    }
    let v = raw.trim();
    if v.is_empty() {
        return Ok(None);
    }
    if let Some(c) = forbidden(v) {
        return Err(refused(field, c));
    }
    Ok(Some(v.to_string()))
}

/// Refuses what may not be in one line, leaving length and emptiness to the caller.
pub fn plain(field: &str, value: &str) -> Result<()> {
    match forbidden(value.trim()) {
        Some(c) => Err(refused(field, c)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_paragraph_separators_are_line_breaks() {
        for c in ['\u{2028}', '\u{2029}'] {
            let typed = format!("Mia{c}Bcc: x@evil.example");
            let e = one_line("display_name", &typed, 100).unwrap_err();
            assert!(e.message().contains("a line break"), "{}", e.message());
            assert!(optional_line("note", Some(typed.as_str()), 500).is_err());
        }
    }

    #[test]
    fn one_line_refuses_breaks_and_direction_marks_naming_the_field() {
        assert_eq!(
            one_line("name", "  Maple Street ", 200).unwrap(),
            "Maple Street"
        );
        for bad in [
            "Ann\r\nBcc: all@example.org",
            "Ann\tB",
            "Ann\u{202E}gpj.exe",
            "A\u{200B}nn",
            "A\u{7f}",
        ] {
            let e = one_line("display_name", bad, 200).unwrap_err();
            assert_eq!(e.fields().collect::<Vec<_>>(), ["display_name"], "{bad:?}");
            assert!(e.to_string().contains("U+"), "{e}");
        }
        assert!(one_line("name", "", 10).is_err());
        assert!(one_line("name", &"x".repeat(11), 10).is_err());
        assert!(one_line("name", "Émile Zoë 李", 20).is_ok());
        assert_eq!(optional_line("note", Some("  "), 5).unwrap(), None);
        assert!(optional_line("note", Some("a\nb"), 5).is_err());
        assert!(optional_line("note", Some("abcdef"), 5).is_err());
    }
}
