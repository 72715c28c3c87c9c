//! Generates include/rocksfilter.h from the C ABI in src/ffi with cbindgen.
//! The header is committed; CI regenerates it and fails if it changed.

fn main() {
    println!("cargo:rerun-if-changed=src/ffi");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let mut config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let v = |k: &str| std::env::var(k).expect("cargo version variables");
    let (major, minor, patch) = (v("CARGO_PKG_VERSION_MAJOR"), v("CARGO_PKG_VERSION_MINOR"), v("CARGO_PKG_VERSION_PATCH"));
    let versions = format!(
        "\n/* Version of this header; compare with rocksfilter_version() at run time. */\n\
         #define ROCKSFILTER_VERSION_MAJOR {major}\n\
         #define ROCKSFILTER_VERSION_MINOR {minor}\n\
         #define ROCKSFILTER_VERSION_PATCH {patch}\n\
         #define ROCKSFILTER_VERSION_STRING \"{major}.{minor}.{patch}\"\n\
         #define ROCKSFILTER_VERSION_NUMBER ({major} * 10000 + {minor} * 100 + {patch})\n"
    );
    // Versioned SONAME, as cargo-c names it: 0.x releases are compatible
    // within a minor version, so 0.1.z installs librocksfilter.so.0.1.
    let soname = if major == "0" { format!("librocksfilter.so.0.{minor}") } else { format!("librocksfilter.so.{major}") };
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
    config.after_includes = Some(format!("{}{}", versions, config.after_includes.unwrap_or_default()));
    match cbindgen::Builder::new().with_crate(&dir).with_config(config).generate() {
        Ok(bindings) => {
            bindings.write_to_file(format!("{dir}/include/rocksfilter.h"));
        }
        Err(e) => panic!("cbindgen failed: {e}"),
    }
}
