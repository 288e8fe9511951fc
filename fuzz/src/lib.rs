//! What every decoder fuzz target checks.
//!
//! The input is the CLI's stdout, then optionally a NUL byte and its stderr,
//! each split into lines at `\n`. Beyond "no panic, no hang": no stdout line
//! is dropped. Every non-empty line yields at least one decoded item, except
//! that a decoder that collects a multi-line JSON document (Gemini's json
//! mode) may hold lines that open or continue one, and a plain-text decoder
//! (agy) may hold blank lines as part of the answer's spacing, as long as a
//! later line or `finish` yields something for them.

use agentgate_providers::decode::Decoder;

/// Runs `decoder` over `data` and panics when a stdout line is lost.
/// `plain_text`: the decoder reads plain text (agy), where blank lines are
/// the answer's spacing and trailing ones are trimmed, so they may yield
/// nothing at all.
pub fn check_text(decoder: &mut dyn Decoder, data: &[u8]) {
    check_with(decoder, data, false, true);
}

/// Runs `decoder` over `data` and panics when a stdout line is lost.
pub fn check(decoder: &mut dyn Decoder, data: &[u8], holds_documents: bool) {
    check_with(decoder, data, holds_documents, false);
}

fn check_with(decoder: &mut dyn Decoder, data: &[u8], holds_documents: bool, plain_text: bool) {
    let (stdout, stderr) = match data.iter().position(|&b| b == 0) {
        Some(nul) => (&data[..nul], &data[nul + 1..]),
        None => (data, &data[..0]),
    };
    let mut out = Vec::new();
    let mut held = 0usize;
    for line in stdout.split(|&b| b == b'\n') {
        let before = out.len();
        decoder.stdout_line(line, &mut out);
        if out.len() > before {
            held = 0;
        } else if plain_text && String::from_utf8_lossy(line).trim().is_empty() {
            // Spacing of a plain-text answer.
        } else if !line.is_empty() {
            let may_hold = holds_documents
                && line
                    .first()
                    .is_some_and(|b| matches!(b, b'{' | b' ' | b'\t'));
            assert!(
                may_hold,
                "stdout line yielded nothing: {:?}",
                String::from_utf8_lossy(line)
            );
            held += 1;
        }
        // Keep memory flat over long inputs.
        if out.len() > 4096 {
            out.clear();
        }
    }
    for line in stderr.split(|&b| b == b'\n') {
        decoder.stderr_line(line, &mut out);
    }
    let before = out.len();
    decoder.finish(&mut out);
    assert!(
        held == 0 || out.len() > before,
        "{held} held stdout lines never came out"
    );
}
