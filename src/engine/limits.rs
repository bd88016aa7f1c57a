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
//! - Depth no source shows: a stack that runs out anyway ends with an error
//!   ([`super::overflow`]).

/// The deepest syntax tree kf parses (brackets, operator chains, and `local`, `if`,
/// `function`, `assert` and `error` chains: see `max_depth`). Real Jsonnet stays below
/// 100; ksonnet-lib below 20.
pub const MAX_NESTING: usize = 2_000;
/// The longest array kf builds or manifests.
pub const MAX_ARRAY_ITEMS: usize = 1_000_000;
/// The longest string `std.repeat` builds (Kubernetes keeps objects below 1.5 MB).
pub const MAX_STRING_BYTES: usize = 256 * 1024 * 1024;

/// Why a source is refused before parsing. Bytes, not text: the resolver checks every
/// file it loads, `importstr` data included, before knowing whether it is UTF-8 (a file
/// that is not is never parsed, so it has no depth).
pub fn check_nesting(text: &[u8]) -> std::result::Result<(), TooDeep> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Ok(());
    };
    let (depth, at, crowded) = max_depth(text, MAX_NESTING);
    if depth <= MAX_NESTING && !crowded {
        return Ok(());
    }
    Err(TooDeep {
        line: super::lexer::line_of(text, at),
        names: crowded,
    })
}

/// A source nested deeper than kf parses, or binding more names in one place.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", if *names {
    format!("more than {MAX_NAMES} names bound in one place (the parameters of one function, the bindings of one `local`, the locals of one object); jrsonnet holds at most 65,535: split them into objects or files")
} else {
    format!("nested more than {MAX_NESTING} levels deep (brackets, operator chains such as `a + b + …`, `local`, `if` and `function` chains); kf parses at most {MAX_NESTING}: flatten it or split it into files")
})]
pub struct TooDeep {
    /// Where the text first gets too deep or too crowded.
    pub line: usize,
    /// Too many names in one place, not too deep.
    pub names: bool,
}

/// The most names one function, `local` or object may bind: jrsonnet numbers each
/// closure's locals with 16 bits, and panics past 65,535.
pub const MAX_NAMES: usize = 65_000;

/// An open bracket (or the file) while [`max_depth`] reads it.
struct Frame {
    /// Opened by `{`: a `local` or `assert` right after `{` or `,` is a member.
    object: bool,
    /// Opened by `(`: its commas separate parameters (or arguments).
    paren: bool,
    /// Names bound here: `local`s, a `local`'s or a function's comma-separated names, and
    /// `for`s (an upper bound: arguments count too).
    names: usize,
    /// Nodes nested inside each other here, since the bracket or the last `,`.
    count: usize,
    /// How many `,` bases there were when the bracket opened.
    bases: usize,
}

