//! Bounded evaluation: what keeps a hostile or runaway Jsonnet file from aborting kf or
//! eating the machine, so that it ends with an error naming the component instead.
//!
//! - Source nesting: parsing recurses once per level; a file nested deeper than
//!   [`MAX_NESTING`] is refused before it is parsed (the binary runs on a thread whose
//!   stack holds that depth with a wide margin).
//! - Sizes: `std.makeArray` and `std.repeat` refuse results longer than
//!   [`MAX_ARRAY_ITEMS`] items or [`MAX_STRING_BYTES`] bytes before allocating them
//!   ([`super::stdlib`]); jrsonnet would allocate first and abort when that fails.
//! - Memory and time: [`super::memory`] caps the process's heap, [`super::watchdog`] the
//!   wall-clock time of one evaluation.

/// The deepest source nesting kf parses (brackets, plus `local`, `if`, `function` and
/// `assert` chains). Real Jsonnet stays below 100; ksonnet-lib below 20.
pub const MAX_NESTING: usize = 2_000;
/// The longest array kf builds or manifests.
pub const MAX_ARRAY_ITEMS: usize = 1_000_000;
/// The longest string `std.repeat` builds (Kubernetes keeps objects below 1.5 MB).
pub const MAX_STRING_BYTES: usize = 256 * 1024 * 1024;

/// Why a source is refused before parsing. Bytes, not text: the resolver checks every
/// file it loads, `importstr` data included, before knowing whether it is UTF-8.
pub fn check_nesting(text: &[u8]) -> std::result::Result<(), TooDeep> {
    let (depth, line) = max_nesting(text);
    if depth > MAX_NESTING {
        return Err(TooDeep { line, depth });
    }
    Ok(())
}

/// A source nested deeper than kf parses.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "line {line}: nested {depth} levels deep; kf parses at most {MAX_NESTING} levels (brackets, `local`, `if` and `function` chains); flatten it or split it into files"
)]
pub struct TooDeep {
    pub line: usize,
    pub depth: usize,
}

/// Where `end` (one of a comment's, string's or text block's closing bytes) or a newline
/// next occurs in `b` from `i`: its index, or `b.len()`. Strings and comments are skipped
/// with memchr, not byte by byte: the CRD files operators `importstr` are megabytes of
/// JSON, mostly strings.
fn next_of(b: &[u8], i: usize, end: u8) -> usize {
    memchr::memchr2(end, b'\n', &b[i.min(b.len())..]).map_or(b.len(), |k| i + k)
}

/// What [`max_nesting`] does with a byte outside strings and comments.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Space, tab, carriage return, form feed: nothing.
    Blank,
    Newline,
    /// Anything else that is no bracket and starts no word, string or comment.
    Other,
    Open,
    Close,
    /// A letter or `_`: an identifier or keyword starts.
    Word,
    /// `/`, `#`, `|`, `"`, `'`: maybe a comment, text block or string.
    Special,
}

/// [`Class`] of every byte, so that the common bytes take one table look-up.
const CLASSES: [Class; 256] = {
    let mut t = [Class::Other; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = match b {
            b' ' | b'\t' | b'\r' | 0x0C => Class::Blank,
            b'\n' => Class::Newline,
            b'(' | b'[' | b'{' => Class::Open,
            b')' | b']' | b'}' => Class::Close,
            b'/' | b'#' | b'|' | b'"' | b'\'' => Class::Special,
            _ if b.is_ascii_alphabetic() || b == b'_' => Class::Word,
            _ => Class::Other,
        };
        c += 1;
    }
    t
};

/// The deepest nesting and the line where it is reached, skipping strings and comments.
/// An expression `local`/`if`/`function`/`assert` nests until its enclosing bracket
/// closes; an object's `local` (after `{` or `,`) is a field and does not.
fn max_nesting(b: &[u8]) -> (usize, usize) {
    // Per open bracket: how many nesting keywords are open inside it.
    let mut frames: Vec<usize> = vec![0];
    let mut depth = 0usize;
    let (mut max, mut max_line, mut line) = (0usize, 1usize, 1usize);
    let mut last_sig = b';';
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match CLASSES[usize::from(c)] {
            Class::Blank => {}
            Class::Newline => line += 1,
            Class::Other => last_sig = c,
            Class::Open => {
                frames.push(0);
                depth += 1;
                last_sig = c;
                if depth > max {
                    max = depth;
                    max_line = line;
                }
            }
            Class::Close => {
                if frames.len() > 1 {
                    let inner = frames.pop().unwrap_or(0);
                    depth = depth.saturating_sub(inner + 1);
                }
                last_sig = c;
            }
            Class::Word => {
                let start = i;
                i += b[i..]
                    .iter()
                    .position(|&c| !c.is_ascii_digit() && CLASSES[usize::from(c)] != Class::Word)
                    .unwrap_or(b.len() - i);
                let nests = match &b[start..i] {
                    b"local" => last_sig != b'{' && last_sig != b',',
                    b"if" | b"function" | b"assert" => true,
                    _ => false,
                };
                if nests {
                    if let Some(top) = frames.last_mut() {
                        *top += 1;
                    }
                    depth += 1;
                    if depth > max {
                        max = depth;
                        max_line = line;
                    }
                }
                last_sig = b'a';
                continue;
            }
            Class::Special => match skip_special(b, i, &mut line) {
                Some((next, sig)) => {
                    if let Some(sig) = sig {
                        last_sig = sig;
                    }
                    i = next;
                    continue;
                }
                None => last_sig = c,
            },
        }
        i += 1;
    }
    (max, max_line)
}

