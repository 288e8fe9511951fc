//! What the providers' tests share: a plain request and the argv a
//! provider makes of it, and a decoder fed whole lines.

use std::path::{Path, PathBuf};

use super::provider::{CliRequest, Provider};
use super::scratch::Scratch;
use crate::decode::{Decoded, Decoder};

/// `do it` in `/work`, everything else default.
pub fn req() -> CliRequest {
    CliRequest {
        prompt: "do it".into(),
        cwd: PathBuf::from("/work"),
        ..CliRequest::default()
    }
}

/// The argv `provider` makes of `r` (files it writes go to a temporary
/// folder, removed after).
pub fn argv(provider: &dyn Provider, r: &CliRequest) -> Vec<String> {
    provider
        .command(r, Path::new("/bin/cli"), &Scratch::temporary())
        .map(|c| c.display_args())
        .unwrap_or_else(|e| panic!("{}: {e}", provider.name()))
}

/// Everything `decoder` makes of `lines` on stdout, and of the end.
pub fn decode(decoder: &mut dyn Decoder, lines: &[&str]) -> Vec<Decoded> {
    let mut out = Vec::new();
    for l in lines {
        decoder.stdout_line(l.as_bytes(), &mut out);
    }
    decoder.finish(&mut out);
    out
}
