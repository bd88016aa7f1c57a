//! The parts of a big library (see `split_library`), kept between runs in kf's cache
//! folder, so that a render reads the few parts its components reach instead of the
//! library's megabytes:
//! - a kept split is named by the SHA-256 of the library's bytes and its name. Its header
//!   lists each part's place in the file and SHA-256, and is signed with the user's secret
//!   (as the libraries kf generates are); a part is read, and checked against the header,
//!   only when a render reaches it. One that does not verify is not used.
//! - a pointer, named by the library's path and what the file system says of it (device,
//!   inode, size, change and modification times), names the bytes' digest, so that a
//!   render need not read and hash the library to find its split. A pointer is written
//!   only for a file last changed [`SETTLED`] before it was read: a file changed again
//!   within the file system's clock tick could otherwise keep its stamp with other bytes.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use sha2::{Digest as _, Sha256};

/// The cache folder and the user's secret, set by the render; `None`: keep nothing.
static PLACE: OnceLock<Option<(PathBuf, Vec<u8>)>> = OnceLock::new();

const PURPOSE: &str = "kf split library v2";
const POINTER: &str = "kf split library pointer v1";

/// How long before a render a library must have last changed for its stamp to be trusted.
pub const SETTLED: Duration = Duration::from_secs(2);

/// The longest header read (a line per part; ksonnet-lib's has 840 lines, 110 kB).
const MAX_HEADER: usize = 16 << 20;

/// Keep splits in the folder and with the key `place` gives (`None`: keep none). The first
/// call in a process decides.
pub fn set_place(place: impl FnOnce() -> Option<(PathBuf, Vec<u8>)>) {
    PLACE.get_or_init(place);
}

/// A split as made: the main text, and each part's name, newlines before it and text.
pub struct Stored {
    pub main: String,
    pub parts: Vec<(String, usize, String)>,
}

/// A split as kept, opened: its main text and where each part is. Parts are read on demand
/// from the file opened here (a newer split written meanwhile replaces the name, not this
/// file).
pub struct Kept {
    file: Mutex<File>,
    /// Where the texts start in the file.
    body: u64,
    pub main: String,
    pub parts: Vec<Entry>,
}

/// One text of a kept split.
pub struct Entry {
    pub name: String,
    pub newlines: usize,
    offset: u64,
    len: usize,
    /// Its SHA-256 in hex, as the header has it (decoded only to compare).
    digest: String,
}

/// The header (a line per text: name, newlines, offset, length, SHA-256; the main text
/// first, named "") and the texts.
fn header_and_body(stored: &Stored) -> (String, Vec<u8>) {
    let mut header = String::new();
    let mut body = Vec::with_capacity(stored.main.len() * 2);
    let texts = std::iter::once(("", 0, &stored.main))
        .chain(stored.parts.iter().map(|(n, l, t)| (n.as_str(), *l, t)));
    for (name, newlines, text) in texts {
        let digest = crate::signing::hex(&Sha256::digest(text.as_bytes()));
        header.push_str(&format!(
            "{name}\t{newlines}\t{}\t{}\t{digest}\n",
            body.len(),
            text.len()
        ));
        body.extend_from_slice(text.as_bytes());
    }
    (header, body)
}

fn parse_header(header: &str) -> Option<Vec<Entry>> {
    let entry = |line: &str| {
        let mut fields = line.split('\t');
        let name = fields.next()?.to_string();
        let newlines = fields.next()?.parse().ok()?;
        let offset = fields.next()?.parse().ok()?;
        let len = fields.next()?.parse().ok()?;
        let digest = fields.next().filter(|d| d.len() == 64)?.to_string();
        fields.next().is_none().then_some(Entry {
            name,
            newlines,
            offset,
            len,
            digest,
        })
    };
    let entries: Option<Vec<Entry>> = header.lines().map(entry).collect();
    entries.filter(|e| e.first().is_some_and(|main| main.name.is_empty()))
}

