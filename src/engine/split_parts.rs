//! The big libraries a render reads as parts (see `split_library`): split once per process
//! and shared by the render's threads, or opened from the splits kept between runs
//! (`split_cache`), whose parts are read only when a component reaches them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use super::split_cache::{self, Kept, Stored};
use super::split_library::{MIN_BYTES, PART_MARK, split};

/// A library read as parts: the text to parse in place of the file, and its parts by path.
pub struct Split {
    pub main: String,
    /// The folder the parts are named in (`<file>.kf-part`, which no file has on disk).
    folder: PathBuf,
    parts: HashMap<String, Part>,
    /// Where the texts not read yet are: the kept split, or else the library split again.
    kept: Option<Kept>,
    library: PathBuf,
    digest: [u8; 32],
    remade: OnceLock<Option<HashMap<String, String>>>,
}

struct Part {
    /// How many newlines come before its text (its lines are the library's).
    newlines: usize,
    /// Its entry in the kept split.
    entry: Option<usize>,
    text: OnceLock<Option<Box<str>>>,
}

/// The folder `library`'s parts are named in: `<file>.kf-part`.
fn folder_of(library: &Path) -> PathBuf {
    let name = library.file_name().unwrap_or_default().to_string_lossy();
    library.with_file_name(format!("{name}{}", PART_MARK.trim_end_matches('/')))
}

/// Whether `library` may be read as parts: not when something on disk has the name of
/// its parts' folder, which a part's path would then name (and another file could import
/// before the library, to stand in for a part).
pub fn may_split(library: &Path) -> bool {
    std::fs::symlink_metadata(folder_of(library)).is_err()
}

impl Split {
    fn new(library: &Path, digest: [u8; 32], main: String, kept: Option<Kept>) -> Split {
        Split {
            main,
            folder: folder_of(library),
            parts: HashMap::new(),
            kept,
            library: library.to_path_buf(),
            digest,
            remade: OnceLock::new(),
        }
    }

    fn add(&mut self, name: String, newlines: usize, entry: Option<usize>, text: Option<String>) {
        let part = Part {
            newlines,
            entry,
            text: text
                .map(|t| OnceLock::from(Some(t.into_boxed_str())))
                .unwrap_or_default(),
        };
        self.parts.insert(name, part);
    }

    /// The part at `path`, with its name.
    fn part(&self, path: &Path) -> Option<(&str, &Part)> {
        if path.parent() != Some(self.folder.as_path()) {
            return None;
        }
        let (name, part) = self.parts.get_key_value(path.file_name()?.to_str()?)?;
        Some((name.as_str(), part))
    }

    fn made(library: &Path, digest: [u8; 32], stored: Stored) -> Split {
        let mut split = Split::new(library, digest, stored.main, None);
        for (name, newlines, text) in stored.parts {
            split.add(name, newlines, None, Some(text));
        }
        split
    }

    fn kept(library: &Path, digest: [u8; 32], mut kept: Kept) -> Split {
        let entries: Vec<(String, usize)> = kept
            .parts
            .iter()
            .map(|e| (e.name.clone(), e.newlines))
            .collect();
        let main = std::mem::take(&mut kept.main);
        let mut split = Split::new(library, digest, main, Some(kept));
        for (i, (name, newlines)) in entries.into_iter().enumerate() {
            split.add(name, newlines, Some(i), None);
        }
        split
    }

    /// The text of `part`: read from the kept split, or, if that no longer verifies, from
    /// the library split again, if its bytes are still those the split was made of.
    fn text<'a>(&'a self, name: &str, part: &'a Part) -> Option<&'a str> {
        let read = || {
            let kept = self.kept.as_ref().zip(part.entry);
            kept.and_then(|(kept, i)| kept.text(&kept.parts[i]))
                .or_else(|| self.remade()?.get(name).cloned())
                .map(String::into_boxed_str)
        };
        part.text.get_or_init(read).as_deref()
    }

    fn remade(&self) -> Option<&HashMap<String, String>> {
        let made = || {
            let bytes = crate::sandbox::read_regular(&self.library, 256 * 1024 * 1024).ok()?;
            if <[u8; 32]>::from(<sha2::Sha256 as sha2::Digest>::digest(&bytes)) != self.digest {
                return None;
            }
            let name = self.library.file_name()?.to_str()?;
            let stored = split(name, std::str::from_utf8(&bytes).ok()?)?;
            // The kept split did not check: keep this one in its place, or every later
            // render would split the library again.
            if self.kept.is_some() {
                split_cache::write(&id_of(&self.digest, name), &stored);
            }
            Some(stored.parts.into_iter().map(|(n, _, t)| (n, t)).collect())
        };
        self.remade.get_or_init(made).as_ref()
    }
}

/// What the file system says of a file (device, inode, size, modification and change
/// times), and when it was asked.
#[derive(Clone, Copy)]
pub struct Stamp {
    fields: [i64; 7],
    taken: SystemTime,
}

impl PartialEq for Stamp {
    fn eq(&self, other: &Stamp) -> bool {
        self.fields == other.fields
    }
}

impl Stamp {
    fn bytes(&self) -> Vec<u8> {
        self.fields.iter().flat_map(|f| f.to_le_bytes()).collect()
    }

    /// When the file last changed (content or metadata).
    fn changed(&self) -> SystemTime {
        let (secs, nanos) = (self.fields[5], self.fields[6]);
        let since_epoch =
            std::time::Duration::new(secs.max(0) as u64, nanos.clamp(0, 999_999_999) as u32);
        SystemTime::UNIX_EPOCH + since_epoch
    }
}

