#![no_main]
//! Dump list files (`<ns>/pods.json`, `events.json`, `nodes.json`): whatever the bundle's fast JSON
//! reader (`unstuck_ingest::json`) accepts, serde_json accepts with the same objects. The bundle reader
//! uses the first and falls back to the second when it refuses, so it accepts exactly what serde_json
//! accepts, with serde_json's error messages.
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
    if let Ok(fast) = unstuck_ingest::json::from_slice::<List<T>>(data) {
        let reference = serde_json::from_slice::<List<T>>(data).ok();
        assert_eq!(Some(fast), reference, "the fast reader accepted what serde_json reads differently");
    }
}

fuzz_target!(|data: &[u8]| {
    agree::<Pod>(data);
    agree::<Event>(data);
    agree::<Node>(data);
    agree::<serde_json::Value>(data);
});
