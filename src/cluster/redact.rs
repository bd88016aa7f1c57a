//! Text kf did not write — an API server's or a proxy's reply, kube's errors, a kubeconfig
//! parser's message — reaches kf's errors only through [`redact`], which keeps what says
//! what went wrong and masks what looks like a credential. An exec credential plugin's
//! output is never quoted at all ([`kube_error`]): what it printed is a token, or the
//! start of one.

use kube::client::AuthError;

/// What a masked credential reads as.
const MASK: &str = "***";

/// The longest piece of foreign text kf quotes.
const MAX_QUOTED: usize = 400;

/// Words after which a `:` or `=` introduces a credential: `token`, `access_token`,
/// `id-token`, `password`, `client-key-data`, `Authorization`…
const CREDENTIAL_KEYS: &[&str] = &[
    "token",
    "password",
    "passwd",
    "secret",
    "keydata",
    "key-data",
    "key_data",
    "apikey",
    "api-key",
    "api_key",
    "authorization",
    "credential",
    "credentials",
];

/// The first line of `text` (a file parser's message may go on to quote the file), with
/// anything that looks like a credential masked — the value of a `token:`/`"token": "…"`
/// (and of `password`, `…-key-data`, `Authorization`…), the word after `Bearer` or
/// `Basic`, serde's `string "…"`, and long runs of hex or mixed-case base64 — cut to
/// [`MAX_QUOTED`] characters.
pub fn redact(text: &str) -> String {
    let text = mask_held(text);
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    shorten(&mask_credentials(line), MAX_QUOTED)
}

/// The credentials kf holds for this run (a kubeconfig's token, password, client key and
/// auth-provider tokens), masked wherever foreign text quotes them, whatever they look
/// like: the patterns of [`redact`] know only what a credential usually looks like.
static HELD: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Shorter secrets are not masked: they would mask common words of every message (a
/// password `default` would hide every namespace of that name).
const MIN_HELD: usize = 8;

/// Remember the credentials of `auth` (see [`HELD`]) for every later [`redact`].
pub fn hold_credentials(auth: &kube::config::AuthInfo) {
    let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(auth) else {
        return;
    };
    let mut found: Vec<String> = ["password", "token", "client-key-data"]
        .iter()
        .filter_map(|k| fields.get(*k).and_then(|v| v.as_str()).map(str::to_string))
        .collect();
    // auth-provider's config: access-token, id-token, refresh-token, client-secret…
    if let Some(serde_json::Value::Object(config)) =
        fields.get("auth-provider").and_then(|p| p.get("config"))
    {
        found.extend(
            config
                .iter()
                .filter(|(k, _)| {
                    let k = k.to_ascii_lowercase();
                    CREDENTIAL_KEYS.iter().any(|c| k.ends_with(c))
                })
                .filter_map(|(_, v)| v.as_str().map(str::to_string)),
        );
    }
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    for secret in found.into_iter().map(|s| s.trim().to_string()) {
        if secret.len() >= MIN_HELD && !held.contains(&secret) {
            held.push(secret);
        }
    }
    // The longest first, so that a secret holding another is masked whole.
    held.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

fn mask_held(text: &str) -> std::borrow::Cow<'_, str> {
    let held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if !held.iter().any(|s| text.contains(s.as_str())) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for secret in held.iter() {
        out = out.replace(secret.as_str(), MASK);
    }
    std::borrow::Cow::Owned(out)
}

/// An API server's `Status` message on one line: its lines belong together (the fields of
/// an apply conflict are listed one a line), unlike a parser's report.
pub fn server_message(text: &str) -> String {
    let joined: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    redact(&joined.join(" "))
}

/// A kube error (or an error with one in its chain) in kf's words: an exec credential
/// plugin's failure without its output, anything else [`redact`]ed.
pub fn kube_error(e: &(dyn std::error::Error + 'static)) -> String {
    match auth_in(e) {
        Some(auth) => auth_error(auth),
        None => redact(&e.to_string()),
    }
}

/// The innermost error of a chain, [`redact`]ed (hyper's "client error (Connect)" says
/// nothing; the io::Error under it does), or kf's words for a credential plugin's failure.
pub fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    if let Some(auth) = auth_in(e) {
        return auth_error(auth);
    }
    let mut last = e;
    while let Some(next) = last.source() {
        last = next;
    }
    redact(&last.to_string())
}

/// The credential error in `e`'s chain, if there is one.
fn auth_in<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a AuthError> {
    let mut cause = Some(e);
    while let Some(err) = cause {
        if let Some(auth) = err.downcast_ref::<AuthError>() {
            return Some(auth);
        }
        cause = err.source();
    }
    None
}

/// kube quotes a failed plugin's whole output (`AuthExecRun`, and serde-saphyr's message
/// for `AuthExecParse` shows the text it could not read): kf says what was wrong instead.
fn auth_error(e: &AuthError) -> String {
    const UNQUOTED: &str =
        "kf does not show its output, which may hold a token; run the plugin by hand to see it";
    match e {
        AuthError::AuthExecStart(io) => format!(
            "cannot start the kubeconfig user's exec credential plugin ({io}); check the user's exec command"
        ),
        AuthError::AuthExecRun { out, .. } => format!(
            "the kubeconfig user's exec credential plugin failed ({}); {UNQUOTED}",
            out.status
        ),
        AuthError::AuthExecParse(_) => format!(
            "the kubeconfig user's exec credential plugin printed something that is not an ExecCredential; {UNQUOTED}"
        ),
        AuthError::ExecPluginFailed => format!(
            "the kubeconfig user's exec credential plugin printed an ExecCredential without a status; {UNQUOTED}"
        ),
        AuthError::MalformedTokenExpirationDate(_) => format!(
            "the kubeconfig user's exec credential plugin printed an expirationTimestamp that is not an RFC 3339 time; {UNQUOTED}"
        ),
        AuthError::AuthExec(_) => {
            format!("the kubeconfig user's credential plugin or auth-provider failed; {UNQUOTED}")
        }
        other => redact(&other.to_string()),
    }
}

/// At most `max` characters of `text`, with `…` when it was cut.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Characters of a word, as far as credentials go: base64 (standard and URL-safe), hex,
/// JWTs (dot-separated), paths.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '_' | '-' | '.' | '~')
}

