//! The layers of the crate, checked on its source: each module may name only the modules
//! below it (README "Architecture"), and the operations know nothing of HTTP. Inside `domain`
//! and `storage`, the areas of what a club does name only the areas below them, no files name
//! each other in a circle anywhere, no folder holds more than 20 files, and no function is
//! longer than a screen (docs/architecture.md).

use std::collections::{BTreeMap, BTreeSet};
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

/// The code of a file without comments and without the items that carry `#[cfg(test)]` (its
/// test modules, test helpers), read whole: what comes after a test module is read too.
fn code(text: &str) -> String {
    let parsed = syn::parse_file(text).unwrap_or_else(|e| panic!("a file that parses: {e}"));
    let mut tests = TestItems { lines: Vec::new() };
    syn::visit::Visit::visit_file(&mut tests, &parsed);
    text.lines()
        .enumerate()
        .filter(|(i, _)| {
            !tests
                .lines
                .iter()
                .any(|(a, b)| (*a..=*b).contains(&(i + 1)))
        })
        .map(|(_, l)| l)
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lines (first, last) of every item that carries `#[cfg(test)]`, at any depth.
struct TestItems {
    lines: Vec<(usize, usize)>,
}

/// Whether an attribute is `#[cfg(test)]` (or a `cfg` that needs `test`, as `all(test, …)`).
fn is_test_only(a: &syn::Attribute) -> bool {
    if !a.path().is_ident("cfg") {
        return false;
    }
    let Ok(list) = a.meta.require_list() else {
        return false;
    };
    let said = list.tokens.to_string();
    let words: Vec<&str> = said
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words.contains(&"test") && !words.contains(&"not") && !words.contains(&"any")
}

impl TestItems {
    fn skip(&mut self, attrs: &[syn::Attribute], whole: proc_macro2::Span) -> bool {
        let test = attrs.iter().any(is_test_only);
        if test {
            self.lines.push((whole.start().line, whole.end().line));
        }
        test
    }
}

impl<'ast> syn::visit::Visit<'ast> for TestItems {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        use syn::Item::*;
        let attrs: &[syn::Attribute] = match item {
            Const(i) => &i.attrs,
            Enum(i) => &i.attrs,
            ExternCrate(i) => &i.attrs,
            Fn(i) => &i.attrs,
            ForeignMod(i) => &i.attrs,
            Impl(i) => &i.attrs,
            Macro(i) => &i.attrs,
            Mod(i) => &i.attrs,
            Static(i) => &i.attrs,
            Struct(i) => &i.attrs,
            Trait(i) => &i.attrs,
            TraitAlias(i) => &i.attrs,
            Type(i) => &i.attrs,
            Union(i) => &i.attrs,
            Use(i) => &i.attrs,
            _ => &[],
        };
        if !self.skip(attrs, syn::spanned::Spanned::span(item)) {
            syn::visit::visit_item(self, item);
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !self.skip(&f.attrs, syn::spanned::Spanned::span(f)) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
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

/// The areas of `domain` and of `storage`, lowest first: an area may name the ones before it
/// (and the files of its floor that are in no area), never one after it. The same names on
/// both floors; docs/architecture.md says what each owns.
const AREAS: &[&str] = &["outbox", "people", "cards", "seasons", "play", "history"];

/// The most `.rs` files one folder of `src/` may hold.
const MOST_FILES: usize = 20;

/// The most lines one function or method of `src/` may have, from its first line to its last.
const MOST_LINES: usize = 120;

/// Every file of `src/` by its module path (`domain::play::games`; `domain` for `domain/mod.rs`;
/// `lib` and `main` left out).
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        let path = parts.join("::");
        if path != "lib" && path != "main" {
            out.insert(path, file);
        }
    }
    out
}

/// The whole paths a piece of code of `module` names from the crate's root: `crate::a::b`, and
/// `super::` paths (read from `module`). Groups are spelled out: `crate::a::{b, c::{d}}` names
/// `a::b` and `a::c::d`.
fn named_paths(code: &str, module: &str) -> Vec<String> {
    let mut out = Vec::new();
    let own: Vec<&str> = module.split("::").collect();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let before_ok = i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b':');
        if before_ok && rest.starts_with("crate::") {
            out.extend(spelled(&rest["crate::".len()..], ""));
            i += "crate::".len();
        } else if before_ok && rest.starts_with("super::") {
            let mut base = own.clone();
            let mut r = rest;
            while let Some(after) = r.strip_prefix("super::") {
                base.pop();
                r = after;
            }
            let prefix = if base.is_empty() {
                String::new()
            } else {
                format!("{}::", base.join("::"))
            };
            out.extend(spelled(r, &prefix));
            i += rest.len() - r.len();
        } else {
            i += rest.chars().next().unwrap().len_utf8();
        }
    }
    out
}

