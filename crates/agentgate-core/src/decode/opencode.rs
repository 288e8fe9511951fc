//! STUB, being written: the opencode decoder.
