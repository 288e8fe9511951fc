//! `--output-schema`: extract the JSON answer and validate it.
