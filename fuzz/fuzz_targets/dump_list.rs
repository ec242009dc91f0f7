#![no_main]
//! Dump list files (`<ns>/pods.json`, `events.json`, `nodes.json`): whatever the SIMD JSON front end
//! (sonic-rs) accepts, serde_json accepts with the same objects. The bundle reader uses the first and
//! falls back to the second when it refuses (sonic-rs also checks UTF-8 inside skipped fields, which
//! serde_json does not: found by this target), so the reader accepts exactly what serde_json accepts.
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use unstuck_model::{Event, Node, Pod};

#[derive(Deserialize, PartialEq, Debug)]
#[serde(bound = "T: DeserializeOwned")]
struct List<T> {
    #[serde(default)]
    items: Vec<T>,
}

fn agree<T: DeserializeOwned + PartialEq + std::fmt::Debug>(data: &[u8]) {
    if let Ok(simd) = sonic_rs::from_slice::<List<T>>(data) {
        let reference = serde_json::from_slice::<List<T>>(data).ok();
        assert_eq!(Some(simd), reference, "sonic-rs accepted what serde_json reads differently");
    }
}

fuzz_target!(|data: &[u8]| {
    agree::<Pod>(data);
    agree::<Event>(data);
    agree::<Node>(data);
});
