//! Sprig's `snakecase` (huandu/xstrings `ToSnakeCase`), which Tanka's default name
//! format for chart objects (`{{ print .kind "_" .metadata.name | snakecase }}`) applies:
//! `ClusterRole_system:metrics-server` is `cluster_role_system:metrics_server`, so a
//! `helmTemplate` result has the keys code written for Tanka indexes it by.
//!
//! The text is read as words — a capitalised or upper-case run, a lower-case run, digits,
//! connectors (`-`, `_`, white space), punctuation, anything else — and written lower
//! case, with `_` between two words that are not separated already. Digits join the word
//! before them unless lower-case letters follow (`Bld4Floor` is `bld4_floor`, `http2xx`
//! is `http_2xx`). Punctuation is Go's `unicode.IsPunct` on ASCII; other non-ASCII that is
//! not a letter or a number counts as "anything else" (object names are ASCII).

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    End,
    Number,
    Upper,
    Lower,
    Connector,
    Punct,
    Other,
}

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || c.is_whitespace()
}

fn is_punct(c: char) -> bool {
    c.is_ascii() && "!\"#%&'()*,./:;?@[\\]{}".contains(c)
}

/// A letter that is not one of the CJK ideographs (which xstrings keeps out of words).
fn is_letter(c: char) -> bool {
    c.is_alphabetic()
        && !matches!(c, '\u{4E00}'..='\u{9FCC}' | '\u{3400}'..='\u{4D85}' | '\u{20000}'..='\u{2B81D}')
}

fn kind_of(c: char) -> Kind {
    if is_connector(c) {
        Kind::Connector
    } else if is_punct(c) {
        Kind::Punct
    } else if c.is_uppercase() {
        Kind::Upper
    } else if is_letter(c) {
        Kind::Lower
    } else if c.is_numeric() {
        Kind::Number
    } else {
        Kind::Other
    }
}

/// The first word of `s` and what follows it (`Kind::End` for an empty `s`).
fn next_word(s: &str) -> (Kind, &str, &str) {
    let mut chars = s.char_indices();
    let Some((_, first)) = chars.next() else {
        return (Kind::End, "", "");
    };
    let kind = kind_of(first);
    let rest = &s[first.len_utf8()..];
    let len_while = |text: &str, keep: &dyn Fn(char) -> bool| -> usize {
        text.char_indices()
            .find(|&(_, c)| !keep(c))
            .map_or(text.len(), |(i, _)| i)
    };
    let len = first.len_utf8()
        + match kind {
            Kind::Connector => len_while(rest, &is_connector),
            Kind::Punct => len_while(rest, &is_punct),
            Kind::Number => len_while(rest, &|c: char| c.is_numeric()),
            Kind::Lower => len_while(rest, &|c| is_letter(c) && !c.is_uppercase()),
            Kind::Other => len_while(rest, &|c: char| {
                !(is_connector(c) || is_letter(c) || c.is_numeric() || is_punct(c))
            }),
            Kind::Upper => match rest.chars().next() {
                Some(c) if c.is_uppercase() => {
                    let run = len_while(rest, &|c: char| c.is_uppercase());
                    // "HTTPServer": the last capital begins the next word.
                    match rest[run..].chars().next() {
                        Some(after) if is_letter(after) => {
                            run - rest[..run].chars().last().map_or(0, char::len_utf8)
                        }
                        _ => run,
                    }
                }
                Some(c) if is_letter(c) => len_while(rest, &|c| is_letter(c) && !c.is_uppercase()),
                _ => 0,
            },
            Kind::End => 0,
        };
    (kind, &s[..len], &s[len..])
}

fn write_word(out: &mut String, kind: Kind, word: &str, delim: char) {
    if kind != Kind::Upper && kind != Kind::Connector {
        out.push_str(word);
        return;
    }
    for c in word.chars() {
        if is_connector(c) {
            out.push(delim);
        } else {
            out.extend(c.to_lowercase());
        }
    }
}

/// Whether `_` goes between a word and one of `kind` after it.
fn joins(kind: Kind) -> bool {
    !matches!(kind, Kind::End | Kind::Connector | Kind::Punct)
}

pub fn snakecase(s: &str) -> String {
    cased(s, '_')
}

