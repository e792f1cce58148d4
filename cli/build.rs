//! Records the optimisation level the binary is built at, so `lblab bench` can
//! say what it measured (sim-core records its own).

fn main() {
    let opt = std::env::var("OPT_LEVEL").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=LBLAB_OPT_LEVEL={opt}");
    println!("cargo:rerun-if-changed=build.rs");
}