/// Where `close` (a comment's or text block's end) next starts in `b` from `i`, or
/// `b.len()`; the newlines before it are counted into `line`.
fn closing(b: &[u8], mut i: usize, close: &[u8], line: &mut usize) -> usize {
    loop {
        i = next_of(b, i, close[0]);
        match b.get(i) {
            None => return i,
            Some(b'\n') => *line += 1,
            Some(_) if b[i..].starts_with(close) => return i,
            Some(_) => {}
        }
        i += 1;
    }
}

/// At `b[i]`, one of [`Class::Special`]'s bytes: where the comment, text block or string
/// it starts ends (counting its newlines into `line`), and the `last_sig` it leaves
/// (strings and text blocks count as a value); `None` for a lone `/` or `|`.
fn skip_special(b: &[u8], mut i: usize, line: &mut usize) -> Option<(usize, Option<u8>)> {
    let c = b[i];
    match c {
        b'#' | b'/' if c == b'#' || b.get(i + 1) == Some(&b'/') => Some((
            memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k),
            None,
        )),
        b'/' if b.get(i + 1) == Some(&b'*') => Some((closing(b, i + 2, b"*/", line) + 2, None)),
        b'|' if b[i..].starts_with(b"|||") => {
            Some((closing(b, i + 3, b"|||", line) + 3, Some(b'"')))
        }
        b'"' | b'\'' => {
            let verbatim = i > 0 && b[i - 1] == b'@';
            i += 1;
            loop {
                i = memchr::memchr3(c, b'\\', b'\n', &b[i.min(b.len())..])
                    .map_or(b.len(), |k| i + k);
                match b.get(i) {
                    None => break,
                    Some(b'\n') => *line += 1,
                    Some(b'\\') if !verbatim => {
                        i += 1;
                        *line += usize::from(b.get(i) == Some(&b'\n'));
                    }
                    Some(b'\\') => {}
                    Some(_) => break,
                }
                i += 1;
            }
            Some((i + 1, Some(b'"')))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_brackets_and_expression_chains_not_strings_or_object_locals() {
        assert_eq!(max_nesting(b"{ a: [1, 2], b: { c: (3) } }").0, 3);
        assert_eq!(max_nesting(b"local a = 1; local b = 2; { x: a + b }").0, 3);
        assert_eq!(max_nesting(b"{ local a = 1, local b = 2, x: a }").0, 1);
        assert_eq!(max_nesting(b"'[[[[' + \"{{{{\" + ||| ((((\n|||").0, 0);
        assert_eq!(max_nesting(b"// [[[[\n# {{{{\n/* (((( */ 1").0, 0);
        assert_eq!(max_nesting(br#""\"[[[" @"\" [ '\'{{' ["#).0, 2);
        let deep = format!("{}{}", "[".repeat(3000), "]".repeat(3000));
        assert_eq!(
            check_nesting(deep.as_bytes()),
            Err(TooDeep {
                line: 1,
                depth: 3000
            })
        );
        assert!(
            check_nesting(deep.as_bytes())
                .unwrap_err()
                .to_string()
                .contains("3000 levels")
        );
        let ifs = "if true then ".repeat(3000) + "1" + &" else 0".repeat(3000);
        assert!(check_nesting(ifs.as_bytes()).is_err());
    }

    #[test]
    fn nesting_names_the_line_past_multiline_strings_comments_and_text_blocks() {
        let source = b"\"a\nb\" 'c\\\nd'\n/* x\n */ # y\n|||\n  z\n|||\n[[";
        assert_eq!(max_nesting(source), (2, 9));
    }

    #[test]
    fn the_generated_ksonnet_lib_is_well_within_the_nesting_limit() {
        let files =
            crate::ksonnetlib::lib_files(crate::ksonnetlib::DEFAULT_SPEC.as_bytes()).unwrap();
        assert!(files.iter().any(|(n, _)| *n == "k8s.libsonnet"));
        for (name, bytes) in files {
            if name.ends_with("sonnet") {
                let (depth, line) = max_nesting(&bytes);
                assert!(depth < MAX_NESTING / 4, "{name}:{line}: {depth}");
            }
        }
    }

    #[test]
    fn every_embedded_source_is_within_the_nesting_limit() {
        let mut checked = 0;
        for (path, text) in crate::embedded::files_under("") {
            if path.ends_with("sonnet") {
                let (depth, line) = max_nesting(text.as_bytes());
                assert!(depth < MAX_NESTING / 4, "{path}:{line}: {depth}");
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} embedded sources");
    }
}
