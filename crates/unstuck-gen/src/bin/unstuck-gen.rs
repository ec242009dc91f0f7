use std::path::PathBuf;

use anyhow::{bail, Result};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("examples") => {
            let out = PathBuf::from(args.get(1).map(String::as_str).unwrap_or("examples"));
            for (name, b) in unstuck_gen::scenarios::all() {
                let dir = out.join(name);
                if dir.exists() {
                    std::fs::remove_dir_all(&dir)?;
                }
                b.write(&dir)?;
                println!("wrote {}", dir.display());
            }
            Ok(())
        }
        Some("scale") => unstuck_gen::scale::main(&args[1..]),
        _ => bail!(
            "usage: unstuck-gen examples [DIR] | unstuck-gen scale --nodes N --pods-per-node P --log-mb-per-node M DIR"
        ),
    }
}
