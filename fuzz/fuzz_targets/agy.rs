//! Fuzzes the agy stream decoder: see `agentgate_fuzz::check`.
#![no_main]

use agentgate_providers::agy::AgyDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agentgate_fuzz::check_text(&mut AgyDecoder::new(), data);
});
