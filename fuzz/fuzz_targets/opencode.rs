//! Fuzzes the opencode stream decoder: see `agentgate_fuzz::check`.
#![no_main]

use agentgate_providers::opencode::OpencodeDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agentgate_fuzz::check(&mut OpencodeDecoder::new(), data, false);
});
