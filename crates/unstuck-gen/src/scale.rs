//! Placeholder module for the scale generator (benchmarks); see `scale::write`.
pub fn main(_args: &[String]) -> anyhow::Result<()> {
    anyhow::bail!("scale generator not written yet")
}
