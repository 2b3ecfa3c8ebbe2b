//! Builds the runtime library of compiled programs (`machine/rt`, a static
//! library) so that `deepcps compile` can carry it and link it into every
//! executable it builds.
//!
//! Cargo cannot hand a static library of one package to another, so this
//! script runs cargo on it, in a target folder of its own beside the
//! workspace's (`target/deepcps-rt`, shared by every profile: built once
//! for debug, test and release builds alike). That build is optimised but
//! incremental and without link-time optimization: an edit of the machine
//! crate costs it about a second, not a second compile of the whole crate
//! (compiled programs call the library on their cold paths only, and the
//! linker keeps only what they reach). The library and the system libraries
//! it needs (`--print native-static-libs`) land in `OUT_DIR`, where
//! `tui/src/compile.rs` includes them.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("tui/ is in the workspace").to_path_buf();
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for watched in ["machine/src", "machine/Cargo.toml", "machine/rt", "Cargo.lock", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    // OUT_DIR is TARGET/PROFILE/build/PKG-HASH/out.
    let target = out.ancestors().nth(4).map_or_else(|| root.join("target"), Path::to_path_buf);
    let rt_target = target.join("deepcps-rt");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args(["rustc", "-p", "deepcps-rt", "--lib", "--release", "--target-dir"])
        .arg(&rt_target)
        .args(["--", "--print", "native-static-libs"])
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "true")
        // Not the wrappers of the outer build (clippy's, a cache's): this
        // build only makes the library.
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR");
    let output = cmd.output().expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        panic!("building the runtime library of compiled programs failed:\n{stderr}");
    }
    // Printed only when rustc links the library anew; kept from the last
    // time otherwise.
    let libs_file = rt_target.join("native-static-libs.txt");
    if let Some(libs) = stderr
        .lines()
        .find_map(|l| l.split_once("native-static-libs: ").map(|(_, r)| r.trim().to_string()))
    {
        std::fs::write(&libs_file, &libs).expect("the runtime's target folder is writable");
    }
    let libs = std::fs::read_to_string(&libs_file).unwrap_or_else(|_| "-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc".into());
    std::fs::write(out.join("rt-libs.txt"), libs.trim()).expect("OUT_DIR is writable");
    std::fs::copy(rt_target.join("release/libdeepcps_rt.a"), out.join("libdeepcps_rt.a")).expect("the runtime library was built");
}
