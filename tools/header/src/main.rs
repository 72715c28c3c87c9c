//! Generates `include/rocksfilter.h` from the C ABI in `src/ffi` with
//! cbindgen (configured by `cbindgen.toml`), adding the version macros.
//!
//! ```text
//! cargo run -p rocksfilter-header            # rewrite include/rocksfilter.h
//! cargo run -p rocksfilter-header -- --check # exit 1 if it is stale
//! ```
//!
//! Ordinary builds never touch the tree: the header is committed, and
//! `make header-check` (in `make test`) and this crate's test fail when it
//! is stale.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The repository root (this crate lives in `tools/header`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

/// The library's version, from the root Cargo.toml's `[package]`.
fn version(root: &Path) -> (String, String, String) {
    let toml = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let v = toml
        .lines()
        .find_map(|l| l.strip_prefix("version = \"").and_then(|r| r.strip_suffix('"')))
        .expect("version = \"...\" in Cargo.toml");
    let mut parts = v.split('.').map(str::to_string);
    let mut next = || parts.next().expect("MAJOR.MINOR.PATCH");
    (next(), next(), next())
}

/// The header's text, as generated from the sources now.
pub fn generate(root: &Path) -> Result<Vec<u8>, String> {
    let mut config = cbindgen::Config::from_file(root.join("cbindgen.toml")).map_err(|e| e.to_string())?;
    let (major, minor, patch) = version(root);
    let versions = format!(
        "\n/* Version of this header; compare with rocksfilter_version() at run time. */\n\
         #define ROCKSFILTER_VERSION_MAJOR {major}\n\
         #define ROCKSFILTER_VERSION_MINOR {minor}\n\
         #define ROCKSFILTER_VERSION_PATCH {patch}\n\
         #define ROCKSFILTER_VERSION_STRING \"{major}.{minor}.{patch}\"\n\
         #define ROCKSFILTER_VERSION_NUMBER ({major} * 10000 + {minor} * 100 + {patch})\n"
    );
    config.after_includes = Some(format!("{}{}", versions, config.after_includes.unwrap_or_default()));
    let bindings = cbindgen::Builder::new()
        .with_crate(root)
        .with_config(config)
        .generate()
        .map_err(|e| format!("cbindgen: {e}"))?;
    let mut out = Vec::new();
    bindings.write(&mut out);
    Ok(out)
}

fn main() -> ExitCode {
    let check = std::env::args().skip(1).any(|a| a == "--check");
    let root = root();
    let path = root.join("include/rocksfilter.h");
    let text = match generate(&root) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("rocksfilter-header: {e}");
            return ExitCode::FAILURE;
        }
    };
    let current = std::fs::read(&path).unwrap_or_default();
    if check {
        if current == text {
            println!("header-check: include/rocksfilter.h is current");
            ExitCode::SUCCESS
        } else {
            eprintln!("include/rocksfilter.h is stale: run `cargo run -p rocksfilter-header` and commit it");
            ExitCode::FAILURE
        }
    } else if current == text {
        println!("include/rocksfilter.h unchanged");
        ExitCode::SUCCESS
    } else {
        match std::fs::write(&path, &text) {
            Ok(()) => {
                println!("wrote {}", path.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("rocksfilter-header: {}: {e}", path.display());
                ExitCode::FAILURE
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// A plain `cargo test` fails on a stale committed header.
    #[test]
    fn committed_header_is_current() {
        let root = super::root();
        let want = super::generate(&root).unwrap();
        let have = std::fs::read(root.join("include/rocksfilter.h")).unwrap();
        assert!(have == want, "include/rocksfilter.h is stale: run `cargo run -p rocksfilter-header` and commit it");
    }
}
