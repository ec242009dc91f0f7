//! Node log engine: per-line format detection and timestamp parsing over byte slices, a signature
//! catalog (data), and a scanner that pushes matching lines into a sink.
//!
//! Nothing here allocates per line: the scanner runs one Aho-Corasick pass over the whole buffer and
//! only looks at line boundaries around a match, the way ripgrep does.

mod finder;
pub mod format;
pub mod level;
pub mod scan;
pub mod signatures;
pub mod sniff;

pub use format::{parse_line, Format, Line, TimeCtx};
pub use scan::{scan_reader, scan_slice, ChunkLimits, RawHit, Sink};
pub use signatures::{Catalog, Signature, SignatureError};
pub use sniff::sniff;
