//! STUB, being written: the qwen decoder.
