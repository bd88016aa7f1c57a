//! docs/prototypes/ is generated from the prototypes' annotations; this fails when the
//! committed pages are stale. Regenerate with `KF_UPDATE_GOLDEN=1 cargo test --test docs`.

#[path = "docs/pages.rs"]
mod pages;

use std::path::PathBuf;

#[test]
fn prototype_docs_are_up_to_date() {
    let catalog = kf::prototype::Catalog::for_app(None).expect("built-in prototypes parse");
    let pages = pages::prototype_pages(&catalog);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/prototypes");
    let hand_written = ["generic.md"];
    let update = std::env::var_os("KF_UPDATE_GOLDEN").is_some();

    let mut stale = Vec::new();
    for (file, text) in &pages {
        let path = dir.join(file);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            if update {
                std::fs::write(&path, text).unwrap();
            } else {
                stale.push(file.clone());
            }
        }
    }
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let generated = pages.iter().any(|(f, _)| *f == name);
        if !generated && !hand_written.contains(&name.as_str()) {
            if update {
                std::fs::remove_file(entry.path()).unwrap();
            } else {
                stale.push(format!("{name} (no such prototype)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "docs/prototypes is stale: {stale:?}; run `KF_UPDATE_GOLDEN=1 cargo test --test docs`"
    );
    // Every prototype has a page that lists each of its params.
    for proto in catalog.prototypes.values() {
        let (_, page) = pages
            .iter()
            .find(|(f, _)| *f == format!("{}.md", proto.short_name()))
            .unwrap_or_else(|| panic!("no page for {}", proto.name));
        for p in &proto.params {
            assert!(
                page.contains(&format!("| `{}` |", p.name)),
                "{}: {}",
                proto.name,
                p.name
            );
        }
    }
}