/// The text `entry` names, if it reads back as its digest says.
fn read_entry(file: &mut File, body: u64, entry: &Entry) -> Option<String> {
    file.seek(SeekFrom::Start(body.checked_add(entry.offset)?))
        .ok()?;
    let mut text = vec![0; entry.len];
    file.read_exact(&mut text).ok()?;
    (crate::signing::hex(&Sha256::digest(&text)) == entry.digest)
        .then(|| String::from_utf8(text).ok())
        .flatten()
}

/// The split kept under `id`, if its header verifies; its main text is read and checked.
pub fn open(id: &str) -> Option<Kept> {
    let (dir, key) = PLACE.get()?.as_ref()?;
    let mut file = crate::sandbox::open_regular(&dir.join(id)).ok()?;
    // The first line: the signature and the header's length.
    let mut first = Vec::with_capacity(128);
    (&mut file).take(128).read_to_end(&mut first).ok()?;
    let newline = first.iter().position(|&b| b == b'\n')?;
    let (signature, len) = std::str::from_utf8(&first[..newline])
        .ok()?
        .split_once('\t')?;
    let len: usize = len.parse().ok().filter(|&l| l <= MAX_HEADER)?;
    let mut header = vec![0; len];
    file.seek(SeekFrom::Start(newline as u64 + 1)).ok()?;
    file.read_exact(&mut header).ok()?;
    if !crate::signing::verify(key, PURPOSE, &[id.as_bytes(), &header], signature) {
        return None;
    }
    let mut parts = parse_header(std::str::from_utf8(&header).ok()?)?;
    let body = (newline + 1 + len) as u64;
    let main = read_entry(&mut file, body, &parts.remove(0))?;
    Some(Kept {
        file: Mutex::new(file),
        body,
        main,
        parts,
    })
}

impl Kept {
    /// The text of `entry` (one of `self.parts`), if it reads back as kept.
    pub fn text(&self, entry: &Entry) -> Option<String> {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        read_entry(&mut file, self.body, entry)
    }
}

/// Keep `stored` under `id` (best effort: a cache that cannot be written only costs the
/// next run a walk of the library).
pub fn write(id: &str, stored: &Stored) {
    let Some(Some((dir, key))) = PLACE.get() else {
        return;
    };
    let (header, body) = header_and_body(stored);
    let signature = crate::signing::sign(key, PURPOSE, &[id.as_bytes(), header.as_bytes()]);
    let first = format!("{signature}\t{}\n", header.len());
    persist(dir, id, &[first.as_bytes(), header.as_bytes(), &body]);
}

fn persist(dir: &Path, name: &str, chunks: &[&[u8]]) {
    if let Ok(mut file) = tempfile::NamedTempFile::new_in(dir)
        && chunks.iter().all(|chunk| file.write_all(chunk).is_ok())
    {
        let _ = file.persist(dir.join(name));
    }
}

/// A pointer's name: the digest of the library's path and stamp.
fn pointer_name(library: &Path, stamp: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update(POINTER.as_bytes());
    hash.update(library.as_os_str().as_encoded_bytes());
    hash.update([0]);
    hash.update(stamp);
    format!("at-{}", crate::signing::hex(&hash.finalize()))
}

/// The digest of the bytes `library` held when it had `stamp`, if a verified pointer says.
pub fn pointed(library: &Path, stamp: &[u8]) -> Option<[u8; 32]> {
    let (dir, key) = PLACE.get()?.as_ref()?;
    let text =
        crate::sandbox::read_regular_text(&dir.join(pointer_name(library, stamp)), 256).ok()?;
    let (signature, digest) = text.trim_end().split_once('\t')?;
    let path = library.as_os_str().as_encoded_bytes();
    crate::signing::verify(key, POINTER, &[path, stamp, digest.as_bytes()], signature)
        .then(|| crate::signing::unhex(digest)?.try_into().ok())
        .flatten()
}

