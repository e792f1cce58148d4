//! Records the optimisation level this crate is compiled at, so benchmarks can
//! say what they measured (see `sim_core::BUILD_OPT_LEVEL`).

fn main() {
    let opt = std::env::var("OPT_LEVEL").unwrap_or_else(|_| "unknown".into());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=SIM_CORE_OPT_LEVEL={opt}");
    println!("cargo:rustc-env=SIM_CORE_PROFILE={profile}");
    println!("cargo:rerun-if-changed=build.rs");
}
