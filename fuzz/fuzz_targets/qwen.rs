//! Fuzzes the qwen stream decoder: see `agentgate_fuzz::check`.
#![no_main]

use agentgate_providers::qwen::QwenDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agentgate_fuzz::check(&mut QwenDecoder::new(), data, false);
});