/// The paths of one use tree (given where it starts), each after `prefix`.
fn spelled(tree: &str, prefix: &str) -> Vec<String> {
    let mut head = String::new();
    let mut rest = tree;
    loop {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            break;
        }
        rest = &rest[name.len()..];
        if name != "self" {
            head.push_str(&name);
        }
        match rest.strip_prefix("::") {
            Some(after) => {
                if name != "self" {
                    head.push_str("::");
                }
                rest = after;
            }
            None => break,
        }
    }
    let whole = format!("{prefix}{head}");
    match rest.strip_prefix('{') {
        Some(group) => top_level_items(group)
            .into_iter()
            .flat_map(|item| spelled(item.trim_start(), &whole))
            .chain([whole.trim_end_matches("::").to_string()])
            .collect(),
        None => vec![whole.trim_end_matches("::").to_string()],
    }
}

/// The file modules each file names (the longest known module at the head of each path).
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let texts: BTreeMap<String, String> = modules(src)
        .into_iter()
        .map(|(module, file)| (module, std::fs::read_to_string(file).unwrap()))
        .collect();
    graph_of(&texts)
}

/// The graph of `texts` (each file's module path and its source).
fn graph_of(texts: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let known = texts;
    let mut graph = BTreeMap::new();
    for (module, source) in known {
        let text = code(source);
        let mut named = BTreeSet::new();
        for path in named_paths(&text, module) {
            let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
            let found = (1..=segments.len())
                .rev()
                .map(|n| segments[..n].join("::"))
                .find(|p| known.contains_key(p));
            if let Some(found) = found
                && &found != module
            {
                named.insert(found);
            }
        }
        graph.insert(module.clone(), named);
    }
    graph
}

/// The area of a module of `floor` (`domain::play::games` → `play`), `None` for the floor's own
/// files (`domain::access`) and for modules of other floors.
fn area_of<'a>(module: &'a str, floor: &str) -> Option<&'a str> {
    let mut parts = module.split("::");
    if parts.next() != Some(floor) {
        return None;
    }
    parts.next().filter(|a| AREAS.contains(a))
}

#[test]
fn the_areas_name_only_the_areas_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    for floor in ["domain", "storage"] {
        for area in AREAS {
            assert!(
                graph.contains_key(&format!("{floor}::{area}")),
                "{floor} has no area `{area}` (src/{floor}/{area}/mod.rs)"
            );
        }
    }
    let wrong = against_the_areas(&graph);
    assert!(
        wrong.is_empty(),
        "imports against the areas' order:\n{}",
        wrong.join("\n")
    );
}

/// Every import of `graph` against the areas' order, in words.
fn against_the_areas(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut wrong = Vec::new();
    for floor in ["domain", "storage"] {
        for (module, named) in graph {
            if !module.starts_with(&format!("{floor}::")) && module != floor {
                continue;
            }
            let mine = area_of(module, floor);
            for other in named {
                let Some(theirs) = area_of(other, floor) else {
                    continue;
                };
                let rank = |a: &str| AREAS.iter().position(|x| *x == a).unwrap();
                match mine {
                    None => wrong.push(format!(
                        "`{module}` is shared by every area of {floor} but names `{other}` of `{theirs}`"
                    )),
                    Some(mine) if rank(theirs) > rank(mine) => wrong.push(format!(
                        "`{module}` ({mine}) names `{other}` of `{theirs}`, an area above it"
                    )),
                    _ => {}
                }
            }
        }
    }
    wrong
}

