// Shared by build.rs and tests/cli.rs (included with `#[path]`): which commit a source tree is at.

use std::path::Path;
use std::process::Command;

/// (short commit hash, commit date YYYY-MM-DD) of the checkout containing `dir`, or None when
/// `dir` is not in a git work tree or git is missing.
pub fn commit_of(dir: &Path) -> Option<(String, String)> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["log", "-1", "--no-show-signature", "--format=%h %cs", "--abbrev=7"])
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let (hash, date) = text.trim().split_once(' ')?;
    let hex = hash.len() >= 7 && hash.bytes().all(|b| b.is_ascii_hexdigit());
    let dated = date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    (hex && dated).then(|| (hash.to_string(), date.to_string()))
}

/// The files whose change means HEAD moved (worktrees keep HEAD and refs in different places); only
/// those that exist, since cargo re-runs a build script on every build when a watched path is missing.
#[allow(dead_code)]
pub fn head_files(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for p in ["HEAD", "logs/HEAD", "packed-refs"] {
        if let Ok(out) = Command::new("git").current_dir(dir).args(["rev-parse", "--git-path", p]).output() {
            if out.status.success() {
                let f = String::from_utf8_lossy(&out.stdout).trim().to_string();
                files.push(if Path::new(&f).is_absolute() { f } else { dir.join(f).display().to_string() });
            }
        }
    }
    if let Ok(out) = Command::new("git").current_dir(dir).args(["symbolic-ref", "-q", "HEAD"]).output() {
        let r = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && !r.is_empty() {
            if let Ok(o) = Command::new("git").current_dir(dir).args(["rev-parse", "--git-path", &r]).output() {
                let f = String::from_utf8_lossy(&o.stdout).trim().to_string();
                files.push(if Path::new(&f).is_absolute() { f } else { dir.join(f).display().to_string() });
            }
        }
    }
    files.retain(|f| Path::new(f).exists());
    files
}
