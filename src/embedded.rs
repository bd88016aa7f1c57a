//! Files built into the binary: kf's generic prototypes and its built-in registry.

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// Files whose embedded path starts with `prefix`.
pub fn files_under(prefix: &str) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    FILES
        .iter()
        .copied()
        .filter(move |(path, _)| path.starts_with(prefix))
}