/// The circle `graph` holds, if any: the modules in order, the first one again at the end.
fn a_circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
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
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_files_name_each_other_in_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    assert!(
        graph["domain::play::open::disputes"].contains("domain::play::games")
            && graph["storage::play::games"].contains("storage::seasons::totals"),
        "the checker reads the uses"
    );
    if let Some(circle) = a_circle(&graph) {
        panic!("files in a circle: {}", circle.join(" → "));
    }
}

#[test]
fn the_checker_finds_a_circle_and_reads_super() {
    let paths = named_paths("use super::{games, x::{y, z}};", "domain::play::matches");
    assert!(
        paths.contains(&"domain::play::games".to_string()),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"domain::play::x::z".to_string()),
        "{paths:?}"
    );
    let paths = named_paths("super::super::Error", "domain::play");
    assert_eq!(paths, vec!["Error".to_string()]);
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(a_circle(&graph).unwrap().len(), 4);
}

#[test]
fn no_folder_holds_more_than_twenty_files() {
    fn check(dir: &Path, wrong: &mut Vec<String>) {
        let mut files = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                check(&path, wrong);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
            }
        }
        if files > MOST_FILES {
            wrong.push(format!("{} holds {files} files", dir.display()));
        }
    }
    let mut wrong = Vec::new();
    check(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut wrong,
    );
    assert!(
        wrong.is_empty(),
        "folders over {MOST_FILES} files (split them into areas):\n{}",
        wrong.join("\n")
    );
}

/// Functions and methods longer than `MOST_LINES`, as `file:line name (n lines)`.
struct LongFunctions<'a> {
    file: &'a Path,
    found: Vec<String>,
}

