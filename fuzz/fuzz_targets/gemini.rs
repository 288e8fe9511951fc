//! Fuzzes the gemini stream decoder: see `agentgate_fuzz::check`.
#![no_main]

use agentgate_providers::gemini::GeminiDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agentgate_fuzz::check(&mut GeminiDecoder::new(), data, true);
});