/// `text` cut into alternating runs of word and other characters: (is a word, run).
fn runs(text: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut current: Option<bool> = None;
    for (i, c) in text.char_indices() {
        let word = is_word_char(c);
        match current {
            Some(w) if w != word => {
                out.push((w, &text[start..i]));
                start = i;
                current = Some(word);
            }
            Some(_) => {}
            None => current = Some(word),
        }
    }
    if let Some(w) = current {
        out.push((w, &text[start..]));
    }
    out
}

/// A word no message needs and a credential often is: 32 or more hex digits, or 32 or
/// more base64 characters with digits and both cases, in one of its dot- or
/// slash-separated parts (so `io.k8s.api.apps.v1.DeploymentSpec` and paths stay).
fn looks_like_credential(word: &str) -> bool {
    word.split(['.', '/']).any(|part| {
        let long = part.len() >= 32;
        let hex = part.chars().all(|c| c.is_ascii_hexdigit());
        let mixed = part.chars().any(|c| c.is_ascii_digit())
            && part.chars().any(|c| c.is_ascii_uppercase())
            && part.chars().any(|c| c.is_ascii_lowercase());
        long && (hex || mixed)
    })
}

/// What comes after a word, as far as masking goes.
enum Next {
    /// Nothing to mask.
    Plain,
    /// The next word is a credential.
    Word,
    /// Everything up to this closing quote is a credential.
    UntilQuote(char),
}