impl LongFunctions<'_> {
    fn check(&mut self, name: &syn::Ident, whole: proc_macro2::Span) {
        let lines = whole.end().line - whole.start().line + 1;
        if lines > MOST_LINES {
            self.found.push(format!(
                "{}:{} {name} ({lines} lines)",
                self.file.display(),
                whole.start().line
            ));
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for LongFunctions<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.check(&f.sig.ident, syn::spanned::Spanned::span(f));
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.check(&f.sig.ident, syn::spanned::Spanned::span(f));
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        self.check(&f.sig.ident, syn::spanned::Spanned::span(f));
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// The functions of one file over `MOST_LINES`.
fn long_functions(file: &Path, text: &str) -> Vec<String> {
    let parsed = syn::parse_file(text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut long = LongFunctions {
        file,
        found: Vec::new(),
    };
    syn::visit::Visit::visit_file(&mut long, &parsed);
    long.found
}

#[test]
fn no_function_is_longer_than_a_screen() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        wrong.extend(long_functions(
            file,
            &std::fs::read_to_string(file).unwrap(),
        ));
    }
    assert!(
        wrong.is_empty(),
        "functions over {MOST_LINES} lines (make their steps named functions):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_checker_measures_functions_and_methods_from_first_line_to_last() {
    let body = |n: usize| "    let _ = \"{ not a brace }\";\n".repeat(n);
    // 2 lines of signature and brace + n lines.
    let text = format!(
        "fn fits() {{\n{}}}\nstruct S;\nimpl S {{\n    fn too_long(&self) {{\n{}    }}\n}}\n",
        body(MOST_LINES - 2),
        body(MOST_LINES - 1)
    );
    let found = long_functions(Path::new("x.rs"), &text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("too_long (121 lines)"), "{found:?}");
}

/// The checker reads a whole file: an upward import or a circle placed after a test module is
/// found, and what the test module itself names is not counted.
#[test]
fn the_checker_reads_past_a_test_module() {
    let text = "use crate::storage::a;\n#[cfg(test)]\nmod tests {\n    use crate::pages::p;\n}\n\
                #[cfg(test)]\nfn helper() {\n    crate::cli::h();\n}\n\
                fn later() {\n    crate::api::b();\n}\n";
    assert_eq!(
        named_modules(&code(text)).into_iter().collect::<Vec<_>>(),
        vec!["api", "storage"]
    );
    let texts = |files: &[(&str, &str)]| -> BTreeMap<String, String> {
        files
            .iter()
            .map(|(m, t)| (m.to_string(), t.to_string()))
            .collect()
    };
    let after_tests = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    // A circle closed after a test module.
    let graph = graph_of(&texts(&[
        (
            "domain::people::players",
            &format!("{after_tests}fn f() {{ crate::domain::people::roster::g(); }}\n"),
        ),
        (
            "domain::people::roster",
            "use crate::domain::people::players;\n",
        ),
    ]));
    assert_eq!(
        a_circle(&graph).map(|c| c.len()),
        Some(3),
        "the circle after a test module: {graph:?}"
    );
    // An area naming one above it, after a test module.
    let graph = graph_of(&texts(&[
        (
            "domain::people::players",
            &format!("{after_tests}use crate::domain::play::games;\n"),
        ),
        ("domain::play::games", ""),
    ]));
    let wrong = against_the_areas(&graph);
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(wrong[0].contains("an area above it"), "{wrong:?}");
}

/// The most lines a file in `src/` may hold, leaving out its `#[cfg(test)]` items: a reader
/// looking for one step should not have to scroll through a thousand lines of others.
const MOST_FILE_LINES: usize = 1000;

/// How many lines of a file are not in a `#[cfg(test)]` item.
fn lines_besides_tests(text: &str) -> usize {
    let parsed = syn::parse_file(text).unwrap_or_else(|e| panic!("a file that parses: {e}"));
    let mut tests = TestItems { lines: Vec::new() };
    syn::visit::Visit::visit_file(&mut tests, &parsed);
    let in_tests: usize = tests.lines.iter().map(|(a, b)| b - a + 1).sum();
    text.lines().count() - in_tests
}

/// The files over `MOST_FILE_LINES`, with how many lines they hold besides their tests.
fn long_files(files: &[(PathBuf, String)]) -> Vec<String> {
    files
        .iter()
        .filter_map(|(file, text)| {
            let n = lines_besides_tests(text);
            (n > MOST_FILE_LINES)
                .then(|| format!("{} ({n} lines besides its tests)", file.display()))
        })
        .collect()
}

#[test]
fn no_file_runs_past_a_thousand_lines_besides_its_tests() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|f| {
            let t = std::fs::read_to_string(&f).unwrap();
            (f, t)
        })
        .collect();
    let wrong = long_files(&texts);
    assert!(
        wrong.is_empty(),
        "files over {MOST_FILE_LINES} lines (split them by what they own):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_checker_refuses_a_file_of_a_thousand_and_one_lines_and_leaves_out_its_tests() {
    let line = "const _: u8 = 0;\n";
    let tests = format!("#[cfg(test)]\nmod tests {{\n{}}}\n", line.repeat(500));
    let files = vec![
        (
            PathBuf::from("fits.rs"),
            format!("{}{tests}", line.repeat(1000)),
        ),
        (PathBuf::from("too_long.rs"), line.repeat(1001)),
        (
            PathBuf::from("tests_between.rs"),
            format!("{}{tests}{}", line.repeat(600), line.repeat(401)),
        ),
    ];
    let wrong = long_files(&files);
    assert_eq!(
        wrong,
        [
            "too_long.rs (1001 lines besides its tests)",
            "tests_between.rs (1001 lines besides its tests)"
        ]
    );
}
