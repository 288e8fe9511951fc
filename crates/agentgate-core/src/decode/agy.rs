//! STUB, being written: the agy decoder.
