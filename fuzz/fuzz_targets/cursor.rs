//! Fuzzes the cursor stream decoder: see `agentgate_fuzz::check`.
#![no_main]

use agentgate_providers::cursor::CursorDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agentgate_fuzz::check(&mut CursorDecoder::new(), data, false);
});