/// Remember that `library`, with `stamp`, held the bytes of `digest`, if it last changed
/// ([`SETTLED`]) before `read_at`, when they were read.
pub fn point(
    library: &Path,
    stamp: &[u8],
    changed: SystemTime,
    read_at: SystemTime,
    digest: &[u8; 32],
) {
    let Some(Some((dir, key))) = PLACE.get() else {
        return;
    };
    if changed + SETTLED > read_at {
        return;
    }
    let digest = crate::signing::hex(digest);
    let path = library.as_os_str().as_encoded_bytes();
    let signature = crate::signing::sign(key, POINTER, &[path, stamp, digest.as_bytes()]);
    let text = format!("{signature}\t{digest}\n");
    persist(dir, &pointer_name(library, stamp), &[text.as_bytes()]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_lists_every_text_with_its_place_and_digest() {
        let stored = Stored {
            main: "{ a:: (import \"x\")(h) }\n".into(),
            parts: vec![("a".into(), 3, "function(h)\n  { b: 1 }\t\n".into())],
        };
        let (header, body) = header_and_body(&stored);
        let entries = parse_header(&header).unwrap();
        assert_eq!(entries.len(), 2);
        let a = &entries[1];
        assert_eq!((a.name.as_str(), a.newlines), ("a", 3));
        let text = &body[a.offset as usize..a.offset as usize + a.len];
        assert_eq!(text, stored.parts[0].2.as_bytes());
        assert_eq!(crate::signing::hex(&Sha256::digest(text)), a.digest);
        assert!(parse_header("a\t0\t0\t1\tzz\n").is_none(), "no main text");
        assert!(parse_header("\t0\t0\t1\n").is_none(), "no digest");
    }

    #[test]
    fn a_kept_split_reads_back_part_by_part_and_a_damaged_part_alone_fails() {
        let dir = tempfile::tempdir().unwrap();
        let key = b"the user's secret".to_vec();
        set_place(|| Some((dir.path().to_path_buf(), key)));
        let stored = Stored {
            main: "{ a:: (import \"x\")(h) }\n".into(),
            parts: vec![
                ("a".into(), 3, "function(h)\n  { b: 1 }\n".into()),
                ("c".into(), 9, "function(h)\n  { d: 2 }\n".into()),
            ],
        };
        write("id-1", &stored);
        let kept = open("id-1").expect("kept");
        assert_eq!(kept.main, stored.main);
        let texts: Vec<Option<String>> = kept.parts.iter().map(|e| kept.text(e)).collect();
        assert_eq!(
            texts,
            [
                Some(stored.parts[0].2.clone()),
                Some(stored.parts[1].2.clone())
            ]
        );
        assert!(open("id-2").is_none(), "signed for its own name only");
        std::fs::copy(dir.path().join("id-1"), dir.path().join("id-2")).unwrap();
        assert!(open("id-2").is_none(), "a copy under another name");
        // A part's bytes changed: that part no longer reads, the others do.
        let path = dir.path().join("id-1");
        let bytes = std::fs::read(&path).unwrap();
        let at = bytes.windows(6).rposition(|w| w == b"{ d: 2").unwrap();
        let mut damaged = bytes.clone();
        damaged[at + 5] = b'3';
        std::fs::write(&path, &damaged).unwrap();
        let kept = open("id-1").expect("the header still verifies");
        assert_eq!(kept.text(&kept.parts[1]), None);
        assert_eq!(
            kept.text(&kept.parts[0]).as_deref(),
            Some(stored.parts[0].2.as_str())
        );
        // A header changed: nothing of the split is used.
        let mut damaged = bytes;
        let at = damaged.iter().position(|&b| b == b'\n').unwrap() + 1;
        damaged[at + 1] = b'4';
        std::fs::write(&path, &damaged).unwrap();
        assert!(open("id-1").is_none());
    }
}
