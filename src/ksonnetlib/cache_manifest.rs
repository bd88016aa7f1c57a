//! The manifest of a ksonnet-lib kf generated into its cache: the SHA-256 of every file,
//! signed (HMAC-SHA256) with the user's secret over the folder's name, so that a file
//! changed or added by anyone else — on a shared `XDG_CACHE_HOME`, a CI cache restored
//! from elsewhere — is refused when it is read, not rendered into the user's apps.

use std::collections::BTreeMap;
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
pub fn read(dir: &Path, text: &str, key: &[u8]) -> Result<BTreeMap<String, [u8; 32]>, String> {
    let (body, last) = text
        .trim_end_matches('\n')
        .rsplit_once('\n')
        .map(|(b, l)| (format!("{b}\n"), l))
        .ok_or("its manifest lists no files")?;
    let claimed = last
        .strip_prefix("mac ")
        .ok_or("its manifest is not signed")?;
    if !crate::signing::verify(key, PURPOSE, &signed_parts(dir, &body), claimed) {
        return Err("its manifest is not signed by this user's kf".into());
    }
    let mut digests = BTreeMap::new();
    for line in body.lines() {
        let (digest, name) = line.split_once("  ").ok_or("its manifest is malformed")?;
        let digest: [u8; 32] = crate::signing::unhex(digest)
            .and_then(|d| d.try_into().ok())
            .ok_or("its manifest is malformed")?;
        digests.insert(name.to_string(), digest);
    }
    Ok(digests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_verifies_only_with_its_key_and_folder_name_and_unchanged() {
        let files = vec![("k.libsonnet".to_string(), b"{}".to_vec())];
        let dir = Path::new("/c/ksonnet-lib/v1");
        let text = write(dir, &files, b"key");
        let digests = read(dir, &text, b"key").unwrap();
        assert_eq!(
            digests["k.libsonnet"],
            <[u8; 32]>::from(Sha256::digest(b"{}"))
        );
        assert!(read(dir, &text, b"other").is_err());
        assert!(read(Path::new("/c/ksonnet-lib/v2"), &text, b"key").is_err());
        let added = text.replacen(
            "mac ",
            &format!("{}  evil.libsonnet\nmac ", "00".repeat(32)),
            1,
        );
        assert!(read(dir, &added, b"key").is_err());
        assert!(read(dir, "", b"key").is_err());
    }
}
