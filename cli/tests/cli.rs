//! The `rocksfilter` command line, run as a user would.

use std::path::PathBuf;
use std::process::Command;

fn rf(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rocksfilter")).args(args).output().expect("run rocksfilter");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocksfilter-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn build_info_query_round_trip_matches_the_library() {
    let keys = tmp("keys.txt");
    let text: String = (0..5000).map(|i| format!("key{i:05}\n")).collect();
    std::fs::write(&keys, &text).unwrap();
    for (policy, kind) in [("bloom", "FastLocalBloom"), ("ribbon", "Standard128Ribbon"), ("legacy", "LegacyBloom")] {
        let out = tmp(&format!("{policy}.bin"));
        let (ok, stdout, stderr) = rf(&["build", "--policy", policy, "--bits-per-key", "10", "--keys", keys.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(ok, "{stderr}");
        assert!(stdout.contains("5000 entries"), "{stdout}");
        // Same bytes as the library API.
        let policy_enum = match policy {
            "bloom" => rocksfilter::Policy::Bloom,
            "ribbon" => rocksfilter::Policy::Ribbon,
            _ => rocksfilter::Policy::LegacyBloom,
        };
        let mut b = rocksfilter::FilterBuilder::new(policy_enum, 10.0).unwrap();
        for i in 0..5000 {
            b.add_key(format!("key{i:05}").as_bytes());
        }
        assert_eq!(std::fs::read(&out).unwrap(), b.finish().unwrap());

        let (ok, stdout, _) = rf(&["info", out.to_str().unwrap(), "--keys", "5000"]);
        assert!(ok && stdout.contains(kind), "{stdout}");
        assert!(stdout.contains("est. FP"), "{stdout}");
        if policy == "ribbon" {
            assert!(stdout.contains("num_blocks:") && stdout.contains("seed:") && stdout.contains("columns:"), "{stdout}");
        }

        let (ok, stdout, _) = rf(&["query", out.to_str().unwrap(), "key00042", "key04999"]);
        assert!(ok);
        assert_eq!(stdout.matches("may match").count(), 2, "{stdout}");
    }
}

#[test]
fn hex_keys_reach_binary_bytes() {
    let keys = tmp("hex.txt");
    std::fs::write(&keys, "00ff10\n\n41\n").unwrap();
    let out = tmp("hex.bin");
    let (ok, _, stderr) = rf(&["build", "--hex", "--keys", keys.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let f = rocksfilter::Filter::from_vec(std::fs::read(&out).unwrap()).unwrap();
    assert!(f.may_match(&[0x00, 0xff, 0x10]) && f.may_match(b"") && f.may_match(b"A"));
    let (_, stdout, _) = rf(&["query", "--hex", out.to_str().unwrap(), "00ff10"]);
    assert!(stdout.contains("may match"), "{stdout}");
}

#[test]
fn bad_inputs_give_clear_errors_and_nonzero_exit() {
    let (ok, _, stderr) = rf(&["info", "/nonexistent/filter.bin"]);
    assert!(!ok && stderr.contains("/nonexistent/filter.bin") && stderr.contains("No such file"), "{stderr}");

    let junk = tmp("junk.bin");
    let mut bytes = vec![7u8; 95];
    bytes.extend_from_slice(&[3, 0xff, 0xff, 0xff, 0x0f]); // legacy trailer, absurd line count
    std::fs::write(&junk, &bytes).unwrap();
    // RocksDB reads a legacy geometry with no solution as "always true".
    let (ok, stdout, stderr) = rf(&["info", junk.to_str().unwrap()]);
    assert!(ok && stdout.contains("always-true"), "{stdout}{stderr}");

    let (ok, _, stderr) = rf(&["inspect", junk.to_str().unwrap()]);
    assert!(!ok && stderr.contains("magic"), "{stderr}");

    let bad_hex = tmp("bad.hex");
    std::fs::write(&bad_hex, "0g\n").unwrap();
    let (ok, _, stderr) = rf(&["build", "--hex", "--keys", bad_hex.to_str().unwrap(), "-o", tmp("x.bin").to_str().unwrap()]);
    assert!(!ok && stderr.contains("bad.hex:1"), "{stderr}");

    let keys = tmp("k.txt");
    std::fs::write(&keys, "a\n").unwrap();
    let (ok, _, stderr) = rf(&["build", "--bits-per-key", "0.2", "--keys", keys.to_str().unwrap(), "-o", tmp("y.bin").to_str().unwrap()]);
    assert!(!ok && stderr.contains("below 0.5"), "{stderr}");
}
