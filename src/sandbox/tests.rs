use super::*;
use std::os::unix::fs::symlink;

fn fifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[test]
fn state_files_of_every_wrong_kind_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("secret"), "token: x").unwrap();
    symlink(d.join("secret"), d.join("link")).unwrap();
    fifo(&d.join("fifo"));
    std::fs::create_dir(d.join("folder")).unwrap();
    std::fs::write(d.join("big"), vec![b'x'; 2048]).unwrap();
    assert!(matches!(
        read_regular(&d.join("link"), 100),
        Err(ReadError::Symlink { .. })
    ));
    assert!(matches!(
        read_regular(&d.join("fifo"), 100),
        Err(ReadError::NotRegular { what: "a FIFO", .. })
    ));
    assert!(matches!(
        read_regular(&d.join("folder"), 100),
        Err(ReadError::NotRegular { .. })
    ));
    assert!(matches!(
        read_regular(Path::new("/dev/zero"), 100),
        Err(ReadError::NotRegular {
            what: "a device",
            ..
        })
    ));
    assert!(matches!(
        read_regular(&d.join("big"), 1024),
        Err(ReadError::TooLarge { .. })
    ));
    assert!(
        read_regular(&d.join("missing"), 1)
            .unwrap_err()
            .is_not_found()
    );
    assert_eq!(read_regular(&d.join("secret"), 100).unwrap(), b"token: x");
}

#[test]
fn a_file_the_user_named_is_followed_but_never_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("values.yaml"), "a: 1").unwrap();
    symlink(d.join("values.yaml"), d.join("link")).unwrap();
    fifo(&d.join("fifo"));
    assert_eq!(read_named(&d.join("link"), 100).unwrap(), "a: 1");
    assert!(matches!(
        read_named(&d.join("fifo"), 100),
        Err(ReadError::NotRegular { what: "a FIFO", .. })
    ));
    assert!(matches!(
        read_named(Path::new("/dev/zero"), 100),
        Err(ReadError::NotRegular { .. })
    ));
    assert!(matches!(
        read_named(&d.join("values.yaml"), 2),
        Err(ReadError::TooLarge { .. })
    ));
}

#[test]
fn a_sandbox_reads_through_inner_symlinks_and_never_out() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    std::fs::create_dir_all(app.join("components")).unwrap();
    std::fs::write(dir.path().join("outside"), "secret").unwrap();
    std::fs::write(app.join("components/a.yaml"), "a").unwrap();
    symlink(app.join("components/a.yaml"), app.join("inner")).unwrap();
    symlink(dir.path().join("outside"), app.join("out")).unwrap();
    symlink("/dev/zero", app.join("zero")).unwrap();
    fifo(&app.join("fifo"));
    let sandbox = Sandbox::new([&app]);
    assert_eq!(sandbox.read(&app.join("inner")).unwrap(), b"a");
    for outside in ["out", "components/../../outside", "zero"] {
        assert!(
            matches!(
                sandbox.read(&app.join(outside)),
                Err(ReadError::Outside { .. })
            ),
            "{outside}"
        );
    }
    assert!(matches!(
        sandbox.read(&app.join("fifo")),
        Err(ReadError::NotRegular { .. })
    ));
    assert!(matches!(
        Sandbox::none().read(&app.join("inner")),
        Err(ReadError::Outside { .. })
    ));
}

#[derive(Debug)]
struct Digests(Vec<(String, [u8; 32])>);

impl KnownDigests for Digests {
    fn digest_of(&self, path: &str) -> Option<[u8; 32]> {
        self.0.iter().find(|(p, _)| p == path).map(|(_, d)| *d)
    }
}

#[test]
fn a_verified_folder_gives_only_the_files_kf_wrote_unchanged() {
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(cache.join("k8s")).unwrap();
    std::fs::write(cache.join("k8s/a.libsonnet"), "{}").unwrap();
    std::fs::write(cache.join("k8s/b.libsonnet"), "{ b: 1 }").unwrap();
    std::fs::write(cache.join("extra.libsonnet"), "{}").unwrap();
    let written: [u8; 32] = sha2::Sha256::digest(b"{}").into();
    let digests = Digests(vec![
        ("k8s/a.libsonnet".into(), written),
        ("k8s/b.libsonnet".into(), written),
    ]);
    let sandbox = Sandbox::none().with_verified(&cache, std::sync::Arc::new(digests));
    let real = real_dir(&cache).unwrap();
    assert_eq!(sandbox.read(&real.join("k8s/a.libsonnet")).unwrap(), b"{}");
    // Changed since kf wrote it, or never written by kf.
    for path in ["k8s/b.libsonnet", "extra.libsonnet"] {
        assert!(
            matches!(
                sandbox.read(&real.join(path)),
                Err(ReadError::Changed { .. })
            ),
            "{path}"
        );
    }
}