/// How deep the syntax tree of `text` can be, and the offset where it first gets that
/// deep; the reading stops as soon as it is deeper than `stop_above`, or where one place
/// binds more than [`MAX_NAMES`] names (then `true`, and that offset).
///
/// The text is read with the engine's own lexer: what it takes for a comment or a string
/// is exactly what the parser skips (a reader of kf's own ended a `//` comment only at a
/// newline, and so missed the code after a lone carriage return). Every token that makes
/// a node holding the one before or after it adds a level until its expression ends: a
/// bracket, a prefix or binary operator, `.`, and `local`, `if`, `function`, `assert`,
/// `error`, `import`, `for`, `in` and `tailstrict`. A `,` ends an array item, a field or
/// an argument, siblings, so the level goes back to where the bracket opened, or to an
/// expression `local`'s (its bindings are siblings under it), and so does the `;` that
/// ends the bindings (the body is the `local`'s child too). So the count is never less
/// than the depth the parser, the evaluator and the tree's drop recurse to. A lexing
/// error ends the reading: the parser stops there.
fn max_depth(text: &str, stop_above: usize) -> (usize, usize, bool) {
    use jrsonnet_lexer::SyntaxKind as K;
    let mut frames = vec![Frame {
        object: false,
        paren: false,
        names: 0,
        count: 0,
        bases: 0,
    }];
    let mut bases: Vec<usize> = Vec::new();
    // The depth of the frames below the top one (each counts its bracket).
    let mut below = 0usize;
    let (mut max, mut max_at) = (0usize, 0usize);
    let mut last = K::SEMI;
    for lexeme in jrsonnet_lexer::Lexer::new(text) {
        let kind = lexeme.kind;
        let nested = frames.len() > 1;
        let Some(top) = frames.last_mut() else {
            break;
        };
        let names = match kind {
            K::LOCAL_KW | K::FOR_KW => 1,
            K::COMMA => usize::from(top.paren || bases.len() > top.bases),
            _ => 0,
        };
        top.names += names;
        if top.names > MAX_NAMES {
            return (max, lexeme.range.0 as usize, true);
        }
        match kind {
            K::WHITESPACE
            | K::SINGLE_LINE_SLASH_COMMENT
            | K::SINGLE_LINE_HASH_COMMENT
            | K::MULTI_LINE_COMMENT => continue,
            K::L_BRACE | K::L_BRACK | K::L_PAREN => {
                top.count += 1;
                below += top.count;
                frames.push(Frame {
                    object: kind == K::L_BRACE,
                    paren: kind == K::L_PAREN,
                    names: 0,
                    count: 0,
                    bases: bases.len(),
                });
            }
            K::R_BRACE | K::R_BRACK | K::R_PAREN if nested => {
                let opened_with = frames.pop().map_or(0, |f| f.bases);
                bases.truncate(opened_with);
                below -= frames.last().map_or(0, |f| f.count);
            }
            K::COMMA => top.count = bases[top.bases..].last().copied().unwrap_or(0),
            K::SEMI if bases.len() > top.bases => {
                top.count = bases.pop().unwrap_or(top.count);
            }
            K::LOCAL_KW | K::ASSERT_KW if top.object && matches!(last, K::L_BRACE | K::COMMA) => {}
            K::LOCAL_KW | K::ASSERT_KW => {
                top.count += 1;
                bases.push(top.count);
            }
            K::IF_KW
            | K::FUNCTION_KW
            | K::ERROR_KW
            | K::IMPORT_KW
            | K::IMPORTSTR_KW
            | K::IMPORTBIN_KW
            | K::FOR_KW
            | K::IN_KW
            | K::TAILSTRICT_KW
            | K::OR
            | K::NULL_COAELSE
            | K::AND
            | K::BIT_OR
            | K::BIT_XOR
            | K::BIT_AND
            | K::EQ
            | K::NE
            | K::LT
            | K::GT
            | K::LE
            | K::GE
            | K::LHS
            | K::RHS
            | K::PLUS
            | K::MINUS
            | K::MUL
            | K::DIV
            | K::MODULO
            | K::NOT
            | K::BIT_NOT
            | K::DOT => top.count += 1,
            _ if kind == K::LEXING_ERROR || kind.error_description().is_some() => break,
            _ => {}
        }
        last = kind;
        let depth = below + frames.last().map_or(0, |f| f.count);
        if depth > max {
            (max, max_at) = (depth, lexeme.range.0 as usize);
            if max > stop_above {
                break;
            }
        }
    }
    (max, max_at, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::lexer::line_of;

    /// The depth of `text` and the line where it is reached.
    fn depth(text: &str) -> (usize, usize) {
        let (depth, at, _) = max_depth(text, usize::MAX);
        (depth, line_of(text, at))
    }

    #[test]
    fn depth_counts_brackets_and_chains_not_strings_comments_or_object_locals() {
        assert_eq!(depth("{ a: [1, 2], b: { c: (3) } }").0, 3);
        assert_eq!(depth("local a = 1; local b = 2; { x: a + b }").0, 4);
        assert_eq!(depth("{ local a = 1, local b = 2, x: a }").0, 1);
        assert_eq!(depth("'[[[[' + \"{{{{\" + |||\n  ((((\n|||").0, 2);
        assert_eq!(depth("// [[[[\n# {{{{\n/* (((( */ 1").0, 0);
        assert_eq!(depth(r#""\"[[[" @"\" [ '\'{{' ["#).0, 2);
        // Siblings do not add up; a chain does, whatever its operators.
        assert_eq!(depth("[1 + 1, 2 + 2, 3 + 3]").0, 2);
        assert_eq!(depth("1 + 2 * 3 - 4 == 5 && !true").0, 6);
        assert_eq!(depth("a.b.c[0](1) tailstrict").0, 5);
        // An expression local's bindings are siblings under it; its body is inside it.
        assert_eq!(depth("local a = 1 + 1, b = 2 + 2; a + b").0, 2);
        assert_eq!(depth("local a = 1, b = 2; local c = 3, d = 4; c").0, 2);
        assert_eq!(depth("[1, local a = 1; a, 2]").0, 2);
        let deep = format!("{}{}", "[".repeat(3000), "]".repeat(3000));
        assert_eq!(
            check_nesting(deep.as_bytes()),
            Err(TooDeep {
                line: 1,
                names: false
            })
        );
        assert!(
            check_nesting(deep.as_bytes())
                .unwrap_err()
                .to_string()
                .contains("more than 2000 levels")
        );
        let ifs = "if true then ".repeat(3000) + "1" + &" else 0".repeat(3000);
        assert!(check_nesting(ifs.as_bytes()).is_err());
    }

    /// Shapes whose nodes nest without brackets, and code a reader of kf's own took for a
    /// comment or a string: each is as deep as the engine parses it.
    #[test]
    fn every_chain_counts_and_nothing_the_engine_parses_is_hidden() {
        let n = 3000;
        let shapes = [
            "1".to_string() + &"+1".repeat(n),
            "-".repeat(n) + "1",
            "!".repeat(n) + "true",
            "error ".repeat(n) + "1",
            "{}".to_string() + &".a".repeat(n),
            "[1]".to_string() + &"[0]".repeat(n),
            "f".to_string() + &"(1)".repeat(n),
            "{}".to_string() + &"+{}".repeat(n),
            "function(x) ".repeat(n) + "1",
            "assert true; ".repeat(n) + "1",
            "local a = 1, b = 2; ".repeat(n) + "1",
            // A lone carriage return ends a `//` or `#` comment.
            "// c\r".to_string() + &"[".repeat(n),
            "# c\r".to_string() + &"[".repeat(n),
            // An indented `|||` inside a text block is text, not its end.
            "|||\n  a\n  |||\n  \"\n|||\n".to_string() + &"[".repeat(n) + "\"",
        ];
        for shape in shapes {
            let (d, line) = depth(&shape);
            assert!(d >= n, "{:?}: {d}", &shape[..20]);
            assert!(check_nesting(shape.as_bytes()).is_err());
            assert_eq!(line, shape.lines().count().max(1), "{:?}", &shape[..20]);
        }
        // Not UTF-8: never parsed, so never too deep.
        let mut bytes = vec![b'['; n];
        bytes.push(0xff);
        assert_eq!(check_nesting(&bytes), Ok(()));
    }

    /// jrsonnet panics on a closure of more than 65,535 locals; big literals are not that.
    #[test]
    fn one_place_binding_too_many_names_is_refused_and_big_literals_are_not() {
        let names = |n: usize| (0..n).map(|i| format!("a{i}")).collect::<Vec<_>>();
        let refused = [
            format!("local f({}) = 1; f", names(66_000).join(", ")),
            format!("local {} ; 1", names(66_000).join(" = 1, ")),
            format!("{{ {} x: 1 }}", "local a = 1, ".repeat(66_000)),
        ];
        for text in refused {
            let e = check_nesting(text.as_bytes()).unwrap_err();
            assert!(
                e.names && e.to_string().contains("names bound in one place"),
                "{e}"
            );
        }
        let allowed = [
            format!("[{}]", vec!["1"; 100_000].join(", ")),
            format!("{{ {} }}", names(100_000).join(": 1, ") + ": 1"),
            format!("[{}]", vec!["(local q = 1; q)"; 70_000].join(", ")),
        ];
        for text in allowed {
            assert_eq!(check_nesting(text.as_bytes()), Ok(()));
        }
    }

    #[test]
    fn depth_names_the_line_past_multiline_strings_comments_and_text_blocks() {
        let source = "\"a\nb\" 'c\\\nd'\n/* x\n */ # y\n|||\n  z\n|||\n[[";
        assert_eq!(depth(source), (2, 9));
    }

    #[test]
    fn the_generated_ksonnet_lib_is_well_within_the_nesting_limit() {
        let files =
            crate::ksonnetlib::lib_files(crate::ksonnetlib::DEFAULT_SPEC.as_bytes()).unwrap();
        assert!(files.iter().any(|(n, _)| *n == "k8s.libsonnet"));
        for (name, bytes) in files {
            if name.ends_with("sonnet") {
                let (d, line) = depth(std::str::from_utf8(&bytes).unwrap());
                assert!(d < MAX_NESTING / 4, "{name}:{line}: {d}");
            }
        }
    }

    #[test]
    fn every_embedded_source_is_within_the_nesting_limit() {
        let mut checked = 0;
        for (path, text) in crate::embedded::files_under("") {
            if path.ends_with("sonnet") {
                let (d, line) = depth(text);
                assert!(d < MAX_NESTING / 4, "{path}:{line}: {d}");
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} embedded sources");
    }
}
