//! STUB, being written: the cursor decoder.
