//! The architecture's invariants (ARCHITECTURE.md), checked on the source itself.
//!
//! - Layers: a top-level module of `src/` imports only modules of lower tiers; modules of
//!   one tier (siblings) never import each other. Imports are the `crate::NAME` paths of
//!   code (comments, doc comments and unit-test code are left out: a test may reach any
//!   layer, the program does not).
//! - `unsafe` appears only in `src/native/jit.rs`.
//! - No source file holds over 600 lines of code (docs, comments and blank lines are not
//!   counted, so that no doc is shortened to fit).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The tiers, lowest first; a module may import only modules of lower tiers. Kept in step
/// with the table in ARCHITECTURE.md.
const TIERS: &[&[&str]] = &[
    // base
    &["ids"],
    &["signal", "rng", "ir", "state"],
    &["error"],
    &["diagnostic", "output"],
    // what a game is at run time, shared by both backends
    &["runtime"],
    // the program
    &["expr"],
    &["model", "overrides"],
    // the front end, the two backends, and the counts a run keeps (which none of them reads)
    &["scenario", "engine", "native", "stats"],
    // runs and what they produce
    &["runner"],
    &["report", "compare"],
    &["check", "tune", "sweep", "watch", "exploit", "ladder"],
    &["cli"],
];

/// The tier of a top-level module, or `None` for the crate root files (`lib.rs`, `main.rs`).
fn tier(module: &str) -> Option<usize> {
    TIERS.iter().position(|t| t.contains(&module))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The top-level module a file of `src` belongs to (`engine` for `src/engine/round.rs`).
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

/// The code of a file without comments and without its `#[cfg(test)]` items (a test
/// module's braces are matched to find its end).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut skip_depth: Option<usize> = None;
    let mut depth = 0usize;
    let mut pending_test = false;
    for line in text.lines() {
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let trimmed = line.trim();
        if skip_depth.is_none() && trimmed.starts_with("#[cfg(test)]") {
            pending_test = true;
            continue;
        }
        if pending_test && skip_depth.is_none() && !trimmed.is_empty() {
            skip_depth = Some(depth);
            pending_test = false;
        }
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if let Some(d) = skip_depth {
            // A test item ends where the depth returns to where it started (a `mod x;`
            // declaration ends on its own line).
            if depth == d && (line.contains('}') || trimmed.ends_with(';')) {
                skip_depth = None;
            }
            continue;
        }
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The top-level modules `code` names through `crate::` (`crate::a::x`, `crate::{a, b}`).
fn imports(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Each item of a group starts a path; nested groups belong to its first name.
            let end = group.find('}').unwrap_or(group.len());
            let mut level = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => level += 1,
                    '}' if level == 0 => break,
                    '}' => level -= 1,
                    ',' if level == 0 => {
                        push_head(&item, &mut out);
                        item.clear();
                    }
                    _ => item.push(c),
                }
            }
            push_head(&item, &mut out);
            rest = &group[end..];
        } else {
            push_head(rest, &mut out);
        }
    }
    out
}

/// Adds the first path segment of `path` (a lowercase module name) to `out`.
fn push_head(path: &str, out: &mut BTreeSet<String>) {
    let head: String = path
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
        .collect();
    if !head.is_empty() {
        out.insert(head);
    }
}

/// Every import of a source tree that breaks the tiers, as `file: module -> module (why)`.
fn layer_breaks(src: &Path) -> Vec<String> {
    let mut breaks = Vec::new();
    for file in rust_files(src) {
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let from = module_of(src, &file);
        let Some(from_tier) = tier(&from) else {
            continue;
        };
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        for to in imports(&code) {
            if to == from {
                continue;
            }
            let why = match tier(&to) {
                None => "a module the architecture does not place",
                Some(t) if t == from_tier => "siblings never import each other",
                Some(t) if t > from_tier => "an import up the layers",
                Some(_) => continue,
            };
            let rel = file.strip_prefix(src).unwrap().display();
            breaks.push(format!("src/{rel}: {from} -> {to} ({why})"));
        }
    }
    breaks
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_import_runs_down_the_layers() {
    let breaks = layer_breaks(&root().join("src"));
    assert!(
        breaks.is_empty(),
        "imports against the layer order (see ARCHITECTURE.md):\n{}",
        breaks.join("\n")
    );
}

#[test]
fn every_module_has_a_tier() {
    let src = root().join("src");
    let mut unplaced = BTreeSet::new();
    for file in rust_files(&src) {
        let m = module_of(&src, &file);
        if tier(&m).is_none() && m != "lib" && m != "main" {
            unplaced.insert(m);
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules missing from the tiers of ARCHITECTURE.md and tests/it/architecture.rs: {unplaced:?}"
    );
}

/// The checker itself finds an import up the layers, a sibling's import and a grouped
/// import, and leaves comments and test modules alone.
#[test]
fn a_broken_layer_is_found() {
    let dir = crate::util::fresh_temp_dir("architecture");
    std::fs::create_dir_all(dir.join("expr")).unwrap();
    let write = |rel: &str, text: &str| std::fs::write(dir.join(rel), text).unwrap();
    write(
        "expr.rs",
        "//! [`crate::engine`] in a doc is no import.\nuse crate::state::State;\n",
    );
    write("expr/env.rs", "use crate::{ir::Op, native::Formula};\n");
    write("engine.rs", "fn f() { crate::native::prepare(); }\n");
    write(
        "runtime.rs",
        "use crate::ir::Op;\n#[cfg(test)]\nmod tests {\n    use crate::engine::Game;\n}\nuse crate::rng::Rng;\n",
    );
    let breaks = layer_breaks(&dir);
    assert_eq!(
        breaks,
        [
            "src/engine.rs: engine -> native (siblings never import each other)",
            "src/expr/env.rs: expr -> native (an import up the layers)",
        ],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unsafe_code_lives_only_in_the_jit() {
    let src = root().join("src");
    let allowed = src.join("native").join("jit.rs");
    for file in rust_files(&src) {
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        let uses = code.contains("unsafe ") || code.contains("unsafe_code");
        assert!(
            !uses || file == allowed,
            "{}: `unsafe` outside src/native/jit.rs",
            file.display()
        );
    }
}

#[test]
fn no_source_file_holds_over_600_lines_of_code() {
    let mut long = Vec::new();
    for dir in ["src", "tests", "benches"] {
        for file in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            let n = code_lines(&text);
            if n > 600 {
                long.push(format!("{} ({n} lines of code)", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "files over 600 lines of code: {long:?}");
}

/// The lines of `text` that are neither blank nor only a comment (`//`, `///`, `//!`).
fn code_lines(text: &str) -> usize {
    (text.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

#[test]
fn comments_and_blank_lines_are_not_code() {
    assert_eq!(
        code_lines("//! a file\n\n/// a doc\nfn f() {\n    // why\n    g();\n}\n"),
        3
    );
}