fn mask_credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut next = Next::Plain;
    // The last word names a credential (`token`), or is serde's `string` before a value.
    let mut names_credential = false;
    let mut serde_string = false;
    for (is_word, run) in runs(text) {
        if let Next::UntilQuote(quote) = next {
            if !is_word && let Some(at) = run.find(quote) {
                out.push_str(MASK);
                out.push_str(&run[at..]);
                next = Next::Plain;
            }
            continue;
        }
        if is_word {
            let lower = run.to_ascii_lowercase();
            if lower == "bearer" || lower == "basic" {
                out.push_str(run);
                next = Next::Word;
            } else if matches!(next, Next::Word) || looks_like_credential(run) {
                out.push_str(MASK);
                next = Next::Plain;
            } else {
                out.push_str(run);
            }
            names_credential = CREDENTIAL_KEYS.iter().any(|k| lower.ends_with(k));
            serde_string = lower == "string";
            continue;
        }
        let opens = run.chars().last().filter(|c| matches!(c, '"' | '\''));
        // `token: x`, `"token": "x"`, `token=x`, and a quoted value after a space
        // (`token "x" is not allowed`).
        let assigns = run.contains([':', '=']) || (opens.is_some() && run.trim_start().len() == 1);
        if (names_credential && assigns) || (serde_string && opens.is_some()) {
            next = match opens {
                Some(quote) => Next::UntilQuote(quote),
                None => Next::Word,
            };
        }
        names_credential = false;
        serde_string = false;
        out.push_str(run);
    }
    // A quote never closed: what followed it is gone, say so.
    if let Next::UntilQuote(_) = next {
        out.push_str(MASK);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_every_usual_spelling_are_masked() {
        for (text, secret) in [
            (
                r#"{"kind":"ExecCredential","status":{"token":"SECRET-TOKEN-123""#,
                "SECRET-TOKEN-123",
            ),
            (
                r#"{"kind":"ExecCredential","status":{"token":"SECRET TOKEN 123"}}"#,
                "SECRET",
            ),
            ("token: SECRET-TOKEN-123", "SECRET-TOKEN-123"),
            (
                "token \"SECRET-TOKEN-123\" is not allowed",
                "SECRET-TOKEN-123",
            ),
            ("access_token=SECRET-TOKEN-123&x=1", "SECRET-TOKEN-123"),
            ("Authorization: Bearer SECRET-TOKEN-123", "SECRET-TOKEN-123"),
            ("rejected bearer SECRET-TOKEN-123", "SECRET-TOKEN-123"),
            ("basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
            ("client-key-data: LS0tLS1CRUdJTi", "LS0tLS1CRUdJTi"),
            (
                "invalid type: string \"SECRET-TOKEN-123\", expected a map",
                "SECRET",
            ),
            ("password: 'hunter2 and more'", "hunter2"),
            (
                "got eyJhbGciOiJSUzI1NiIsImtpZCI6IkFCQyJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6a2YifQ.c2lnbmF0dXJlX29mX3RoZV90b2tlbl8xMjM0NQ",
                "eyJ",
            ),
            (
                "key 0123456789abcdef0123456789abcdef0123 refused",
                "0123456789abcdef0123456789abcdef",
            ),
        ] {
            let out = redact(text);
            assert!(!out.contains(secret), "{text:?} → {out:?}");
            assert!(out.contains(MASK), "{text:?} → {out:?}");
        }
    }

    #[test]
    fn what_says_what_went_wrong_is_kept() {
        for text in [
            "deployments.apps \"web-training-job-1234567890-abcdef\" not found",
            "unknown field \"foo\" in io.k8s.api.apps.v1.DeploymentSpec",
            "GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions: connection refused",
            "object 123e4567-e89b-12d3-a456-426614174000 has changed",
            "tokenFile: /var/run/secrets/token is not readable",
            "the server has asked for the client to provide credentials",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn only_the_first_line_is_quoted_and_it_is_cut_short() {
        assert_eq!(
            redact("\n  first line \nsecond: file contents"),
            "first line"
        );
        let long = "x ".repeat(400);
        let out = redact(&long);
        assert!(out.ends_with('…') && out.chars().count() == MAX_QUOTED + 1);
        assert_eq!(
            server_message("Apply failed with 2 conflicts: conflicts with \"m\":\n- .a\n- .b"),
            "Apply failed with 2 conflicts: conflicts with \"m\": - .a - .b"
        );
    }
}
