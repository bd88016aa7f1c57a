//! The manifest of a ksonnet-lib kf generated into its cache: the SHA-256 of every file,
//! signed (HMAC-SHA256) with the user's secret over the folder's name, so that a file
//! changed or added by anyone else — on a shared `XDG_CACHE_HOME`, a CI cache restored
//! from elsewhere — is refused when it is read, not rendered into the user's apps.

use std::path::Path;

use sha2::{Digest, Sha256};

/// The manifest's name inside the library folder (no import names it).
pub const FILE: &str = "kf-manifest.txt";

const PURPOSE: &str = "kf ksonnet-lib cache manifest v1";

/// What a manifest signs: the folder's name (so an entry cannot pass as another) and its
/// list of digests.
fn signed_parts<'a>(dir: &'a Path, body: &'a str) -> [&'a [u8]; 2] {
    let name = dir
        .file_name()
        .map(|n| n.as_encoded_bytes())
        .unwrap_or_default();
    [name, body.as_bytes()]
}

/// The manifest of `files` (path below the folder → contents) for the folder `dir`.
pub fn write(dir: &Path, files: &[(String, Vec<u8>)], key: &[u8]) -> String {
    let mut body = String::new();
    let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, bytes) in sorted {
        body.push_str(&super::hex(&Sha256::digest(bytes)));
        body.push_str("  ");
        body.push_str(name);
        body.push('\n');
    }
    let mac = crate::signing::sign(key, PURPOSE, &signed_parts(dir, &body));
    format!("{body}mac {mac}\n")
}

/// The digests a manifest lists, if `key` signed it for the folder `dir`.
pub fn read(dir: &Path, mut text: String, key: &[u8]) -> Result<Digests, String> {
    let (lines, last) = text
        .trim_end_matches('\n')
        .rsplit_once('\n')
        .ok_or("its manifest lists no files")?;
    // The lines with their last newline.
    let body_len = lines.len() + 1;
    let claimed = last
        .strip_prefix("mac ")
        .ok_or("its manifest is not signed")?;
    if !crate::signing::verify(key, PURPOSE, &signed_parts(dir, &text[..body_len]), claimed) {
        return Err("its manifest is not signed by this user's kf".into());
    }
    // Kept as read, without its signature line.
    text.truncate(body_len);
    Digests::parse(text).ok_or_else(|| "its manifest is malformed".into())
}

/// A verified manifest's digests, found by file name as the files are read. The text is
/// kept as it is and only its names are indexed: decoding 850 digests into a map cost
/// 0.7–1 ms at the start of every render that imports the library, which each of its
/// threads waited for.
#[derive(Debug)]
pub struct Digests {
    body: String,
    /// Where each line's name starts and ends in `body`, sorted by name (the same name
    /// twice: the later line last). Its digest is the 64 hex digits the line starts with.
    names: Vec<(usize, usize)>,
}

/// A line: the digest in hex, two blanks, the file's path below the folder.
const DIGEST_HEX: usize = 64;
const NAME_AT: usize = DIGEST_HEX + 2;

impl Digests {
    fn parse(body: String) -> Option<Digests> {
        let mut names = Vec::new();
        let mut start = 0;
        for line in body.split_inclusive('\n') {
            let text = line.strip_suffix('\n').unwrap_or(line);
            let well_formed = text.len() > NAME_AT
                && text.as_bytes()[..DIGEST_HEX]
                    .iter()
                    .all(u8::is_ascii_hexdigit)
                && text.as_bytes()[DIGEST_HEX..NAME_AT] == *b"  ";
            if !well_formed {
                return None;
            }
            names.push((start + NAME_AT, start + text.len()));
            start += line.len();
        }
        names.sort_by(|a, b| body[a.0..a.1].cmp(&body[b.0..b.1]));
        Some(Digests { body, names })
    }

    /// The SHA-256 the manifest lists for `name`.
    pub fn get(&self, name: &str) -> Option<[u8; 32]> {
        let after = self
            .names
            .partition_point(|&(from, to)| &self.body[from..to] <= name);
        let &(from, to) = self.names.get(after.checked_sub(1)?)?;
        if &self.body[from..to] != name {
            return None;
        }
        crate::signing::unhex(&self.body[from - NAME_AT..from - NAME_AT + DIGEST_HEX])?
            .try_into()
            .ok()
    }
}

impl crate::sandbox::KnownDigests for Digests {
    fn digest_of(&self, path: &str) -> Option<[u8; 32]> {
        self.get(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_verifies_only_with_its_key_and_folder_name_and_unchanged() {
        let files = vec![("k.libsonnet".to_string(), b"{}".to_vec())];
        let dir = Path::new("/c/ksonnet-lib/v1");
        let text = write(dir, &files, b"key");
        let digests = read(dir, text.clone(), b"key").unwrap();
        assert_eq!(
            digests.get("k.libsonnet"),
            Some(<[u8; 32]>::from(Sha256::digest(b"{}")))
        );
        assert!(read(dir, text.clone(), b"other").is_err());
        assert!(read(Path::new("/c/ksonnet-lib/v2"), text.clone(), b"key").is_err());
        let added = text.replacen(
            "mac ",
            &format!("{}  evil.libsonnet\nmac ", "00".repeat(32)),
            1,
        );
        assert!(read(dir, added, b"key").is_err());
        assert!(read(dir, String::new(), b"key").is_err());
    }

    #[test]
    fn every_listed_file_is_found_by_name_and_no_other() {
        // Names out of order, nested paths, one a prefix of another.
        let files: Vec<(String, Vec<u8>)> =
            ["b.libsonnet", "a/x.libsonnet", "a", "k.libsonnet", "ab"]
                .iter()
                .chain(&["_gen/core.v1/lits/pod.libsonnet", "z.libsonnet"])
                .map(|n| (n.to_string(), n.as_bytes().to_vec()))
                .collect();
        let dir = Path::new("/c/ksonnet-lib/v1");
        let digests = read(dir, write(dir, &files, b"key"), b"key").unwrap();
        for (name, bytes) in &files {
            assert_eq!(
                digests.get(name),
                Some(Sha256::digest(bytes).into()),
                "{name}"
            );
        }
        for absent in ["", "a/", "aa", "b", "zz.libsonnet", "k.libsonnet\n", "0"] {
            assert_eq!(digests.get(absent), None, "{absent:?}");
        }
    }

    #[test]
    fn a_signed_line_that_is_not_a_digest_and_a_name_is_malformed() {
        let dir = Path::new("/c/ksonnet-lib/v1");
        let sign = |body: &str| {
            let mac = crate::signing::sign(b"key", PURPOSE, &signed_parts(dir, body));
            format!("{body}mac {mac}\n")
        };
        let digest = "ab".repeat(32);
        assert!(read(dir, sign(&format!("{digest}  k.libsonnet\n")), b"key").is_ok());
        for body in [
            format!("{}  k.libsonnet\n", "ab".repeat(31)),
            format!("{}  k.libsonnet\n", "zz".repeat(32)),
            format!("{digest} k.libsonnet\n"),
            format!("{digest}  \n"),
            format!("{digest} é.libsonnet\n"),
            format!("{}é  k.libsonnet\n", "ab".repeat(31)),
            "\n".to_string(),
        ] {
            let err = read(dir, sign(&body), b"key").unwrap_err();
            assert!(err.contains("malformed"), "{body:?}: {err}");
        }
    }
}
