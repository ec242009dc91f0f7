//! Stamps the commit the binary was built from into `unstuck --version`
//! (`unstuck 0.1.0 (commit abcdef1, 2026-11-23)`; `commit unknown` outside a git checkout).
//! UNSTUCK_BUILD_COMMIT / UNSTUCK_BUILD_DATE override it (builds from a source archive).

#[path = "build_git.rs"]
mod build_git;

fn main() {
    let dir = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build_git.rs");
    println!("cargo:rerun-if-env-changed=UNSTUCK_BUILD_COMMIT");
    println!("cargo:rerun-if-env-changed=UNSTUCK_BUILD_DATE");
    for f in build_git::head_files(&dir) {
        println!("cargo:rerun-if-changed={f}");
    }
    let (commit, date) = match (std::env::var("UNSTUCK_BUILD_COMMIT"), std::env::var("UNSTUCK_BUILD_DATE")) {
        (Ok(c), Ok(d)) if !c.is_empty() => (c, d),
        _ => build_git::commit_of(&dir).unwrap_or_default(),
    };
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    let long = match (commit.is_empty(), date.is_empty()) {
        (true, _) => format!("{version} (commit unknown)"),
        (false, true) => format!("{version} (commit {commit})"),
        (false, false) => format!("{version} (commit {commit}, {date})"),
    };
    println!("cargo:rustc-env=UNSTUCK_LONG_VERSION={long}");
}
