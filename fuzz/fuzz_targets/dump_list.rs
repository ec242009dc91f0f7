#![no_main]
//! Dump list files (`<ns>/pods.json`, `events.json`, `nodes.json`): the SIMD JSON front end (sonic-rs)
//! and serde_json must accept the same inputs and read the same objects (the bundle reader uses the
//! first and falls back to the second for its error messages).
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
    let simd = sonic_rs::from_slice::<List<T>>(data).ok();
    let reference = serde_json::from_slice::<List<T>>(data).ok();
    assert_eq!(simd, reference, "front ends disagree");
}

fuzz_target!(|data: &[u8]| {
    agree::<Pod>(data);
    agree::<Event>(data);
    agree::<Node>(data);
});
