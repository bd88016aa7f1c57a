//! A folder beside an app that kf must never change, create anything in, or print: a
//! precious file and a kubeconfig with a token.

use super::{TempApp, snapshot, write};

/// A folder beside the app holding something precious; kf must never touch it.
pub struct Sentinel {
    pub dir: std::path::PathBuf,
    before: Vec<(std::path::PathBuf, Vec<u8>)>,
    names: Vec<String>,
}

fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

impl Sentinel {
    pub fn beside(app: &TempApp) -> Sentinel {
        let dir = app.root.parent().unwrap().join("outside");
        write(dir.join("precious/keep.txt"), "precious\n");
        write(
            dir.join("kubeconfig"),
            "apiVersion: v1\nusers:\n- name: u\n  user:\n    token: SECRET-TOKEN-123\n",
        );
        let mut s = Sentinel {
            dir,
            before: Vec::new(),
            names: Vec::new(),
        };
        s.refresh();
        s
    }

    /// Take what is there now as what must stay.
    pub fn refresh(&mut self) {
        self.before = snapshot(&self.dir);
        self.names = entries(&self.dir);
    }

    pub fn assert_unchanged(&self) {
        assert_eq!(
            snapshot(&self.dir),
            self.before,
            "kf changed a folder outside the app"
        );
        assert_eq!(
            entries(&self.dir),
            self.names,
            "kf created something outside the app"
        );
    }
}
