//! The layers of the crate, checked on its source: each module may name only the modules
//! below it (README "Architecture"), and the operations know nothing of HTTP.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each top-level module and the modules it may use (besides itself).
const LAYERS: &[(&str, &[&str])] = &[
    ("rules", &[]),
    ("seating", &[]),
    ("standings", &[]),
    ("auth", &[]),
    ("metrics", &[]),
    ("config", &[]),
    ("telemetry", &["config"]),
    ("storage", &["rules", "standings", "auth"]),
    ("live", &["storage", "rules", "auth", "standings"]),
    ("mail", &["storage"]),
    (
        "state",
        &["live", "storage", "rules", "auth", "metrics", "mail"],
    ),
    (
        "domain",
        &[
            "state",
            "storage",
            "rules",
            "auth",
            "seating",
            "standings",
            "mail",
        ],
    ),
    ("error", &["domain"]),
    ("http", &["domain", "error", "auth"]),
    ("api", &["domain", "error", "http", "rules"]),
    ("pages", &["domain", "error", "http", "auth", "rules"]),
    (
        "startup",
        &[
            "api",
            "pages",
            "domain",
            "error",
            "http",
            "state",
            "storage",
            "config",
            "telemetry",
            "mail",
        ],
    ),
    (
        "cli",
        &[
            "startup",
            "config",
            "rules",
            "seating",
            "storage",
            "api",
            "telemetry",
        ],
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`src/domain/games.rs` → `domain`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The code of a file without comments and without its unit tests.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The crate modules a piece of code names: `crate::x`, including `use crate::{x, y}`.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => top_level_items(group),
            None => vec![rest],
        };
        for n in names {
            let name: String = n
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// The items of a `{a, b::{c, d}, e}` group (given after its `{`): `a`, `b::{c, d}`, `e`.
fn top_level_items(group: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

#[test]
fn every_module_names_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        if module == "lib" || module == "main" {
            continue;
        }
        let Some((_, allowed)) = LAYERS.iter().find(|(m, _)| *m == module) else {
            wrong.push(format!(
                "{}: module `{module}` has no layer",
                file.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for used in named_modules(&code(&text)) {
            if used != module && !allowed.contains(&used.as_str()) {
                wrong.push(format!(
                    "{}: `{module}` uses `crate::{used}`",
                    file.display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}

#[test]
fn the_operations_know_nothing_of_http() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for dir in ["domain", "storage", "rules", "auth"] {
        rust_files(&src.join(dir), &mut files);
    }
    files.extend(["state.rs", "seating.rs", "standings.rs"].map(|f| src.join(f)));
    let mut wrong = Vec::new();
    for file in &files {
        let text = code(&std::fs::read_to_string(file).unwrap());
        for web in [
            "actix_web",
            "HttpRequest",
            "HttpResponse",
            "StatusCode",
            "askama",
        ] {
            if text.contains(web) {
                wrong.push(format!("{} mentions `{web}`", file.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "HTTP below the adapters:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_checker_reads_grouped_and_nested_paths() {
    let names = named_modules(
        "use crate::{domain::{self, Error}, error::AppError};\nlet x = crate::storage::ping(db);",
    );
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        vec!["domain", "error", "storage"]
    );
}

/// The files of `storage` name each other without a circle (each is a part that the ones above
/// it build on: `games` uses `totals`, which uses `new_game`, not `games`).
#[test]
fn storage_modules_form_no_circle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/storage");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let names: BTreeSet<String> = files
        .iter()
        .map(|f| f.file_stem().unwrap().to_string_lossy().to_string())
        .filter(|n| n != "mod")
        .collect();
    let mut uses: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for file in &files {
        let me = file.file_stem().unwrap().to_string_lossy().to_string();
        let text = code(&std::fs::read_to_string(file).unwrap());
        // `super::x` and `crate::storage::x`, grouped or not.
        let text = text.replace("crate::storage::", "super::");
        let mut named = BTreeSet::new();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("super::") {
            rest = &rest[i + "super::".len()..];
            let items: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => top_level_items(group),
                None => vec![rest],
            };
            for item in items {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if names.contains(&name) && name != me {
                    named.insert(name);
                }
            }
        }
        uses.insert(me, named);
    }
    assert!(
        uses["games"].contains("totals"),
        "the checker reads the uses: {uses:?}"
    );
    // Depth-first search for a cycle.
    fn visit(
        n: &str,
        uses: &std::collections::BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut circle = path[i..].to_vec();
            circle.push(n.to_string());
            return Some(circle);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for m in uses.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, uses, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for n in uses.keys() {
        if let Some(circle) = visit(n, &uses, &mut Vec::new(), &mut done) {
            panic!("storage modules in a circle: {}", circle.join(" → "));
        }
    }
}