/// `file`'s stamp, taken now; none for a symlink (its own stamp would not change with
/// the file it names), which is then always read.
#[cfg(unix)]
pub fn stamp(file: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(file)
        .ok()
        .filter(std::fs::Metadata::is_file)?;
    // Casting keeps every bit: a stamp only compares and names.
    let fields = [
        m.dev() as i64,
        m.ino() as i64,
        m.size() as i64,
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ];
    Some(Stamp {
        fields,
        taken: SystemTime::now(),
    })
}

#[cfg(not(unix))]
pub fn stamp(_file: &Path) -> Option<Stamp> {
    None
}

/// The splits made or opened in this process, by file and the SHA-256 of the bytes each
/// was made from, with the file's stamp when that is known to go with them: the render's
/// threads split a library once between them. A file that has not the shape is
/// remembered too (`None`), so that no thread walks it again.
#[allow(clippy::type_complexity)]
static MADE: Mutex<Vec<(PathBuf, [u8; 32], Option<Arc<Split>>, Option<Stamp>)>> =
    Mutex::new(Vec::new());

/// The name a split is kept under: the digest of the library's bytes and of its file
/// name (the main text imports the parts by that name, so `a-b.libsonnet` and
/// `a_b.libsonnet` of the same bytes are two splits).
fn id_of(digest: &[u8; 32], name: &str) -> String {
    let name = <sha2::Sha256 as sha2::Digest>::digest(name.as_bytes());
    format!(
        "{}-{}",
        crate::signing::hex(digest),
        crate::signing::hex(&name)
    )
}

/// The split of `file` as it is now (stamped `now`), without reading it: one this process
/// made, or one a pointer names by the file's stamp.
pub fn seen(file: &Path, now: Stamp) -> Option<Arc<Split>> {
    // (The size: a small file is never split.)
    if now.fields[2] < MIN_BYTES as i64 {
        return None;
    }
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, split, _)) = made
        .iter()
        .find(|(p, _, _, was)| p == file && *was == Some(now))
    {
        return split.clone();
    }
    let digest = split_cache::pointed(file, &now.bytes())?;
    let kept = split_cache::open(&id_of(&digest, file.file_name()?.to_str()?))?;
    let split = Arc::new(Split::kept(file, digest, kept));
    made.retain(|(path, _, _, _)| path != file);
    made.push((file.to_path_buf(), digest, Some(split.clone()), Some(now)));
    Some(split)
}

/// `file`'s text (`bytes`, read after the file was stamped `before`) as parts, if it is
/// big, UTF-8 and of the shape (see `split_library`).
pub fn split_file(file: &Path, before: Option<Stamp>, bytes: &[u8]) -> Option<Arc<Split>> {
    if bytes.len() < MIN_BYTES {
        return None;
    }
    let digest: [u8; 32] = <sha2::Sha256 as sha2::Digest>::digest(bytes).into();
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, split, _)) = made.iter().find(|(p, d, _, _)| p == file && *d == digest) {
        return split.clone();
    }
    // Kept between runs under the digest and the file's name (the main text imports its
    // parts by that name, which must be text: two names that are not would read alike).
    let name = file.file_name()?.to_str()?.to_owned();
    let id = id_of(&digest, &name);
    let split = match split_cache::open(&id) {
        Some(kept) => Some(Split::kept(file, digest, kept)),
        None => split(&name, std::str::from_utf8(bytes).ok()?).map(|stored| {
            split_cache::write(&id, &stored);
            Split::made(file, digest, stored)
        }),
    }
    .map(Arc::new);
    // The stamp goes with these bytes only if the file did not change while it was read.
    let unchanged = before.filter(|b| stamp(file) == Some(*b));
    if let (Some(stamp), Some(_)) = (unchanged, &split) {
        split_cache::point(file, &stamp.bytes(), stamp.changed(), stamp.taken, &digest);
    }
    made.retain(|(path, _, _, _)| path != file);
    made.push((file.to_path_buf(), digest, split.clone(), unchanged));
    split
}

/// The libraries an engine reads as parts. They hold no Jsonnet value.
#[derive(Default)]
pub struct Parts(Vec<Arc<Split>>);

// Text only: no garbage-collected value to trace.
impl jrsonnet_gcmodule::Trace for Parts {
    fn is_type_tracked() -> bool {
        false
    }
}
// SAFETY: text only: no garbage-collected value to trace.
unsafe impl jrsonnet_gcmodule::Acyclic for Parts {}

impl Parts {
    pub fn add(&mut self, split: Arc<Split>) {
        if !self.0.iter().any(|s| Arc::ptr_eq(s, &split)) {
            self.0.push(split);
        }
    }

    /// Whether `path`, imported from `from`, is a part's: only the library and its parts
    /// import parts (to any other file the path names nothing, as it does on disk).
    pub fn has(&self, from: &Path, path: &Path) -> bool {
        self.0.iter().any(|split| {
            split.part(path).is_some()
                && (from == split.library || from.parent() == Some(split.folder.as_path()))
        })
    }

    /// The text of the part at `path`, if it is one, on the library's own lines; `None`
    /// inside if it can no longer be read (its kept copy is damaged and the library has
    /// changed since).
    pub fn get(&self, path: &Path) -> Option<Option<Vec<u8>>> {
        self.0.iter().find_map(|split| {
            let (name, part) = split.part(path)?;
            Some(split.text(name, part).map(|text| {
                let mut out = Vec::with_capacity(part.newlines + text.len());
                out.resize(part.newlines, b'\n');
                out.extend_from_slice(text.as_bytes());
                out
            }))
        })
    }
}
