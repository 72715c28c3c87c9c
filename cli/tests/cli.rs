//! The `rocksfilter` command line, run as a user would.

use std::path::PathBuf;
use std::process::Command;

fn rf(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rocksfilter")).args(args).output().expect("run rocksfilter");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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
        let (ok, stdout, stderr) = rf(&[
            "build",
            "--policy",
            policy,
            "--bits-per-key",
            "10",
            "--keys",
            keys.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
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
            assert!(
                stdout.contains("num_blocks:") && stdout.contains("seed:") && stdout.contains("columns:"),
                "{stdout}"
            );
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
    let (ok, _, stderr) =
        rf(&["build", "--hex", "--keys", bad_hex.to_str().unwrap(), "-o", tmp("x.bin").to_str().unwrap()]);
    assert!(!ok && stderr.contains("bad.hex:1"), "{stderr}");

    let keys = tmp("k.txt");
    std::fs::write(&keys, "a\n").unwrap();
    let (ok, _, stderr) =
        rf(&["build", "--bits-per-key", "0.2", "--keys", keys.to_str().unwrap(), "-o", tmp("y.bin").to_str().unwrap()]);
    assert!(!ok && stderr.contains("below 0.5"), "{stderr}");
}

#[test]
fn build_by_fp_rate_budget_and_banding_table_matches_the_library() {
    use rocksfilter::{BuilderOptions, FilterBuilder, Policy, RibbonFailure};
    let keys = tmp("sized.txt");
    let text: String = (0..20_000).map(|i| format!("key{i:05}\n")).collect();
    std::fs::write(&keys, &text).unwrap();
    let cases: Vec<(&[&str], BuilderOptions)> = vec![
        (&["--policy", "bloom", "--fpr", "0.01"], BuilderOptions::new(Policy::Bloom).fp_rate(0.01)),
        (&["--policy", "ribbon", "--fpr", "0.001"], BuilderOptions::new(Policy::Ribbon).fp_rate(0.001)),
        (&["--policy", "bloom", "--max-bytes", "8192"], BuilderOptions::new(Policy::Bloom).max_bytes(8192)),
        (
            &["--policy", "ribbon", "--fpr", "0.01", "--ribbon-failure", "1000"],
            BuilderOptions::new(Policy::Ribbon).fp_rate(0.01).ribbon_failure(RibbonFailure::OneIn1000),
        ),
    ];
    for (i, (flags, opts)) in cases.iter().enumerate() {
        let out = tmp(&format!("sized{i}.bin"));
        let mut args = vec!["build"];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["--keys", keys.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        let (ok, stdout, stderr) = rf(&args);
        assert!(ok && stdout.contains("estimated FP rate"), "{flags:?}: {stdout}{stderr}");
        let mut b = FilterBuilder::with_options(opts).unwrap();
        (0..20_000).for_each(|i| b.add_key(format!("key{i:05}").as_bytes()));
        assert_eq!(std::fs::read(&out).unwrap(), b.finish().unwrap(), "{flags:?}");
    }
    for (flags, message) in [
        (&["--fpr", "0.01", "--max-bytes", "9000"][..], "cannot be used with"),
        (&["--fpr", "1.5"][..], "strictly between 0 and 1"),
        (&["--ribbon-failure", "100"][..], "1-in-1000"),
        (&["--max-bytes", "10"][..], "below the smallest"),
    ] {
        let mut args = vec!["build", "--keys", keys.to_str().unwrap(), "-o", "/dev/null"];
        args.extend_from_slice(flags);
        let (ok, _, stderr) = rf(&args);
        assert!(!ok && stderr.contains(message), "{flags:?}: {stderr}");
    }
}

#[test]
fn query_reads_keys_from_a_file() {
    let keys = tmp("q.txt");
    std::fs::write(&keys, "apple\nbanana\n").unwrap();
    let out = tmp("q.bin");
    let (ok, _, stderr) = rf(&["build", "--keys", keys.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let probe = tmp("probe.txt");
    std::fs::write(&probe, "banana\napple\n").unwrap();
    let (ok, stdout, stderr) = rf(&["query", out.to_str().unwrap(), "cherry", "--keys", probe.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].starts_with("cherry\t"), "{stdout}");
    assert_eq!(&lines[1..], ["banana\tmay match", "apple\tmay match"], "{stdout}");
    let hex = tmp("probe.hex");
    std::fs::write(&hex, "6170706c65\n").unwrap();
    let (ok, stdout, _) = rf(&["query", "--hex", out.to_str().unwrap(), "--keys", hex.to_str().unwrap()]);
    assert!(ok && stdout == "6170706c65\tmay match\n", "{stdout}");
}

/// The `rocksfilter size` example BENCHMARKS.md shows (cli/tests/size-example.txt:
/// the command on its first line after "$ ", then its output) is what the
/// command prints, and its --json form has the same rows.
#[test]
fn size_prints_the_documented_example() {
    let example = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/size-example.txt")).unwrap();
    let (command, expected) = example.split_once('\n').unwrap();
    let args: Vec<&str> = command.strip_prefix("$ rocksfilter ").expect("$ rocksfilter ...").split(' ').collect();
    let (ok, stdout, stderr) = rf(&args);
    assert!(ok, "{stderr}");
    assert_eq!(
        stdout,
        expected,
        "cli/tests/size-example.txt (BENCHMARKS.md) out of date: run `rocksfilter {}`",
        args.join(" ")
    );

    let mut json_args = args.clone();
    json_args.push("--json");
    let (ok, stdout, stderr) = rf(&json_args);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["filter"].as_str().unwrap()).collect();
    for want in [
        "Bloom at RocksDB's bits/key",
        "Ribbon at RocksDB's bits/key",
        "Ribbon at RocksDB's bits/key, 1-in-1000",
        "Bloom sized for the rate",
        "Ribbon sized for the rate",
        "Ribbon sized for the rate, 1-in-1000",
        "information-theoretic floor",
        "BinaryFuse8 (xorf)",
        "BinaryFuse16 (xorf)",
    ] {
        assert!(names.contains(&want), "--json lacks {want}: {names:?}");
    }
    // Every row of the text is a row of the JSON, same bytes.
    for r in rows {
        let line =
            expected.lines().find(|l| l.starts_with(&format!("{:<40} ", r["filter"].as_str().unwrap()))).unwrap();
        assert!(line.contains(&format!(" {} ", r["bytes"])), "{line} vs {r}");
    }
    for r in rows.iter().filter(|r| r["rocksdb_reads_it"] == true && r["how"].as_str().unwrap().starts_with("--fpr")) {
        assert_eq!(r["meets_target"], true, "{r}");
    }
}

#[path = "../../tests/support/craft.rs"]
mod craft;

/// `inspect` says why a file that does not record whole-key filtering is
/// read as it is: RocksDB's default, or (an unknown comparator, Pebble v2's
/// Split files) a filter of prefixes where every key may match.
#[test]
fn inspect_explains_an_unrecorded_whole_key_setting() {
    let keys: Vec<Vec<u8>> = (0..2000).map(|i| format!("tbl/{i:08x}").into_bytes()).collect();
    let base = craft::Crafted::synthetic(&keys, rocksfilter::Policy::Bloom, None);
    let plain = tmp("plain.sst");
    std::fs::write(&plain, base.finish()).unwrap();
    let (ok, stdout, stderr) = rf(&["inspect", plain.to_str().unwrap()]);
    assert!(ok && stdout.contains("whole-key filter:   true (not recorded: RocksDB's default)"), "{stdout}{stderr}");
    let mut pebble = base.clone();
    pebble.edit_property("rocksdb.comparator", b"cockroach_comparator".to_vec());
    let split = tmp("split.sst");
    std::fs::write(&split, pebble.finish()).unwrap();
    let (ok, stdout, stderr) = rf(&["inspect", split.to_str().unwrap()]);
    assert!(
        ok && stdout
            .contains("whole-key filter:   false (not recorded, and the comparator is not one this library knows"),
        "{stdout}{stderr}"
    );
    let (_, stdout, _) = rf(&["query", split.to_str().unwrap(), "absent-key"]);
    assert!(stdout.contains("may match"), "{stdout}");
}

/// README.md's table of filters that can delete is `rocksfilter size --keys
/// 950000 --fpr 0.01 --json`'s measured rows (the builds and probes are
/// deterministic: the cuckoo filter's kicks take a seeded generator), and
/// each such row says it deletes, how its inserts fail and that its FP rate
/// was measured.
#[test]
fn the_readme_table_of_deleting_filters_is_this_run() {
    let (ok, stdout, stderr) = rf(&["size", "--keys", "950000", "--fpr", "0.01", "--json"]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let mut seen = 0;
    for r in v["rows"].as_array().unwrap().iter().filter(|r| r["deletes"] == true) {
        seen += 1;
        let name = r["filter"].as_str().unwrap();
        assert_eq!(r["fp_rate_is"], "measured", "{r}");
        assert!(r["insert_failure"].as_str().is_some_and(|f| !f.is_empty()), "{r}");
        let cell = format!(
            "| {:.2} bits/key, {:.3}% |",
            r["bits_per_key"].as_f64().unwrap(),
            100.0 * r["fp_rate"].as_f64().unwrap()
        );
        let row = readme.lines().find(|l| l.starts_with(&format!("| {name} |")));
        assert!(
            row.is_some_and(|l| l.contains(&cell)),
            "README.md's row for {name} should hold {cell} (this run's figures): {row:?}"
        );
    }
    assert_eq!(seen, 3, "counting Bloom, cuckoo and quotient rows: {stdout}");
}
