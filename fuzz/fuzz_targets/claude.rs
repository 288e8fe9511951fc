//! Fuzzes the claude stream decoder: see `agentgate_fuzz::check`.
#![no_main]

use agentgate_providers::claude::ClaudeDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agentgate_fuzz::check(&mut ClaudeDecoder::new(), data, false);
});
