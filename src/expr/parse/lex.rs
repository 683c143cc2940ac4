//! The lexer: formula text to tokens with their byte offsets.
//!
//! Owns what a number is (a whole number without a point is an exact 64-bit integer; one with
//! a point is a real), dice (`2d6`, `d20`), identifiers and operator symbols.

use super::{PResult, ParseError, err};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Num(f64),
    Int(i64),
    Dice(u32, u32),
    Ident(String),
    Sym(&'static str),
    Eof,
}

const SYMBOLS: [&str; 23] = [
    "//", "==", "!=", "<=", ">=", "+=", "-=", "+", "-", "*", "/", "%", "(", ")", ",", ".", "[",
    "]", "<", ">", "{", "}", ";",
];

pub(super) fn lex(src: &str) -> PResult<Vec<(Tok, usize)>> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.' || b[i] == b'_') {
                i += 1;
            }
            let text: String = src[start..i].chars().filter(|&c| c != '_').collect();
            // `1e-5`: the language has no exponents; say how to write the number instead.
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
                    j += 1;
                }
                if b.get(j).is_some_and(u8::is_ascii_digit) {
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    let whole = format!("{text}{}", &src[i..j]);
                    if let Ok(v) = whole.parse::<f64>() {
                        return Err(ParseError {
                            pos: start,
                            msg: format!(
                                "numbers are written without an exponent: write `{whole}` as {v}{}",
                                if v.fract() == 0.0 { ".0" } else { "" }
                            ),
                        });
                    }
                }
            }
            // A whole number without a point is an integer, kept exactly.
            let dice = i < b.len() && b[i] == b'd' && b.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !text.contains('.') && !dice {
                let v: i64 = text.parse().map_err(|_| ParseError {
                    pos: start,
                    msg: format!(
                        "`{text}` does not fit in a 64-bit integer (the largest is {})",
                        i64::MAX
                    ),
                })?;
                out.push((Tok::Int(v), start));
                continue;
            }
            // `2d6`: a count followed by `d` and a number of sides.
            if i + 1 < b.len() && b[i] == b'd' && b[i + 1].is_ascii_digit() {
                let n: u32 = text.parse().map_err(|_| ParseError {
                    pos: start,
                    msg: "dice count must be a whole number".into(),
                })?;
                i += 1;
                let s0 = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let s: u32 = src[s0..i].parse().map_err(|_| ParseError {
                    pos: s0,
                    msg: "bad number of sides".into(),
                })?;
                out.push((Tok::Dice(n, s), start));
                continue;
            }
            let v: f64 = text.parse().map_err(|_| ParseError {
                pos: start,
                msg: format!("`{text}` is not a number"),
            })?;
            out.push((Tok::Num(v), start));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[start..i];
            // `d6`, `d20`: one die.
            if word.len() > 1
                && word.starts_with('d')
                && word[1..].bytes().all(|c| c.is_ascii_digit())
            {
                let s: u32 = word[1..].parse().map_err(|_| ParseError {
                    pos: start,
                    msg: "bad die".into(),
                })?;
                out.push((Tok::Dice(1, s), start));
            } else {
                out.push((Tok::Ident(word.to_string()), start));
            }
            continue;
        }
        if c == b':' {
            out.push((Tok::Sym(":"), start));
            i += 1;
            continue;
        }
        if c == b'=' && b.get(i + 1) != Some(&b'=') {
            out.push((Tok::Sym("="), start));
            i += 1;
            continue;
        }
        match SYMBOLS.iter().find(|s| src[i..].starts_with(**s)) {
            Some(s) => {
                out.push((Tok::Sym(s), start));
                i += s.len();
            }
            None => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return err(start, format!("unexpected character `{ch}`"));
            }
        }
    }
    out.push((Tok::Eof, src.len()));
    Ok(out)
}
