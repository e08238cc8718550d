//! Players' names: one person, one name. A name is stored in Unicode NFC with its white space
//! collapsed; characters that show nothing (bidi controls, zero-width characters and every
//! other default-ignorable code point) and control characters are refused; and two names are
//! the same player when their keys are equal: the name case-folded (Unicode default case
//! folding) and reduced to its UTS #39 skeleton, so "ÉMILE ZOË" and a look-alike with a
//! Cyrillic "Е" are the same player as "Émile Zoë". The key is computed here, in Rust only, and
//! stored beside the name (`players.name_key`, unique per club): SQL compares keys, never
//! re-derives them, so Rust and SQL always agree.

use unicode_normalization::UnicodeNormalization;

/// A name as stored: NFC, white space collapsed to single spaces, trimmed.
pub fn normalize(name: &str) -> String {
    let nfc: String = name.nfc().collect();
    nfc.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first character of `name` that may not be in a name, if any: a control character or a
/// default-ignorable code point (drawn as nothing: bidi controls, zero-width spaces and
/// joiners, soft hyphens, variation selectors), which would let two names look alike.
pub fn forbidden(name: &str) -> Option<char> {
    name.chars()
        .find(|&c| !c.is_whitespace() && (c.is_control() || shows_nothing(c)))
}

/// Whether `c` is drawn as nothing (a default-ignorable code point: bidi controls, zero-width
/// spaces and joiners, soft hyphens, variation selectors).
pub fn shows_nothing(c: char) -> bool {
    unicode_security::skeleton(c.encode_utf8(&mut [0; 4]))
        .next()
        .is_none()
}

/// What makes two names one player: the NFC name case-folded and reduced to its skeleton.
pub fn key(name: &str) -> String {
    let folded = caseless::default_case_fold_str(&normalize(name));
    let skeleton: String = unicode_security::skeleton(&folded).collect();
    // The skeleton of a folded name can hold capitals again (a prototype is upper case): fold
    // once more so the key does not depend on which look-alike was typed.
    caseless::default_case_fold_str(&skeleton).nfc().collect()
}

/// How to name a character in a message: `U+200B`.
pub fn code_point(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_and_look_alikes_are_one_name() {
        let emile = key("Émile Zoë");
        assert_eq!(key("ÉMILE ZOË"), emile);
        assert_eq!(key("E\u{301}mile Zoe\u{308}"), emile, "decomposed");
        assert_eq!(
            key("\u{415}mile Zo\u{451}"),
            key("Emile Zoë"),
            "Cyrillic Е and ё"
        );
        assert_eq!(key("  Émile   Zoë "), emile);
        assert_ne!(key("Emily Zoë"), emile);
        assert_ne!(key("Ann"), key("Anne"));
        assert_eq!(normalize("E\u{301}mile  Zoe\u{308}"), "Émile Zoë");
    }

    #[test]
    fn invisible_and_control_characters_are_refused() {
        for bad in [
            "Émile\u{200B}Zoë",
            "Ann\u{200D}",
            "\u{202E}nnA",
            "Bea\u{2066}x\u{2069}",
            "Cy\u{200F}",
            "Di\u{FEFF}",
            "Ed\u{AD}na",
            "Fay\u{7}",
        ] {
            assert!(forbidden(bad).is_some(), "{bad:?}");
        }
        for good in [
            "Émile Zoë",
            "O'Brien-Lee",
            "Nguyễn Thị",
            "李 小龍",
            "Zoë\tAnn",
        ] {
            assert_eq!(forbidden(good), None, "{good:?}");
        }
        assert_eq!(code_point('\u{200B}'), "U+200B");
    }
}
