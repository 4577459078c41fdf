//! Compiles every `.proto` under `proto/` with protox (no system `protoc`) and prost.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = PathBuf::from("proto");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&proto_dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "proto"))
        .collect();
    files.sort();
    println!("cargo:rerun-if-changed=proto");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let fds = protox::compile(&files, [&proto_dir])?;
    prost_build::Config::new()
        // Byte fields become `bytes::Bytes`, so decoded messages slice the frame instead of copying.
        .bytes(["."])
        .compile_fds(fds)?;
    Ok(())
}
