//! What kf signs with the user's secret ([`crate::userdir::secret`]): its journals and the
//! manifests of the libraries it caches. HMAC-SHA256 over a purpose and a list of parts
//! (each length-prefixed, so that no two lists sign alike), as lowercase hex.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

fn mac_of(key: &[u8], purpose: &str, parts: &[&[u8]]) -> Hmac<Sha256> {
    // HMAC takes a key of any length: new_from_slice cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
    for part in std::iter::once(purpose.as_bytes()).chain(parts.iter().copied()) {
        mac.update(&(part.len() as u64).to_le_bytes());
        mac.update(part);
    }
    mac
}

/// The signature of `parts` for `purpose`, in hex.
pub fn sign(key: &[u8], purpose: &str, parts: &[&[u8]]) -> String {
    hex(&mac_of(key, purpose, parts).finalize().into_bytes())
}

/// Whether `signature` (hex) is [`sign`]'s for these parts; compared in constant time.
pub fn verify(key: &[u8], purpose: &str, parts: &[&[u8]], signature: &str) -> bool {
    unhex(signature).is_some_and(|s| mac_of(key, purpose, parts).verify_slice(&s).is_ok())
}

/// `bytes` in lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of a hex string, if it is one.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.is_empty() || !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Fill `out` with random bytes from the operating system.
#[cfg(unix)]
pub fn random_bytes(out: &mut [u8]) -> std::io::Result<()> {
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(out)
}

#[cfg(not(unix))]
pub fn random_bytes(_out: &mut [u8]) -> std::io::Result<()> {
    Err(std::io::Error::other("no random source known here"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_depend_on_key_purpose_and_every_part_boundary() {
        let s = sign(b"k", "p", &[b"ab", b"c"]);
        assert!(verify(b"k", "p", &[b"ab", b"c"], &s));
        assert!(!verify(b"k2", "p", &[b"ab", b"c"], &s));
        assert!(!verify(b"k", "q", &[b"ab", b"c"], &s));
        assert!(!verify(b"k", "p", &[b"a", b"bc"], &s));
        assert!(!verify(b"k", "p", &[b"ab", b"c"], "zz"));
        assert_eq!(unhex(&hex(&[0, 255, 16])), Some(vec![0, 255, 16]));
    }
}
