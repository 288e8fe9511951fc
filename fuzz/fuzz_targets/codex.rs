//! Fuzzes the codex stream decoder: see `agentgate_fuzz::check`.
#![no_main]

use agentgate_providers::codex::CodexDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agentgate_fuzz::check(&mut CodexDecoder::new(), data, false);
});
