//! The parts of a big library (see `split_library`), kept between runs in kf's cache
//! folder: a render reads them back instead of walking the 3.7 MB file again. A kept
//! split is named by the SHA-256 of the library's bytes and name, and signed with the
//! user's secret as the generated libraries kf caches are; one that does not verify is
//! ignored (and made again).

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The cache folder and the user's secret, set by the render; `None`: keep nothing.
static PLACE: OnceLock<Option<(PathBuf, Vec<u8>)>> = OnceLock::new();

const PURPOSE: &str = "kf split library v1";

/// Keep splits in the folder and with the key `place` gives (`None`: keep none). The first
/// call in a process decides.
pub fn set_place(place: impl FnOnce() -> Option<(PathBuf, Vec<u8>)>) {
    PLACE.get_or_init(place);
}

/// A split as kept: the main text, and each part's name, newlines before it and text.
pub struct Stored {
    pub main: String,
    pub parts: Vec<(String, usize, String)>,
}

fn payload(stored: &Stored) -> Vec<u8> {
    let mut out = Vec::with_capacity(stored.main.len() * 2);
    let mut entry = |name: &str, newlines: usize, text: &str| {
        let _ = writeln!(out, "{name}\t{newlines}\t{}", text.len());
        out.extend_from_slice(text.as_bytes());
    };
    entry("", 0, &stored.main);
    for (name, newlines, text) in &stored.parts {
        entry(name, *newlines, text);
    }
    out
}

fn parse(mut rest: &[u8]) -> Option<Stored> {
    let mut main = None;
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&rest[..end]).ok()?;
        let mut fields = header.split('\t');
        let (name, newlines, len) = (fields.next()?, fields.next()?, fields.next()?);
        let (newlines, len): (usize, usize) = (newlines.parse().ok()?, len.parse().ok()?);
        let text = std::str::from_utf8(rest.get(end + 1..end + 1 + len)?).ok()?;
        rest = &rest[end + 1 + len..];
        match main {
            None => main = Some(text.to_string()),
            Some(_) => parts.push((name.to_string(), newlines, text.to_string())),
        }
    }
    Some(Stored { main: main?, parts })
}

/// The split kept under `id`, if there is one that verifies.
pub fn read(id: &str) -> Option<Stored> {
    let (dir, key) = PLACE.get()?.as_ref()?;
    let bytes = crate::sandbox::read_regular(&dir.join(id), 256 * 1024 * 1024).ok()?;
    let newline = bytes.iter().position(|&b| b == b'\n')?;
    let signature = std::str::from_utf8(&bytes[..newline]).ok()?;
    let body = &bytes[newline + 1..];
    if !crate::signing::verify(key, PURPOSE, &[id.as_bytes(), body], signature) {
        return None;
    }
    parse(body)
}

/// Keep `stored` under `id` (best effort: a cache that cannot be written only costs the
/// next run a walk of the library).
pub fn write(id: &str, stored: &Stored) {
    let Some(Some((dir, key))) = PLACE.get() else {
        return;
    };
    let body = payload(stored);
    let signature = crate::signing::sign(key, PURPOSE, &[id.as_bytes(), &body]);
    if let Ok(mut file) = tempfile::NamedTempFile::new_in(dir)
        && file.write_all(signature.as_bytes()).is_ok()
        && file.write_all(b"\n").is_ok()
        && file.write_all(&body).is_ok()
    {
        let _ = file.persist(dir.join(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_split_reads_back_as_written() {
        let stored = Stored {
            main: "{ a:: (import \"x\")(h) }\n".into(),
            parts: vec![("a".into(), 3, "function(h)\n  { b: 1 }\t\n".into())],
        };
        let back = parse(&payload(&stored)).unwrap();
        assert_eq!(back.main, stored.main);
        assert_eq!(back.parts, stored.parts);
        assert!(parse(b"\t0\t99\nshort").is_none());
    }
}