/// Sprig's `kebabcase` (xstrings `ToKebabCase`): the same words, joined by `-`.
pub fn kebabcase(s: &str) -> String {
    cased(s, '-')
}

fn cased(s: &str, delim: char) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let (mut kind, mut word, mut rest) = next_word(s);
    while !rest.is_empty() {
        if kind != Kind::Connector {
            write_word(&mut out, kind, word, delim);
        }
        let (prev, prev_word) = (kind, word);
        (kind, word, rest) = next_word(rest);
        match prev {
            Kind::Number => {
                while matches!(kind, Kind::Lower | Kind::Number) {
                    write_word(&mut out, kind, word, delim);
                    (kind, word, rest) = next_word(rest);
                }
                if joins(kind) {
                    out.push(delim);
                }
            }
            Kind::Connector => write_word(&mut out, prev, prev_word, delim),
            Kind::Punct => {}
            _ if kind != Kind::Number => {
                if joins(kind) {
                    out.push(delim);
                }
            }
            _ if rest.is_empty() => {}
            _ => {
                let digits = word;
                (kind, word, rest) = next_word(rest);
                if kind == Kind::Lower {
                    // "http2xx": the digits begin a word of their own.
                    out.push(delim);
                    write_word(&mut out, Kind::Number, digits, delim);
                    while matches!(kind, Kind::Lower | Kind::Number) {
                        write_word(&mut out, kind, word, delim);
                        (kind, word, rest) = next_word(rest);
                    }
                } else {
                    write_word(&mut out, Kind::Number, digits, delim);
                }
                if joins(kind) {
                    out.push(delim);
                }
            }
        }
    }
    write_word(&mut out, kind, word, delim);
    out
}

#[cfg(test)]
mod tests {
    use super::{kebabcase, snakecase};

    /// xstrings' own cases (convert_test.go, TestToSnakeCaseAndToKebabCase), the ASCII
    /// ones and one with CJK, and the names charts give.
    #[test]
    fn snakecase_is_xstrings() {
        for (input, want) in [
            ("HTTPServer", "http_server"),
            ("_camelCase", "_camel_case"),
            ("NoHTTPS", "no_https"),
            ("Wi_thF", "wi_th_f"),
            ("_AnotherTES_TCaseP", "_another_tes_t_case_p"),
            ("ALL", "all"),
            ("_HELLO_WORLD_", "_hello_world_"),
            ("HELLO_WORLD", "hello_world"),
            ("HELLO____WORLD", "hello____world"),
            ("TW", "tw"),
            ("_C", "_c"),
            ("http2xx", "http_2xx"),
            ("HTTP2XX", "http2_xx"),
            ("HTTP20xOK", "http_20x_ok"),
            ("HTTP20xStatus", "http_20x_status"),
            ("HTTP-20xStatus", "http_20x_status"),
            ("a", "a"),
            ("Duration2m3s", "duration_2m3s"),
            ("Bld4Floor3rd", "bld4_floor_3rd"),
            (" _-_ ", "_____"),
            ("a1b2c3d", "a_1b2c3d"),
            ("A//B%%2c", "a//b%%2c"),
            ("混合ABCWords与123数字456", "混合_abc_words_与123_数字456"),
            ("  sentence case  ", "__sentence_case__"),
            (
                " Mixed-hyphen case _and SENTENCE_case and UPPER-case",
                "_mixed_hyphen_case__and_sentence_case_and_upper_case",
            ),
            (
                "FROM CamelCase to snake/kebab-case",
                "from_camel_case_to_snake/kebab_case",
            ),
            ("", ""),
            ("abc_123_def", "abc_123_def"),
            (
                "ClusterRole_system:metrics-server",
                "cluster_role_system:metrics_server",
            ),
            (
                "APIService_v1beta1.visibility.kueue.x-k8s.io",
                "api_service_v_1beta1.visibility.kueue.x_k_8s.io",
            ),
            (
                "CustomResourceDefinition_clusterqueues.kueue.x-k8s.io",
                "custom_resource_definition_clusterqueues.kueue.x_k_8s.io",
            ),
        ] {
            assert_eq!(snakecase(input), want, "{input:?}");
            // xstrings' kebab cases are the same words joined by `-`.
            assert_eq!(kebabcase(input), want.replace('_', "-"), "{input:?}");
        }
    }
}
